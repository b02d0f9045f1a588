// `rooflens fold`: the FoldedCNNs transform of an ONNX model, exported as a new ONNX file,
// with a before/after summary (per-image FLOPs, params, aggregate AI, layers changed).
#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "commands.h"
#include "common.h"
#include "loading.h"
#include "rooflens/onnx/export.h"
#include "rooflens/passes/folded_cnn.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/util/file.h"

namespace rooflens::cli {
namespace {

// A positive integer flag given as text, so that 1.5, -2 and 0x4 are refused with a clear line.
Expected<int64_t> parse_count(const std::string& flag, const std::string& text, int64_t min) {
  const bool digits = !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
  const int64_t v = digits ? std::stoll(text) : -1;
  if (!digits || v < min)
    return Status::invalid(flag + " '" + text + "': must be an integer >= " + std::to_string(min));
  return v;
}

std::string dims_without_batch(const Shape& s) { return s.size() > 1 ? shape_str(Shape(s.begin() + 1, s.end())) : ""; }

// Layers whose widths changed: compared after dropping the batch dim (which always changes).
int changed_layers(const ModelAnalysis& a, const ModelAnalysis& b) {
  int changed = 0;
  const size_t n = std::min(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& x = a.layers[i];
    const auto& y = b.layers[i];
    bool diff = x.weight_shapes != y.weight_shapes || x.out_shapes.size() != y.out_shapes.size();
    for (size_t k = 0; !diff && k < x.out_shapes.size(); ++k)
      diff = dims_without_batch(x.out_shapes[k]) != dims_without_batch(y.out_shapes[k]);
    changed += diff;
  }
  return changed + static_cast<int>(std::max(a.layers.size(), b.layers.size()) - n);
}

std::string summary(const std::string& model, const ModelAnalysis& a, const ModelAnalysis& b, int64_t factor,
                    int64_t images, DType dtype, const std::string& out, const std::string& weights) {
  const double img = static_cast<double>(images);
  const double fa = static_cast<double>(a.totals.flops) / img / 1e9,
               fb = static_cast<double>(b.totals.flops) / img / 1e9;
  auto pct = [](double x, double y) { return x > 0 ? fmt::format("{:+.1f}%", (y / x - 1) * 100) : std::string("-"); };
  auto shape0 = [](const std::vector<Shape>& v) { return v.empty() ? std::string("-") : shape_str(v[0]); };
  std::string s = fmt::format("fold {} by f={}: {} images = {} folded inputs, {}, engine fusion\n", model, factor,
                              images, images / factor, dtype_name(dtype));
  s += fmt::format("{:<26}{:>16}{:>16}{:>10}\n", "", "baseline", "folded", "change");
  s += fmt::format("{:<26}{:>16}{:>16}\n", "input", shape0(a.input_shapes), shape0(b.input_shapes));
  std::string oa =
      a.layers.empty() || a.layers.back().out_shapes.empty() ? "-" : shape_str(a.layers.back().out_shapes[0]);
  std::string ob =
      b.layers.empty() || b.layers.back().out_shapes.empty() ? "-" : shape_str(b.layers.back().out_shapes[0]);
  s += fmt::format("{:<26}{:>16}{:>16}\n", "output", oa, ob);
  s += fmt::format("{:<26}{:>16.4f}{:>16.4f}{:>10}\n", "GFLOP per image", fa, fb, pct(fa, fb));
  const double pa = static_cast<double>(a.params) / 1e6, pb = static_cast<double>(b.params) / 1e6;
  s += fmt::format("{:<26}{:>16.3f}{:>16.3f}{:>10}\n", "params (M)", pa, pb, pct(pa, pb));
  s += fmt::format("{:<26}{:>16.1f}{:>16.1f}{:>10}\n", "aggregate AI (FLOP/B)", a.ai, b.ai, pct(a.ai, b.ai));
  s += fmt::format("{:<26}{:>16}{:>16}\n", "fused layers", a.layers.size(), b.layers.size());
  s += fmt::format("layers whose widths changed: {} of {}\n", changed_layers(a, b), b.layers.size());
  s += fmt::format("throughput of the folded model counts images = folded inputs x {}\n", factor);
  s += fmt::format("wrote {} (weights {})\n", out, weights);
  return s;
}

}  // namespace

void add_fold(CLI::App& app, FoldArgs& a) {
  auto* cmd = app.add_subcommand("fold",
                                 "FoldedCNNs transform: N images of C channels -> N/f inputs of C*f channels, "
                                 "widths x sqrt(f); writes the folded ONNX model");
  cmd->add_option("model", a.model, "ONNX model file")->required();
  cmd->add_option("--factor", a.factor, "fold factor f, an integer >= 2")->required();
  cmd->add_option("--align", a.align, "round hidden widths up to a multiple of this (0: no rounding)")
      ->capture_default_str();
  cmd->add_option("--batch", a.batch,
                  "images per run, divisible by the factor (default: the factor, one folded input)");
  cmd->add_option("--dtype", a.dtype, "precision for the summary's bytes: fp32, fp16, bf16, int8, fp8")
      ->capture_default_str();
  cmd->add_option("--weights", a.weights, "stripped (external data in a missing file, as the zoo) or random")
      ->capture_default_str();
  cmd->add_option("-o,--output", a.output, "folded ONNX file to write (not the input model: it is never overwritten)")
      ->required();
}

int run_fold(const FoldArgs& a) {
  if (Status s = check_output_file(a.output, {a.model}, "-o"); !s) return report_error(s);
  auto factor = parse_count("--factor", a.factor, 2);
  if (!factor) return report_error(factor.status());
  auto align = parse_count("--align", a.align, 0);
  if (!align) return report_error(align.status());
  int64_t batch = *factor;
  if (!a.batch.empty()) {
    auto b = parse_count("--batch", a.batch, 1);
    if (!b) return report_error(b.status());
    batch = *b;
  }
  if (batch % *factor != 0)
    return report_error(Status::invalid("--batch " + std::to_string(batch) + " is not divisible by --factor " +
                                        std::to_string(*factor)));
  auto dt = parse_dtype_arg("--dtype", a.dtype);
  if (!dt) return report_error(dt.status());
  ExportOptions eo;
  if (a.weights == "random")
    eo.weights = ExportWeights::kRandom;
  else if (a.weights != "stripped")
    return report_error(Status::invalid("--weights '" + a.weights + "': expected stripped or random"));

  auto loaded = load_model(a.model, {}, *dt, batch);
  if (!loaded) return report_error(loaded.status());
  FoldedCnnOptions fo;
  fo.factor = static_cast<int>(*factor);
  fo.align = static_cast<int>(*align);
  auto folded = folded_cnn(loaded->graph, fo);
  if (!folded) return report_error(folded.status().with_context(a.model));
  auto inferred = infer_shapes(*folded);
  if (!inferred) return report_error(inferred.status().with_context("folded " + a.model));
  AnalyzeOptions ao;
  ao.cost.dtype = *dt;
  ModelAnalysis after = analyze_graph(*folded, *inferred, ao);
  Status w = export_onnx_file(*folded, a.output, eo);
  if (!w) return report_error(w);
  const std::string model = std::filesystem::path(a.model).stem().string();
  std::string text = summary(model, loaded->analysis, after, *factor, batch, *dt, a.output, a.weights);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace rooflens::cli
