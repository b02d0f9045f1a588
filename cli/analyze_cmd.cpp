// `rooflens analyze`: per-layer FLOPs, bytes and arithmetic intensity of ONNX models.
#include <optional>
#include <string>
#include <thread>

#include "commands.h"
#include "common.h"
#include "loading.h"
#include "rooflens/cost/cost.h"
#include "rooflens/report/analyze_report.h"
#include "rooflens/util/parallel.h"

namespace rooflens::cli {

void add_analyze(CLI::App& app, AnalyzeArgs& a) {
  auto* cmd = app.add_subcommand("analyze", "Per-layer MACs, FLOPs, bytes and arithmetic intensity of ONNX CNNs");
  cmd->add_option("files", a.files, "ONNX model files (several give one summary row per model)")->required();
  cmd->add_option("--dtype", a.dtype,
                  "precision the model is deployed at (bytes per element): fp32, fp16, bf16, int8 "
                  "or fp8; fp16 as every other command")
      ->capture_default_str();
  cmd->add_option("--batch", a.batch,
                  "batch size (overrides dim 0 of every input; default: the file's, symbolic -> 1)");
  add_input_shape_option(cmd, &a.input_shapes);
  cmd->add_flag("--unfused", a.unfused, "one row per node instead of per fused layer");
  cmd->add_option("--format", a.format, "table, csv or json (default: from -o's extension, else table)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_flag("--allow-unknown", a.allow_unknown,
                "exit 0 even if some ops are unknown (they are listed and not costed)");
  cmd->add_option("-o,--output", a.output, "write to this file (atomically) instead of stdout");
  cmd->add_option("-j,--jobs", a.jobs, "files analysed in parallel (default: one per core)");
  cmd->callback([&a, cmd] { a.batch_given = cmd->count("--batch") > 0; });
}

int run_analyze(const AnalyzeArgs& args) {
  AnalyzeArgs a = args;
  if (Status s = resolve_output(a.format, a.output, {"table", "csv", "json"}, a.files); !s) return report_error(s);
  auto dt = parse_dtype_arg("--dtype", a.dtype);
  if (!dt) return report_error(dt.status());
  ImportOptions io;
  if (a.batch_given) {
    if (a.batch <= 0)
      return report_error(Status::invalid("--batch " + std::to_string(a.batch) + ": must be a positive integer"));
    io.batch = a.batch;
  }
  auto shapes = parse_input_shapes(a.input_shapes);
  if (!shapes) return report_error(shapes.status());
  io.input_shapes = std::move(*shapes);
  AnalyzeOptions ao;
  ao.cost.dtype = *dt;
  ao.fusion = a.unfused ? FusionMode::kNone : FusionMode::kEngine;

  // Files are independent: analyse them on `jobs` threads, report in the given order.
  std::vector<std::optional<Expected<ModelAnalysis>>> results(a.files.size());
  const int jobs =
      std::max(1, std::min<int>(a.jobs > 0 ? a.jobs : static_cast<int>(std::thread::hardware_concurrency()),
                                static_cast<int>(a.files.size())));
  // JSON is rendered by the workers too, model by model (report::analyze_json_part).
  const bool json = a.format == "json", as_list = a.files.size() > 1;
  std::vector<std::string> json_parts(json ? a.files.size() : 0);
  parallel_for(a.files.size(), jobs, [&](size_t i) {
    results[i].emplace(ModelSession::from_file(a.files[i], io.input_shapes).analysis(io.batch, ao));
    if (json && *results[i]) {
      json_parts[i] = report::analyze_json_part(results[i]->value(), as_list);
      std::vector<LayerReport>().swap(results[i]->value().layers);  // rendered: freed here, in parallel
    }
  });
  std::vector<ModelAnalysis> models;
  int rc = kExitOk;
  for (auto& r : results) {
    if (!*r) {
      rc = std::max(rc, report_error(r->status()));
      continue;
    }
    models.push_back(std::move(r->value()));
  }
  if (rc != kExitOk) return rc;  // no partial output

  std::string out;
  if (json) {
    out = report::analyze_json_join(json_parts, as_list);
  } else if (models.size() == 1) {
    const bool csv = a.format == "csv";
    auto t = report::layers_table(models[0], csv);
    out = csv ? report::render_csv(t) : report::render_text(t) + "\n" + report::totals_text(models[0]);
  } else {
    const bool csv = a.format == "csv";
    auto t = report::summary_table(models, csv);
    out = csv ? report::render_csv(t) : report::render_text(t);
  }
  Status w = write_output(a.output, out);
  if (!w) return report_error(w);

  int unknown = 0;
  for (const auto& m : models) {
    if (m.unknown_nodes.empty()) continue;
    ++unknown;
    const std::string list = unknown_ops_summary(m.unknown_nodes);
    std::fprintf(stderr, "rooflens: %s: %zu unknown op node(s) not costed: %s%s\n", m.model.c_str(),
                 m.unknown_nodes.size(), list.c_str(), a.allow_unknown ? "" : " (pass --allow-unknown to accept)");
  }
  return unknown > 0 && !a.allow_unknown ? kExitInput : kExitOk;
}

}  // namespace rooflens::cli
