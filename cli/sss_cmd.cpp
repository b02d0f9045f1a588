// `rooflens sss`: the NATS-Bench size search space on a device: one network in detail, or
// all 32768 predicted, their throughput-utilization Pareto frontier and the "Figure 3" scatter.
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"
#include "loading.h"
#include "nats_progress.h"
#include "rooflens/analysis/study_inputs.h"
#include "rooflens/nas/oracle.h"
#include "rooflens/nas/sss_study.h"
#include "rooflens/onnx/export.h"
#include "rooflens/report/nas_report.h"
#include "rooflens/report/svg_plot.h"
#include "rooflens/report/table.h"

namespace rooflens::cli {

void add_sss(CLI::App& app, SssArgs& a) {
  auto* cmd = app.add_subcommand("sss",
                                 "NATS-Bench size search space on a device: one network (arch or --index) or --all "
                                 "32768 predicted, their throughput-utilization Pareto frontier, a Figure 3 scatter");
  cmd->add_option("arch", a.arch, "widths c0:c1:c2:c3:c4, each one of 8,16,...,64 (e.g. 8:16:24:32:64)");
  cmd->add_option("--index", a.index, "network index 0..32767 instead of the arch string");
  cmd->add_flag("--all", a.all, "predict every network of the space");
  cmd->add_option("--dataset", a.dataset, "cifar10, cifar100 or ImageNet16-120")->capture_default_str();
  cmd->add_option("--device", a.device, "device id or alias (rooflens devices), a device .json file, or custom:...")
      ->capture_default_str();
  cmd->add_option("--dtype", a.dtype, "fp32, fp16, bf16, int8 or fp8")->capture_default_str();
  cmd->add_option("--batch", a.batch, "images per batch: N, or max (largest that fits the device)")
      ->capture_default_str();
  cmd->add_option("--onnx", a.onnx, "one network: also write it as ONNX here (weights stripped)");
  cmd->add_option("--format", a.format, "table, csv or json (default: table; with -o, from its extension)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_option("-o,--output", a.output,
                  "write the result here (atomically); with --all, every network, and the "
                  "frontier summary goes to stdout");
  cmd->add_option("--report", a.report, "--all: write sss.svg, index.html and frontier.csv into this directory");
  cmd->add_option("--accuracy", a.accuracy,
                  "accuracy source: csv:FILE or FILE (arch,accuracy[,train_seconds]) or "
                  "nats:PATH; colours Figure 3 (--all) or is shown for one network");
  cmd->add_option("--nats", a.nats,
                  "NATS-Bench SSS data: the directory NATS-sss-v1_0-50262-simple/ or the single "
                  "file NATS-sss-v1_0-50262.pickle.pbz2 (streamed, minutes; progress on stderr): "
                  "same as --accuracy nats:PATH; for one network also the benchmark's stored "
                  "costs, accuracies and training times");
  cmd->add_option("--jobs", a.jobs, "threads (default: one per core)");
  cmd->add_option("--devices-dir", a.devices_dir, "directory of device JSON files");
  add_engine_option(cmd, &a.engine);
  cmd->add_flag("--datasheet-peak", a.datasheet_peak,
                "model compute roofs with datasheet peaks even where a measured peak exists");
}

namespace {

Expected<SssBatch> parse_batch(const std::string& s) {
  auto b = parse_batch_or_max(s);
  if (!b) return b.status();
  return *b ? SssBatch::fixed(**b) : SssBatch::largest();
}

Expected<int64_t> parse_index(const std::string& s) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno == ERANGE || !sss_index_valid(v))
    return Status::invalid("--index '" + s + "': expected an integer in 0.." + std::to_string(kSssSpaceSize - 1));
  return static_cast<int64_t>(v);
}

// Resolved by run_sss (resolve_output): from -o's extension, else table on stdout and csv
// in a file.
std::string format_for(const SssArgs& a) { return a.format; }

nlohmann::json point_json(const SssPoint& p, bool frontier) {
  return {{"index", p.index},
          {"arch", p.arch},
          {"macs", p.macs},
          {"flop_benchmark", p.flop_benchmark},
          {"flops", p.flops},
          {"params", p.params},
          {"ai", p.ai},
          {"batch", p.batch},
          {"throughput", p.throughput},
          {"utilization", p.utilization},
          {"frontier", frontier}};
}

