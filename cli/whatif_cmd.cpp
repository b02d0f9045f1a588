// `rooflens whatif`: one model under fold, channel padding, dtype, batch and other devices,
// every row predicted on the transformed graph beside the baseline.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <thread>

#include "commands.h"
#include "common.h"
#include "loading.h"
#include "rooflens/analysis/whatif.h"
#include "rooflens/report/table.h"
#include "whatif_setup.h"

namespace rooflens::cli {

void add_whatif(CLI::App& app, WhatIfArgs& a) {
  auto* cmd = app.add_subcommand("whatif",
                                 "Predicted throughput, utilization and AI of one model under fold, channel "
                                 "padding, dtype, batch and other devices, beside the baseline");
  cmd->add_option("file", a.file, "ONNX model file")->required();
  cmd->add_option("--device", a.device, "device id or alias, a device .json file, or custom:...")
      ->capture_default_str();
  cmd->add_option("--dtype", a.dtype, "baseline dtype")->capture_default_str();
  cmd->add_option("--batch", a.batch, "baseline batch: N or max")->capture_default_str();
  add_input_shape_option(cmd, &a.input_shapes);
  cmd->add_option("--devices", a.devices,
                  "comma-separated devices for the device rows (default: every GPU of the database)");
  cmd->add_option("--format", a.format, "table, csv or json (default: from -o's extension, else table)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_option("-o,--output", a.output, "write to this file (atomically) instead of stdout");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  add_engine_option(cmd, &a.engine);
}

int run_whatif(const WhatIfArgs& args) {
  WhatIfArgs a = args;
  if (Status s = resolve_output(a.format, a.output, {"table", "csv", "json"}, {a.file, a.device}); !s)
    return report_error(s);
  auto setup =
      make_whatif_setup(a.file, a.device, a.dtype, a.batch, a.input_shapes, a.devices, a.devices_dir, a.engine);
  if (!setup) return report_error(setup.status());
  auto rows = rooflens::run_whatif((*setup)->load, (*setup)->options);
  if (!rows) return report_error(rows.status());

  std::string out;
  if (a.format == "json") {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& r : *rows)
      arr.push_back({{"group", r.group},
                     {"variant", r.variant},
                     {"device", r.device_id},
                     {"dtype", r.dtype},
                     {"ok", r.ok},
                     {"batch", r.batch},
                     {"throughput", r.throughput},
                     {"speedup", r.speedup},
                     {"utilization", r.utilization},
                     {"ai", r.ai},
                     {"cmr", r.cmr},
                     {"flops_per_image", r.flops_per_image},
                     {"note", r.note}});
    out = nlohmann::json({{"schema", "rooflens.whatif/1"},
                          {"model", a.file},
                          {"kind", "prediction"},
                          {"engine", (*setup)->options.perf.engine.id},
                          {"rows", arr}})
              .dump(2) +
          "\n";
  } else {
    report::Table t;
    t.headers = {"what-if",    "device",    "dtype",       "batch (img)",  "throughput (img/s)",
                 "x baseline", "util. (%)", "AI (FLOP/B)", "CMR (FLOP/B)", "GFLOP/img",
                 "note"};
    t.numeric = {false, false, false, true, true, true, true, true, true, true, false};
    for (const auto& r : *rows) {
      if (!r.ok) {
        t.rows.push_back({r.variant, r.device_id, r.dtype, "-", "-", "-", "-", "-", "-", "-", r.note});
        continue;
      }
      t.rows.push_back({r.variant, r.device_id, r.dtype, std::to_string(r.batch), report::fmt_fixed(r.throughput, 0),
                        r.group == "baseline" ? "1.00" : report::fmt_fixed(r.speedup, 2),
                        report::fmt_fixed(100 * r.utilization, 1), report::fmt_fixed(r.ai, 1),
                        report::fmt_fixed(r.cmr, 1), report::fmt_fixed(r.flops_per_image / 1e9, 3), r.note});
    }
    out = a.format == "csv" ? report::render_csv(t)
                            : fmt::format(
                                  "what-if (predictions of the performance model, engine {} on GPUs, each on the "
                                  "transformed graph): {}\n\n",
                                  (*setup)->options.perf.engine.id, a.file) +
                                  report::render_text(t);
  }
  Status w = write_output(a.output, out);
  return w ? kExitOk : report_error(w);
}

}  // namespace rooflens::cli
