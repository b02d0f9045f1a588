// `predict` and `devices` output: tables and versioned JSON.
#include <fmt/format.h>

#include <map>

#include "rooflens/report/predict_report.h"

namespace rooflens::report {

Table predict_layers_table(const Prediction& p, bool for_csv) {
  Table t;
  if (for_csv) {
    t.headers = {
        "layer",         "op",           "flops",    "bytes (B)", "dram_bytes (B)", "ai (FLOP/B)",       "unit",
        "t_compute (s)", "t_memory (s)", "time (s)", "bound",     "time_share",     "achieved (FLOP/s)", "why"};
  } else {
    t.headers = {"layer", "op",        "GFLOP", "MB",       "AI (FLOP/B)",
                 "unit",  "time (us)", "bound", "time (%)", "achieved (TFLOP/s)",
                 "why"};
    t.numeric = {false, false, true, true, true, false, true, false, true, true, false};
  }
  for (const auto& L : p.layers) {
    if (L.bound == Bound::kNone) continue;
    if (for_csv)
      t.rows.push_back({L.name, L.op, std::to_string(L.flops), std::to_string(L.bytes), std::to_string(L.dram_bytes),
                        fmt_fixed(L.ai, 3), std::string(compute_unit_name(L.unit)), fmt::format("{:.6e}", L.t_compute),
                        fmt::format("{:.6e}", L.t_memory), fmt::format("{:.6e}", L.time_s),
                        std::string(bound_name(L.bound)), fmt_fixed(L.time_share, 6),
                        fmt::format("{:.6e}", L.achieved_flops), L.why});
    else
      t.rows.push_back({L.name, L.op, fmt_scaled(static_cast<double>(L.flops), 1e9, 3),
                        fmt_scaled(static_cast<double>(L.bytes), 1e6, 3), fmt_fixed(L.ai, 1),
                        std::string(compute_unit_name(L.unit)), fmt_fixed(L.time_s * 1e6, 1),
                        std::string(bound_name(L.bound)), fmt_fixed(100 * L.time_share, 2),
                        fmt_scaled(L.achieved_flops, 1e12, 2), L.why});
  }
  return t;
}

std::string predict_summary_text(const Prediction& p, const DeviceSpec& d) {
  std::string s;
  s += fmt::format("prediction (performance model, not a measurement): {} on {} ({}{}), {}\n", p.model, d.name, d.id,
                   p.engine.empty() ? "" : ", engine " + p.engine, p.dtype);
  const int f = p.images_per_input;
  s += fmt::format("  batch           {:>12}{}{}\n", p.batch,
                   f > 1 ? fmt::format(" folded inputs of {} images ({} images)", f, p.batch * f) : "",
                   p.max_batch && *p.max_batch == p.batch ? "  (the largest that fits)" : "");
  if (p.max_batch)
    s += fmt::format("  max batch       {:>12}  (fits {:.1f} GB of device memory)\n", *p.max_batch, d.mem_bytes / 1e9);
  s += fmt::format("  time per batch  {:>12.3f} ms\n", p.time_s * 1e3);
  if (f > 1)
    s += fmt::format("  throughput      {:>12.1f} folded inputs/s  ({:.1f} images/s: {} images per input)\n",
                     p.throughput, p.throughput * f, f);
  else
    s += fmt::format("  throughput      {:>12.1f} images/s\n", p.throughput);
  s += fmt::format("  utilization     {:>12.1f} %  of the datasheet peak {:.1f} TFLOP/s\n", 100 * p.utilization,
                   p.peak_datasheet / 1e12);
  if (p.utilization_measured)
    s += fmt::format("  utilization     {:>12.1f} %  of the measured peak {:.1f} TFLOP/s\n",
                     100 * *p.utilization_measured, *p.peak_measured / 1e12);
  s += fmt::format("  CMR             {:>12.1f} FLOP/B (datasheet peak / {:.0f} GB/s)\n", p.cmr, d.mem_bandwidth / 1e9);
  s += fmt::format("  aggregate AI    {:>12.1f} FLOP/B ({} the CMR)\n", p.ai, p.ai >= p.cmr ? "above" : "below");
  s += fmt::format("  memory          {:>12.3f} GB at this batch (weights + live activations + workspace)\n",
                   static_cast<double>(p.memory_bytes) / 1e9);
  std::map<std::string, double> by_bound;
  for (const auto& L : p.layers)
    if (L.bound != Bound::kNone) by_bound[std::string(bound_name(L.bound))] += L.time_share;
  s += "  time by bound  ";
  for (const auto& [b, share] : by_bound) s += fmt::format("  {} {:.1f}%", b, 100 * share);
  s += "\n";
  for (const auto& n : p.notes) s += "  note: " + n + "\n";
  return s;
}

nlohmann::json predict_json(const Prediction& p, bool with_layers) {
  nlohmann::json j;
  j["schema"] = kPredictSchema;
  j["kind"] = "prediction";
  j["model"] = p.model;
  j["device"] = p.device_id;
  j["engine"] = p.engine.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.engine);
  j["dtype"] = p.dtype;
  j["batch"] = p.batch;
  j["max_batch"] = p.max_batch ? nlohmann::json(*p.max_batch) : nlohmann::json(nullptr);
  j["time_s"] = p.time_s;
  j["throughput"] = p.throughput;
  j["utilization"] = p.utilization;
  j["utilization_measured_peak"] =
      p.utilization_measured ? nlohmann::json(*p.utilization_measured) : nlohmann::json(nullptr);
  j["peak_flops"] = p.peak_datasheet;
  j["peak_flops_measured"] = p.peak_measured ? nlohmann::json(*p.peak_measured) : nlohmann::json(nullptr);
  j["cmr"] = p.cmr;
  j["ai"] = p.ai;
  j["flops_per_image"] = p.flops_per_image;
  j["memory_bytes"] = p.memory_bytes;
  j["notes"] = p.notes;
  j["units"] = {{"time_s", "seconds"}, {"throughput", "images/s"}, {"utilization", "fraction of peak_flops"},
                {"flops", "FLOP"},     {"bytes", "bytes"},         {"peak_flops", "FLOP/s"}};
  if (p.images_per_input > 1) {  // a folded model: batch and throughput count folded inputs
    j["images_per_input"] = p.images_per_input;
    j["units"]["throughput"] = "folded inputs/s";
    j["units"]["batch"] = "folded inputs";
    j["units"]["flops_per_image"] = "FLOP per folded input";
  }
  if (with_layers) {
    nlohmann::json layers = nlohmann::json::array();
    for (const auto& L : p.layers) {
      if (L.bound == Bound::kNone) continue;
      layers.push_back({{"name", L.name},
                        {"op", L.op},
                        {"flops", L.flops},
                        {"bytes", L.bytes},
                        {"dram_bytes", L.dram_bytes},
                        {"ai", L.ai},
                        {"unit", compute_unit_name(L.unit)},
                        {"peak_flops", L.peak_used},
                        {"wave_efficiency", L.wave_efficiency},
                        {"split_k", L.split_k},
                        {"t_compute_s", L.t_compute},
                        {"t_memory_s", L.t_memory},
                        {"t_launch_s", L.t_launch},
                        {"time_s", L.time_s},
                        {"bound", bound_name(L.bound)},
                        {"time_share", L.time_share},
                        {"achieved_flops", L.achieved_flops},
                        {"why", L.why},
                        {"flags", L.flags}});
      if (!L.table_class.empty())  // timed by a measured kernel table: its class and in-network level
        layers.back()["kernel_table"] = {{"class", L.table_class},
                                         {"level_class", L.level_class},
                                         {"level_position", L.level_position},
                                         {"level", L.level}};
    }
    j["layers"] = std::move(layers);
  }
  return j;
}