report::Table points_table(const std::vector<SssPoint>& pts, const std::vector<size_t>& which,
                           const std::set<size_t>& frontier, bool csv) {
  report::Table t;
  t.headers = {"index",       "arch",  "MACs/img (M)",       "benchmark flop/img (M)", "GFLOP/img", "params (M)",
               "AI (FLOP/B)", "batch", "throughput (img/s)", "utilization (%)",        "frontier"};
  t.numeric = {true, false, true, true, true, true, true, true, true, true, false};
  for (size_t i : which) {
    const SssPoint& p = pts[i];
    t.rows.push_back({std::to_string(p.index), p.arch,
                      report::fmt_scaled(static_cast<double>(p.macs), 1e6, csv ? 6 : 2),
                      report::fmt_scaled(static_cast<double>(p.flop_benchmark), 1e6, csv ? 6 : 2),
                      report::fmt_scaled(static_cast<double>(p.flops), 1e9, 4),
                      report::fmt_scaled(static_cast<double>(p.params), 1e6, csv ? 6 : 3), report::fmt_fixed(p.ai, 2),
                      std::to_string(p.batch), report::fmt_fixed(p.throughput, csv ? 1 : 0),
                      report::fmt_fixed(100 * p.utilization, csv ? 4 : 2), frontier.count(i) ? "yes" : "no"});
  }
  return t;
}

// The oracle behind --accuracy / --nats, or nullptr when neither is given. NATS-Bench's
// single file is read once with progress on stderr; for one network (`only`) only as far as
// that network.
Expected<std::unique_ptr<nas::AccuracyOracle>> accuracy_oracle(const SssArgs& a, std::optional<int64_t> only) {
  if (!a.accuracy.empty() && !a.nats.empty()) return Status::invalid("give --accuracy or --nats, not both");
  std::string spec = !a.nats.empty() ? "nats:" + a.nats : a.accuracy;
  if (spec.empty()) return std::unique_ptr<nas::AccuracyOracle>();
  if (spec.rfind("nats:", 0) != 0 && spec.rfind("csv:", 0) != 0) spec = "csv:" + spec;
  const char* flag = !a.nats.empty() ? "--nats" : "--accuracy";
  if (spec.rfind("nats:", 0) == 0) {
    const std::string path = spec.substr(5);
    if (auto form = nas::nats_data_form(path); form && *form == nas::NatsDataForm::kSingleFile) {
      const NatsProgress progress(path);
      auto index = only ? nas::NatsOracle::load_index(path, {*only}, progress.callback())
                        : nas::NatsOracle::shared_index(path, progress.callback());
      progress.finish();
      if (!index) return index.status().with_context(flag);
      return std::unique_ptr<nas::AccuracyOracle>(std::make_unique<nas::NatsOracle>(*index));
    }
  }
  auto o = nas::make_oracle(spec);
  if (!o) return o.status().with_context(flag);
  return o;
}

// Final accuracy per network (index order), NaN where the source has none. Errors other
// than "not in the source" (a corrupt data file) are returned.
Expected<std::vector<double>> final_accuracies(nas::AccuracyOracle& oracle, int64_t& known) {
  std::vector<double> acc(static_cast<size_t>(kSssSpaceSize), std::nan(""));
  known = 0;
  for (int64_t i = 0; i < kSssSpaceSize; ++i) {
    auto f = oracle.final_accuracy(i);
    if (f) {
      acc[static_cast<size_t>(i)] = *f;
      ++known;
    } else if (f.status().code() != StatusCode::kUnavailable) {
      return f.status();
    }
  }
  return acc;
}

