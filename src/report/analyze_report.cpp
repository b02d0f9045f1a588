// `analyze` output: text/CSV tables and the rooflens.analyze/1 JSON schema.
#include "rooflens/report/analyze_report.h"

#include <fmt/format.h>

#include "rooflens/report/json_writer.h"

namespace rooflens::report {
namespace {

std::string shapes_str(const std::vector<Shape>& shapes) {
  std::string s;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i) s += ", ";
    s += shape_str(shapes[i]);
  }
  return s;
}

const char* status_name(LayerStatus s) {
  switch (s) {
    case LayerStatus::kOk: return "ok";
    case LayerStatus::kUnknownOp: return "unknown_op";
    case LayerStatus::kUnresolved: return "unresolved";
  }
  return "?";
}

}  // namespace

Table layers_table(const ModelAnalysis& m, bool for_csv) {
  Table t;
  if (for_csv) {
    t.headers = {"layer",       "op",           "input_shape",   "output_shape",      "macs",
                 "flops",       "bytes_in (B)", "bytes_out (B)", "bytes_weights (B)", "ai (FLOP/B)",
                 "flops_share", "status"};
  } else {
    t.headers = {"layer",   "op",       "input shape",  "output shape", "MACs (M)", "FLOPs (M)",
                 "in (MB)", "out (MB)", "weights (MB)", "AI (FLOP/B)",  "FLOPs (%)"};
    t.numeric = {false, false, false, false, true, true, true, true, true, true, true};
  }
  for (const LayerReport& r : m.layers) {
    const auto& c = r.cost;
    if (for_csv) {
      t.rows.push_back({r.name, r.op, shapes_str(r.in_shapes), shapes_str(r.out_shapes), std::to_string(c.macs),
                        std::to_string(c.flops), std::to_string(c.bytes_in), std::to_string(c.bytes_out),
                        std::to_string(c.bytes_weights), fmt_fixed(r.ai, 3), fmt_fixed(r.flops_share, 6),
                        status_name(r.status)});
    } else {
      if (r.status != LayerStatus::kOk) {
        t.rows.push_back({r.name, r.op, "", "", "?", "?", "?", "?", "?", "?",
                          r.status == LayerStatus::kUnknownOp ? "unknown op" : "no shape"});
        continue;
      }
      t.rows.push_back(
          {r.name, r.op, shapes_str(r.in_shapes), shapes_str(r.out_shapes),
           fmt_scaled(static_cast<double>(c.macs), 1e6, 2), fmt_scaled(static_cast<double>(c.flops), 1e6, 2),
           fmt_scaled(static_cast<double>(c.bytes_in), 1e6, 3), fmt_scaled(static_cast<double>(c.bytes_out), 1e6, 3),
           fmt_scaled(static_cast<double>(c.bytes_weights), 1e6, 3), fmt_fixed(r.ai, 1),
           fmt_fixed(100 * r.flops_share, 2)});
    }
  }
  return t;
}

std::string totals_text(const ModelAnalysis& m) {
  const auto& c = m.totals;
  std::string s;
  s += fmt::format("model {}: {} layers ({} view), dtype {}, batch {}, input {}\n", m.model, m.layers.size(),
                   m.fused ? "fused" : "unfused", dtype_name(m.dtype), m.batch,
                   m.input_shapes.empty() ? "?" : shape_str(m.input_shapes[0]));
  s += fmt::format("  MACs      {:>14.3f} G   ({:.3f} G per image)\n", c.macs / 1e9,
                   c.macs / 1e9 / static_cast<double>(m.batch));
  s += fmt::format("  FLOPs     {:>14.3f} G   (2 x MACs + other arithmetic)\n", c.flops / 1e9);
  s += fmt::format("  bytes in  {:>14.3f} MB\n", c.bytes_in / 1e6);
  s += fmt::format("  bytes out {:>14.3f} MB\n", c.bytes_out / 1e6);
  s += fmt::format("  weights   {:>14.3f} MB\n", c.bytes_weights / 1e6);
  s += fmt::format("  AI        {:>14.1f} FLOP/B (aggregate: total FLOPs / total bytes)\n", m.ai);
  s += fmt::format("  params    {:>14.3f} M   ({} trainable parameters)\n", m.params / 1e6, m.params);
  if (!m.unknown_nodes.empty()) {
    s += fmt::format("  unknown ops ({}), not costed: {}\n", m.unknown_nodes.size(),
                     unknown_ops_summary(m.unknown_nodes));
  }
  if (!m.unresolved_nodes.empty())
    s += fmt::format("  {} nodes after unknown ops have no shapes and are not costed\n", m.unresolved_nodes.size());
  return s;
}