Table batch_sweep_table(const std::vector<Prediction>& ps, bool for_csv) {
  Table t;
  // A folded model's batch and throughput count folded inputs (Prediction::images_per_input).
  const bool folded = !ps.empty() && ps.front().images_per_input > 1;
  if (for_csv)
    t.headers = {folded ? "batch (folded inputs)" : "batch",
                 "time (s)",
                 folded ? "throughput (folded inputs/s)" : "throughput (images/s)",
                 "utilization",
                 "utilization_measured",
                 "ai (FLOP/B)",
                 "memory (B)"};
  else {
    t.headers = {folded ? "batch (folded inputs)" : "batch",
                 "time (ms)",
                 folded ? "throughput (folded inputs/s)" : "throughput (img/s)",
                 "util. datasheet (%)",
                 "util. measured (%)",
                 "AI (FLOP/B)",
                 "memory (GB)"};
    t.numeric = {true, true, true, true, true, true, true};
  }
  for (const auto& p : ps) {
    std::string um = p.utilization_measured ? (for_csv ? fmt_fixed(*p.utilization_measured, 6)
                                                       : fmt_fixed(100 * *p.utilization_measured, 1))
                                            : "-";
    if (for_csv)
      t.rows.push_back({std::to_string(p.batch), fmt::format("{:.6e}", p.time_s), fmt_fixed(p.throughput, 2),
                        fmt_fixed(p.utilization, 6), um, fmt_fixed(p.ai, 3), std::to_string(p.memory_bytes)});
    else
      t.rows.push_back({std::to_string(p.batch) + (p.max_batch && *p.max_batch == p.batch ? " (max)" : ""),
                        fmt_fixed(p.time_s * 1e3, 3), fmt_fixed(p.throughput, 1), fmt_fixed(100 * p.utilization, 1), um,
                        fmt_fixed(p.ai, 1), fmt_scaled(static_cast<double>(p.memory_bytes), 1e9, 3)});
  }
  return t;
}