// Rows for one network from the NATS-Bench files: the stored costs (against rooflens'),
// the simulated train-and-evaluate of every recorded seed and the final accuracy.
Expected<std::vector<std::vector<std::string>>> nats_rows(nas::NatsOracle& oracle, const SssPoint& p, SssDataset ds) {
  auto net = oracle.network(p.index);
  if (!net) return net.status();
  std::vector<std::vector<std::string>> rows;
  const std::string dname = sss_dataset_info(ds).name;
  const nas::NatsResult* stored = nullptr;
  for (const auto& hp : (*net)->hps)
    for (const auto& r : hp.results)
      if (!stored && (r.dataset == dname || (ds == SssDataset::kCifar10 && r.dataset == "cifar10-valid"))) stored = &r;
  if (stored) {
    rows.push_back(
        {fmt::format("NATS-Bench stored flop/img (M, {})", stored->dataset),
         fmt::format("{:.6f} ({})", stored->flop,
                     std::abs(stored->flop - p.flop_benchmark / 1e6) < 5e-6 ? "= rooflens" : "differs from rooflens")});
    rows.push_back(
        {"NATS-Bench stored params (M)",
         fmt::format("{:.6f} ({})", stored->params,
                     std::abs(stored->params - p.params / 1e6) < 5e-6 ? "= rooflens" : "differs from rooflens")});
  }
  if (ds == SssDataset::kCifar10) {
    const nas::NatsHpResults* hp12 = (*net)->find("12");
    if (hp12 && hp12->dataset_seeds.count("cifar10-valid")) {
      std::string accs;
      double cost = 0;
      for (int seed : hp12->dataset_seeds.at("cifar10-valid")) {
        const nas::NatsResult* r = hp12->find("cifar10-valid", seed);
        if (!r) continue;
        accs += fmt::format("{}{:.2f} (seed {})", accs.empty() ? "" : ", ", r->eval_acc1("x-valid", 11), seed);
        cost = 0;
        for (int e = 0; e < 12; ++e)
          if (auto it = r->train_times.find(e); it != r->train_times.end()) cost += it->second;
        cost += r->eval_time("x-valid", 11);
      }
      rows.push_back({"search accuracy (%: hp 12, cifar10-valid, x-valid@11)", accs});
      rows.push_back({"simulated train + eval cost (s: 12 epochs + x-valid)", fmt::format("{:.2f}", cost)});
    }
    auto f = oracle.final_accuracy(p.index);
    if (f) rows.push_back({"final accuracy (%: hp 90, cifar10, ori-test@89)", fmt::format("{:.2f}", *f)});
  }
  return rows;
}

int run_one(const SssArgs& a, const SssWidths& widths, SssDataset ds, const DeviceSpec& dev, const PerfOptions& po,
            SssBatch batch, nas::AccuracyOracle* oracle) {
  Prediction detail;
  auto pt = predict_sss_network(widths, sss_net_input(ds), dev, po, batch, &detail);
  if (!pt) return report_error(pt.status());
  if (!a.onnx.empty()) {
    auto g = build_sss_network(widths, ds, pt->batch);
    if (!g) return report_error(g.status());
    Status s = export_onnx_file(*g, a.onnx, ExportOptions{});
    if (!s) return report_error(s);
  }
  const std::string fmt_s = format_for(a);
  std::string out;
  if (fmt_s == "json") {
    nlohmann::json j = point_json(*pt, false);
    j["engine"] = dev.is_gpu() ? nlohmann::json(po.engine.id) : nlohmann::json(nullptr);
    out = j.dump(2) + "\n";
  } else if (fmt_s == "csv") {
    out = report::render_csv(points_table({*pt}, {0}, {}, true));
  } else {
    const SssDatasetInfo info = sss_dataset_info(ds);
    report::Table t;
    t.headers = {"quantity", "value"};
    t.numeric = {false, true};
    t.rows = {{"index", std::to_string(pt->index)},
              {"dataset",
               fmt::format("{} ({} classes, {}x{} input)", info.name, info.classes, info.image_size, info.image_size)},
              {"MACs/img (M)", report::fmt_scaled(static_cast<double>(pt->macs), 1e6, 6)},
              {"benchmark flop/img (M) = MACs + classes",
               report::fmt_scaled(static_cast<double>(pt->flop_benchmark), 1e6, 6)},
              {"FLOPs/img (G, 2 x MACs + other)", report::fmt_scaled(static_cast<double>(pt->flops), 1e9, 5)},
              {"params (M)", report::fmt_scaled(static_cast<double>(pt->params), 1e6, 6)},
              {"AI (FLOP/B)", report::fmt_fixed(pt->ai, 2)},
              {"CMR (FLOP/B)", report::fmt_fixed(detail.cmr, 1)},
              {batch.max ? "batch (max that fits)" : "batch", std::to_string(pt->batch)},
              {"time per batch (ms)", report::fmt_fixed(1e3 * detail.time_s, 3)},
              {"throughput (img/s)", report::fmt_fixed(pt->throughput, 0)},
              {"utilization (% of datasheet peak)", report::fmt_fixed(100 * pt->utilization, 2)}};
    if (dev.is_gpu()) t.rows.push_back({"engine", po.engine.id});
    if (detail.utilization_measured)
      t.rows.push_back({"utilization (% of measured peak)", report::fmt_fixed(100 * *detail.utilization_measured, 2)});
    if (oracle != nullptr) {
      if (auto* nats = dynamic_cast<nas::NatsOracle*>(oracle)) {
        auto rows = nats_rows(*nats, *pt, ds);
        if (!rows) return report_error(rows.status());
        t.rows.insert(t.rows.end(), rows->begin(), rows->end());
      } else {
        auto f = oracle->final_accuracy(pt->index);
        if (!f) return report_error(f.status());
        t.rows.push_back({"accuracy (%, " + a.accuracy + ")", fmt::format("{:.2f}", *f)});
      }
    }
    out = fmt::format("NATS-SSS {} on {} ({}), {} (performance model)\n\n", pt->arch, dev.name, dev.id, a.dtype) +
          report::render_text(t);
  }
  Status w = write_output(a.output, out);
  return w ? kExitOk : report_error(w);
}