Table summary_table(const std::vector<ModelAnalysis>& models, bool for_csv) {
  Table t;
  if (for_csv) {
    t.headers = {"model",        "dtype",         "batch",
                 "layers",       "macs",          "flops",
                 "bytes_in (B)", "bytes_out (B)", "bytes_weights (B)",
                 "ai (FLOP/B)",  "params",        "unknown_ops"};
  } else {
    t.headers = {"model",   "dtype",    "batch",        "layers",      "GMACs",      "GFLOPs",
                 "in (MB)", "out (MB)", "weights (MB)", "AI (FLOP/B)", "params (M)", "unknown ops"};
    t.numeric = {false, false, true, true, true, true, true, true, true, true, true, true};
  }
  for (const ModelAnalysis& m : models) {
    const auto& c = m.totals;
    if (for_csv)
      t.rows.push_back({m.model, std::string(dtype_name(m.dtype)), std::to_string(m.batch),
                        std::to_string(m.layers.size()), std::to_string(c.macs), std::to_string(c.flops),
                        std::to_string(c.bytes_in), std::to_string(c.bytes_out), std::to_string(c.bytes_weights),
                        fmt_fixed(m.ai, 3), std::to_string(m.params), std::to_string(m.unknown_nodes.size())});
    else
      t.rows.push_back(
          {m.model, std::string(dtype_name(m.dtype)), std::to_string(m.batch), std::to_string(m.layers.size()),
           fmt_scaled(static_cast<double>(c.macs), 1e9, 3), fmt_scaled(static_cast<double>(c.flops), 1e9, 3),
           fmt_scaled(static_cast<double>(c.bytes_in), 1e6, 2), fmt_scaled(static_cast<double>(c.bytes_out), 1e6, 2),
           fmt_scaled(static_cast<double>(c.bytes_weights), 1e6, 2), fmt_fixed(m.ai, 1),
           fmt_scaled(static_cast<double>(m.params), 1e6, 3), std::to_string(m.unknown_nodes.size())});
  }
  return t;
}

namespace {

void write_shapes(JsonWriter& w, const std::vector<Shape>& shapes) {
  w.begin_array();
  for (const auto& s : shapes) w.ints(s);
  w.end_array();
}

void write_one(JsonWriter& w, const ModelAnalysis& m, bool with_layers) {
  const auto& c = m.totals;
  w.begin_object();
  w.field("schema", kAnalyzeSchema).field("model", m.model).field("dtype", dtype_name(m.dtype));
  w.field("batch", m.batch).field("fused", m.fused).field("opset", m.opset);
  w.key("input_shapes");
  write_shapes(w, m.input_shapes);
  w.key("units").begin_object();
  w.field("macs", "multiply-accumulates").field("flops", "floating-point operations (2 per MAC)");
  w.field("bytes", "bytes").field("ai", "FLOP per byte");
  w.end_object();
  w.key("totals").begin_object();
  w.field("macs", c.macs).field("flops", c.flops).field("params", m.params);
  w.field("bytes_in", c.bytes_in).field("bytes_out", c.bytes_out).field("bytes_weights", c.bytes_weights);
  w.field("ai", m.ai).field("layers", static_cast<int64_t>(m.layers.size()));
  w.end_object();
  w.key("unknown_nodes").begin_array();
  for (const auto& u : m.unknown_nodes) w.value(u);
  w.end_array();
  w.key("unresolved_nodes").begin_array();
  for (const auto& u : m.unresolved_nodes) w.value(u);
  w.end_array();
  w.field("folded_nodes", m.folded_nodes);
  if (with_layers) {
    w.key("layers").begin_array();
    for (const LayerReport& r : m.layers) {
      w.begin_object();
      w.field("name", r.name).field("op", r.op).field("desc", r.desc).field("status", status_name(r.status));
      w.key("input_shapes");
      write_shapes(w, r.in_shapes);
      w.key("output_shapes");
      write_shapes(w, r.out_shapes);
      w.key("weight_shapes");
      write_shapes(w, r.weight_shapes);
      w.field("macs", r.cost.macs).field("flops", r.cost.flops).field("bytes_in", r.cost.bytes_in);
      w.field("bytes_out", r.cost.bytes_out).field("bytes_weights", r.cost.bytes_weights);
      w.field("ai", r.ai).field("flops_share", r.flops_share);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
}

}  // namespace

std::string analyze_json_part(const ModelAnalysis& m, bool as_list, bool with_layers) {
  std::string out;
  out.reserve(4096 + m.layers.size() * 1024);  // about 800 bytes per layer
  JsonWriter w(&out);
  if (!as_list) {
    write_one(w, m, with_layers);
    return out;
  }
  // As the first element of a list, less the list's '[': "\n  {...\n  }".
  w.resume_array();
  write_one(w, m, with_layers);
  return out;
}

std::string analyze_json_join(const std::vector<std::string>& parts, bool as_list) {
  size_t size = 4;
  for (const auto& p : parts) size += p.size() + 1;
  std::string out;
  out.reserve(size);
  if (as_list) out.push_back('[');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (as_list && i > 0) out.push_back(',');
    out += parts[i];
  }
  if (as_list) out += parts.empty() ? "]\n" : "\n]\n";
  return out;
}

std::string analyze_json(const std::vector<ModelAnalysis>& models, bool as_list, bool with_layers) {
  std::vector<std::string> parts;
  parts.reserve(models.size());
  for (const auto& m : models) parts.push_back(analyze_json_part(m, as_list, with_layers));
  return analyze_json_join(parts, as_list);
}

}  // namespace rooflens::report