Table devices_table(const std::vector<DeviceSpec>& ds, bool for_csv) {
  Table t;
  const char* dts[] = {"fp32", "tf32", "fp16", "bf16", "int8", "fp8"};
  if (for_csv) {
    t.headers = {"id", "aliases", "name", "kind", "memory (B)", "bandwidth (B/s)"};
    for (const char* d : dts) t.headers.push_back(std::string("peak_") + d + " (FLOP/s)");
    for (const char* d : dts) t.headers.push_back(std::string("cmr_") + d + " (FLOP/B)");
    t.headers.push_back("host_link");
    t.headers.push_back("host_link_bandwidth (B/s, one direction)");
  } else {
    t.headers = {"id",
                 "aliases",
                 "memory (GB)",
                 "BW (GB/s)",
                 "FP32 (TFLOP/s)",
                 "FP16 (TFLOP/s)",
                 "INT8 (TOP/s)",
                 "CMR fp32",
                 "CMR fp16",
                 "CMR int8",
                 "host link (GB/s, one direction)"};
    t.numeric = {false, false, true, true, true, true, true, true, true, true, false};
  }
  for (const auto& d : ds) {
    std::string aliases;
    for (const auto& a : d.aliases) aliases += (aliases.empty() ? "" : " ") + a;
    auto peak = [&](const char* dt) {
      auto p = d.best_peak(dt);
      return p ? p->flops : 0.0;
    };
    if (for_csv) {
      std::vector<std::string> row = {
          d.id, aliases, d.name, d.kind, fmt::format("{:.0f}", d.mem_bytes), fmt::format("{:.0f}", d.mem_bandwidth)};
      for (const char* dt : dts) row.push_back(peak(dt) > 0 ? fmt::format("{:.4e}", peak(dt)) : "");
      for (const char* dt : dts) row.push_back(peak(dt) > 0 ? fmt_fixed(d.cmr(dt), 2) : "");
      row.push_back(d.host_link ? d.host_link->name : "");
      row.push_back(d.host_link ? fmt::format("{:.0f}", d.host_link->bandwidth_bytes_per_s) : "");
      t.rows.push_back(row);
    } else {
      auto tf = [&](const char* dt) {
        return peak(dt) > 0 ? fmt_scaled(peak(dt), 1e12, d.is_gpu() ? 1 : 3) : std::string("-");
      };
      auto cmr = [&](const char* dt) { return peak(dt) > 0 ? fmt_fixed(d.cmr(dt), 1) : std::string("-"); };
      const std::string link =
          d.host_link ? d.host_link->name + ", " + fmt_scaled(d.host_link->bandwidth_bytes_per_s, 1e9, 1) : "-";
      t.rows.push_back({d.id, aliases, fmt_scaled(d.mem_bytes, 1e9, 1), fmt_scaled(d.mem_bandwidth, 1e9, 0), tf("fp32"),
                        tf("fp16"), tf("int8"), cmr("fp32"), cmr("fp16"), cmr("int8"), link});
    }
  }
  return t;
}

nlohmann::json devices_json(const std::vector<DeviceSpec>& ds) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& d : ds) {
    nlohmann::json peaks = nlohmann::json::object(), cmr = nlohmann::json::object(), detail = nlohmann::json::array();
    for (const char* dt : {"fp32", "tf32", "fp16", "bf16", "int8", "fp8"})
      if (auto p = d.best_peak(dt)) {
        peaks[dt] = p->flops;
        cmr[dt] = d.cmr(dt);
      }
    for (const auto& p : d.peaks)
      detail.push_back({{"dtype", p.dtype},
                        {"unit", compute_unit_name(p.unit)},
                        {"accumulator", p.accumulator},
                        {"flops", p.flops}});
    nlohmann::json measured = nlohmann::json::array();
    for (const auto& p : d.measured_peaks)
      measured.push_back(
          {{"dtype", p.dtype}, {"unit", compute_unit_name(p.unit)}, {"flops", p.flops}, {"source", p.source}});
    // One direction, B/s; null for a CPU.
    nlohmann::json link = nullptr;
    if (d.host_link)
      link = {{"name", d.host_link->name},
              {"bandwidth", d.host_link->bandwidth_bytes_per_s},
              {"source", d.host_link->source}};
    arr.push_back({{"id", d.id},
                   {"aliases", d.aliases},
                   {"name", d.name},
                   {"kind", d.kind},
                   {"peaks", peaks},
                   {"peaks_detail", detail},
                   {"measured_peaks", measured},
                   {"bandwidth", d.mem_bandwidth},
                   {"memory_bytes", d.mem_bytes},
                   {"cmr", cmr},
                   {"host_link", link},
                   {"file", d.file}});
  }
  return {{"schema", kDevicesSchema}, {"devices", arr}};
}

}  // namespace rooflens::report