int run_all(const SssArgs& a, SssDataset ds, const DeviceSpec& dev, const PerfOptions& po, SssBatch batch,
            nas::AccuracyOracle* oracle) {
  std::vector<double> acc_by_point;
  int64_t known = 0;
  if (oracle != nullptr) {
    auto r = final_accuracies(*oracle, known);
    if (!r) return report_error(r.status());
    acc_by_point = std::move(*r);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const bool tty = isatty(fileno(stderr)) != 0;  // progress only where it overwrites itself
  SssProgress progress;
  if (tty)
    progress = [](int64_t done, int64_t total) {
      std::fprintf(stderr, "predicted %lld/%lld\r", static_cast<long long>(done), static_cast<long long>(total));
    };
  auto pts = predict_sss_space(sss_net_input(ds), dev, po, batch, a.jobs, progress);
  if (tty) std::fprintf(stderr, "\n");
  if (!pts) return report_error(pts.status());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto front = sss_frontier(*pts);
  if (!front) return report_error(front.status());
  const std::set<size_t> on(front->begin(), front->end());
  const std::string batch_s = batch.max ? "max batch" : "batch " + std::to_string(batch.size);
  const std::string head = fmt::format(
      "NATS-SSS ({}) on {} ({}{}), {}, {}: {} networks predicted in {:.2f} s; "
      "{} on the throughput-utilization Pareto frontier{}\n\n",
      sss_dataset_info(ds).name, dev.name, dev.id, dev.is_gpu() ? ", engine " + po.engine.id : "", a.dtype, batch_s,
      pts->size(), secs, front->size(),
      dev.is_gpu() && po.engine.fusion != FusionMode::kEngine
          ? "\n(the space's cached segments are fused as an engine fuses them: the engine's fusion rule '" +
                std::string(fusion_mode_name(po.engine.fusion)) + "' is not applied to them)"
          : "");
  const std::string fmt_s = format_for(a);
  std::vector<size_t> every(pts->size());
  for (size_t i = 0; i < every.size(); ++i) every[i] = i;
  std::string data;
  if (fmt_s == "json") {
    nlohmann::json j = {{"schema", "rooflens.sss/1"},
                        {"dataset", sss_dataset_info(ds).name},
                        {"device", dev.id},
                        {"engine", dev.is_gpu() ? nlohmann::json(po.engine.id) : nlohmann::json(nullptr)},
                        {"dtype", a.dtype},
                        {"batch", batch.max ? nlohmann::json("max") : nlohmann::json(batch.size)},
                        {"frontier_size", front->size()},
                        {"networks", nlohmann::json::array()}};
    for (size_t i : every) j["networks"].push_back(point_json((*pts)[i], on.count(i) > 0));
    data = j.dump() + "\n";
  } else if (fmt_s == "csv") {
    data = report::render_csv(points_table(*pts, every, on, true));
  }
  const std::string summary = head + report::render_text(points_table(*pts, *front, on, false));
  if (!a.report.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.report, ec);
    if (ec) return report_error(Status::invalid("--report '" + a.report + "': " + ec.message()));
    // Figure 3 (report/nas_report.h), coloured by the accuracy source where it knows a network.
    report::Figure3Options fig;
    fig.id = "sss-figure3";
    fig.title = fmt::format("NATS-SSS {} on {} ({}, {})", sss_dataset_info(ds).name, dev.name, a.dtype, batch_s);
    fig.source = "predicted by the rooflens performance model (not measured)";
    if (oracle != nullptr)
      fig.accuracy_label = fmt::format("final accuracy ({} of {} networks known)", known, pts->size());
    const std::string svg = report::sss_figure3_svg(*pts, *front, acc_by_point, fig);
    const std::string html =
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>rooflens sss</title></head><body>\n"
        "<h1>NATS-Bench size space: throughput vs utilization</h1>\n<p>" +
        report::xml_escape(head) + "</p>\n" + svg + "\n</body></html>\n";
    for (const auto& [name, text] : {std::pair<std::string, std::string>{"sss.svg", svg},
                                     {"index.html", html},
                                     {"frontier.csv", report::render_csv(points_table(*pts, *front, on, true))}}) {
      Status s = write_output((std::filesystem::path(a.report) / name).string(), text);
      if (!s) return report_error(s);
    }
  }
  const bool to_file = !a.output.empty() && a.output != "-";
  if (fmt_s == "table") {
    Status w = write_output(a.output, summary);
    return w ? kExitOk : report_error(w);
  }
  Status w = write_output(a.output, data);
  if (!w) return report_error(w);
  if (to_file) std::fputs(summary.c_str(), stdout);
  return kExitOk;
}

}  // namespace

int run_sss(const SssArgs& args) {
  SssArgs a = args;
  const std::string accuracy_file = a.accuracy.rfind("csv:", 0) == 0 ? a.accuracy.substr(4) : a.accuracy;
  const std::vector<std::string> inputs = {accuracy_file, a.device};
  if (Status s = resolve_output(a.format, a.output, {"table", "csv", "json"}, inputs,
                                a.output.empty() || a.output == "-" ? "table" : "csv");
      !s)
    return report_error(s);
  if (Status s = check_output_file(a.onnx, inputs, "--onnx"); !s) return report_error(s);
  if (Status s = check_output_dir(a.report, "--report"); !s) return report_error(s);
  const int given = (a.arch.empty() ? 0 : 1) + (a.index.empty() ? 0 : 1) + (a.all ? 1 : 0);
  if (given != 1) return report_error(Status::invalid("sss: give exactly one of an arch string, --index N or --all"));
  auto ds = sss_dataset_from_name(a.dataset);
  if (!ds) return report_error(ds.status());
  if (auto dt = parse_dtype_arg("--dtype", a.dtype); !dt) return report_error(dt.status());
  auto batch = parse_batch(a.batch);
  if (!batch) return report_error(batch.status());
  SssWidths widths{};
  if (!a.arch.empty()) {
    auto w = sss_parse_arch(a.arch);
    if (!w) return report_error(w.status());
    widths = *w;
  } else if (!a.index.empty()) {
    auto i = parse_index(a.index);
    if (!i) return report_error(i.status());
    widths = sss_widths(*i);
  }
  if (a.all && !a.onnx.empty()) return report_error(Status::invalid("--onnx writes one network; not with --all"));
  if (!a.all && !a.report.empty()) return report_error(Status::invalid("--report goes with --all"));
  std::optional<int64_t> only;  // one network: a single NATS file is read only as far as it
  if (!a.all)
    if (auto i = sss_index(widths)) only = *i;
  auto oracle = accuracy_oracle(a, only);
  if (!oracle) return report_error(oracle.status());
  auto dev = device_with_peak(a.device, a.devices_dir, a.dtype);
  if (!dev) return report_error(dev.status());
  auto engine = resolve_engine(a.engine, *dev);
  if (!engine) return report_error(engine.status());
  PerfOptions po;
  po.dtype = a.dtype;
  po.use_measured_peak = !a.datasheet_peak;
  po.engine = *engine;
  return a.all ? run_all(a, *ds, *dev, po, *batch, oracle->get())
               : run_one(a, widths, *ds, *dev, po, *batch, oracle->get());
}

}  // namespace rooflens::cli
