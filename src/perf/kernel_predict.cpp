// Prediction from a measured kernel table (see kernel_predict.h).
#include "rooflens/perf/kernel_predict.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "rooflens/perf/layer_model.h"
#include "rooflens/util/least_squares.h"

namespace rooflens {
namespace {

double log_pos(double v) { return std::log(std::max(v, 1.0)); }

int64_t numel(const Shape& s) { return checked_numel(s).value_or(0); }

int64_t window_of(const Node& n, const Shape& in) {
  if (n.kind == OpKind::kGlobalAveragePool || n.kind == OpKind::kGlobalMaxPool || n.kind == OpKind::kReduceMean) {
    int64_t w = 1;
    for (size_t i = 2; i < in.size(); ++i) w *= in[i];
    return w;
  }
  const auto* win = std::get_if<WindowDesc>(&n.desc);
  if (win == nullptr) return 1;
  int64_t w = 1;
  for (int64_t k : win->kernel) w *= k;
  return w;
}

// log(cols / cols rounded up to a multiple of `lanes`): oneDNN's convolutions block output
// channels (per group) by the vector width, so 24 channels on AVX-512 take the time of 32
// (measured: the conv fit's held-out median error 15% -> 6% with it, docs/perf-model.md).
double cols_fill(int64_t cols, int lanes) {
  if (lanes <= 0 || cols <= 0) return 0;
  const int64_t padded = (cols + lanes - 1) / lanes * lanes;
  return std::log(static_cast<double>(cols) / static_cast<double>(padded));
}

bool is_activation(const Value& v) { return !v.is_stored && !v.ints && !v.reals && v.shape.has_value(); }

// A fused binary op (after the anchor) that reads a full-size activation from outside the
// layer: a residual connection the primitive reads as a post-op.
bool has_residual(const Graph& g, const LayerReport& r) {
  std::set<NodeId> in_layer(r.nodes.begin(), r.nodes.end());
  for (size_t i = 1; i < r.nodes.size(); ++i) {
    const Node& n = g.node(r.nodes[i]);
    if (n.kind != OpKind::kAdd && n.kind != OpKind::kMul && n.kind != OpKind::kSub) continue;
    if (n.outputs.empty() || !g.value(n.outputs[0]).shape) continue;
    const Shape& ys = *g.value(n.outputs[0]).shape;
    for (ValueId in : n.inputs) {
      if (in == kNoValue) continue;
      const Value& v = g.value(in);
      if (!is_activation(v) || (v.producer >= 0 && in_layer.count(v.producer))) continue;
      if (*v.shape == ys) return true;
    }
  }
  return false;
}

// A Transpose that keeps dim 0 and the last two dims in place, or a Slice/Split whose
// outputs differ from the input in dim 1 only: the backend runs these on channels-last
// input without converting it.
bool moves_channels_only(const Graph& g, const Node& n) {
  if (!g.value(n.inputs[0]).shape) return false;
  const Shape& x = *g.value(n.inputs[0]).shape;
  if (x.size() < 4) return false;
  if (n.kind == OpKind::kTranspose) {
    const auto* td = std::get_if<TransposeDesc>(&n.desc);
    const std::vector<int64_t>* perm = td ? &td->perm : nullptr;
    const auto r = static_cast<int64_t>(x.size());
    return perm && perm->size() == x.size() && (*perm)[0] == 0 && (*perm)[x.size() - 1] == r - 1 &&
           (*perm)[x.size() - 2] == r - 2;
  }
  for (ValueId o : n.outputs) {
    if (o == kNoValue || !g.value(o).shape || g.value(o).shape->size() != x.size()) return false;
    const Shape& y = *g.value(o).shape;
    for (size_t d = 0; d < x.size(); ++d)
      if (d != 1 && y[d] != x[d]) return false;
  }
  return true;
}

// A fused activation that evaluates exp, tanh or erf.
double transcendental(const Graph& g, const LayerReport& r) {
  for (size_t i = 1; i < r.nodes.size(); ++i) {
    const OpKind k = g.node(r.nodes[i]).kind;
    if (k == OpKind::kSigmoid || k == OpKind::kTanh || k == OpKind::kErf || k == OpKind::kGelu) return 1;
  }
  return 0;
}

// A fused attention layer (passes/fuse.h rule 4): its score matrices are Q.K^T's output,
// [..., q, kv], d is that product's K; score_ops counts the pointwise ops on the scores.
std::optional<LayerKernel> attention_kernel(const Graph& g, const LayerReport& r) {
  const Node& qk = g.node(r.nodes.front());
  const GemmShape gs = gemm_shape(g, qk);
  if (!gs.valid || qk.outputs.empty() || !g.value(qk.outputs[0]).shape) return std::nullopt;
  const Shape& y = *g.value(qk.outputs[0]).shape;
  if (y.size() < 2) return std::nullopt;
  const double q = static_cast<double>(y[y.size() - 2]), kv = static_cast<double>(y.back());
  const double matrices = static_cast<double>(numel(y)) / std::max(1.0, q * kv);
  double score_ops = 0;
  for (size_t i = 1; i < r.nodes.size(); ++i) {  // Softmax (reduce), A.V (linear) and views are not counted
    const OpKind kind = g.node(r.nodes[i]).kind;
    if (kind == OpKind::kUnknown) continue;
    const OpCategory c = op_info(kind).category;
    if (c == OpCategory::kElementwise || c == OpCategory::kActivation) ++score_ops;
  }
  LayerKernel k;
  k.cls = "attention";
  k.x = {log_pos(matrices), log_pos(q), log_pos(kv), log_pos(static_cast<double>(gs.k)), score_ops};
  k.fallback_cls = "gemm";
  k.fallback_x = {log_pos(static_cast<double>(gs.rows) * static_cast<double>(gs.groups)),
                  log_pos(static_cast<double>(gs.cols)), log_pos(static_cast<double>(gs.k)), 0.0};
  return k;
}

// Whether a convolution's windows overlap (a stride below the kernel on some axis): the stems
// the probe samples do (3x3 and 7x7 stride 2, 11x11 stride 4); a patch embedding (ViT's 16x16
// or 32x32 stride-equal kernel, ConvNeXt's and Swin's 4x4) does not, and the stem fit
// extrapolated to its K put ViT-B/32's at 38x its measured time on a Zen 3 host (docs/
// performance.md, issue 30, twenty-fifth pass); it is timed as a conv instead.
bool windows_overlap(const Node& conv) {
  const auto* w = std::get_if<WindowDesc>(&conv.desc);
  if (!w) return true;
  for (size_t i = 0; i < w->rank() && i < w->strides.size(); ++i)
    if (w->strides[i] < w->kernel[i]) return true;
  return false;
}

}  // namespace

std::optional<LayerKernel> classify_layer(const Graph& g, const LayerReport& r, int simd_lanes) {
  if (r.status != LayerStatus::kOk || r.nodes.empty()) return std::nullopt;
  if (r.cost.flops == 0 && r.cost.bytes_in == 0 && r.cost.bytes_out == 0) return std::nullopt;
  const Node& a = g.node(r.nodes.front());
  const double bytes = static_cast<double>(r.cost.bytes_in + r.cost.bytes_out);
  double out_elems = 0;
  for (const auto& s : r.out_shapes) out_elems += static_cast<double>(numel(s));
  const double in_elems = r.in_shapes.empty() ? 0 : static_cast<double>(numel(r.in_shapes.front()));
  if (r.attention) return attention_kernel(g, r);
  LayerKernel k;
  if (a.kind == OpKind::kConv || a.kind == OpKind::kGemm || a.kind == OpKind::kMatMul) {
    const GemmShape gs = gemm_shape(g, a);
    if (!gs.valid) return std::nullopt;
    if (gs.depthwise) {
      const Shape& w = *g.value(a.inputs[1]).shape;
      int64_t window = 1;
      for (size_t i = 2; i < w.size(); ++i) window *= w[i];
      k.cls = "depthwise";
      k.x = {log_pos(out_elems), log_pos(in_elems), log_pos(static_cast<double>(window)), transcendental(g, r)};
      return k;
    }
    const double rows = static_cast<double>(gs.rows) * static_cast<double>(gs.groups);
    const double resid = has_residual(g, r) ? 1 : 0;
    if (a.kind == OpKind::kConv) {
      const Shape& w = *g.value(a.inputs[1]).shape;
      int64_t window = 1;
      for (size_t i = 2; i < w.size(); ++i) window *= w[i];
      k.cls = window == 1 ? "pointwise" : "conv";
      const double log_k = log_pos(static_cast<double>(gs.k)), tr = transcendental(g, r);
      k.x = {log_pos(rows), log_pos(static_cast<double>(gs.cols)), log_k, resid, tr, cols_fill(gs.cols, simd_lanes)};
      if (window > 1) k.x.push_back(gs.groups > 1 ? 1 : 0);  // conv's "grouped"
      k.x.push_back(tr * log_k);                             // "transcendental_log_k"
      if (window > 1 && gs.groups == 1 && w[1] <= kStemMaxChannels && windows_overlap(a)) {
        // A stem: oneDNN runs it on a kernel of its own, whose time hardly follows the output
        // channels; older tables (no stem class) time it as a conv.
        k.fallback_cls = "conv";
        k.fallback_x = k.x;
        k.cls = "stem";
        k.x = {log_pos(rows), log_pos(static_cast<double>(gs.cols)), log_k, tr};
      }
    } else {
      const bool skinny = gs.rows <= kSkinnyGemmRows;
      k.cls = skinny ? "gemm_skinny" : "gemm";
      k.x = {log_pos(rows), log_pos(static_cast<double>(gs.cols)), log_pos(static_cast<double>(gs.k))};
      if (skinny) {
        k.fallback_cls = "gemm";
        k.fallback_x = k.x;
        k.fallback_x.push_back(transcendental(g, r));
      } else {
        k.x.push_back(transcendental(g, r));  // gemm's "transcendental" (GELU after ConvNeXt's and ViT's fc1)
      }
    }
    return k;
  }
  const OpCategory cat = a.kind == OpKind::kUnknown ? OpCategory::kMeta : op_info(a.kind).category;
  if (cat == OpCategory::kPool || a.kind == OpKind::kReduceMean) {
    const Shape in = r.in_shapes.empty() ? Shape{} : r.in_shapes.front();
    k.cls = "pool";
    const bool max = a.kind == OpKind::kMaxPool || a.kind == OpKind::kGlobalMaxPool;
    k.x = {log_pos(out_elems), log_pos(in_elems), log_pos(static_cast<double>(window_of(a, in))), max ? 1.0 : 0.0};
    return k;
  }
  if (cat == OpCategory::kMove) {
    k.cls = "move";
    k.x = {log_pos(bytes), a.kind == OpKind::kTranspose ? 1.0 : 0.0};
    return k;
  }
  int activation_inputs = 0;
  for (ValueId in : a.inputs)
    if (in != kNoValue && is_activation(g.value(in))) ++activation_inputs;
  k.cls = "eltwise";
  k.x = {log_pos(bytes), activation_inputs >= 2 ? 1.0 : 0.0};
  return k;
}

namespace {

// A pooling layer whose output has one pixel per channel (global pooling, a spatial mean).
bool leaves_one_pixel(const LayerReport& r) {
  if (r.out_shapes.empty() || r.in_shapes.empty()) return false;
  const Shape& y = r.out_shapes.front();
  const Shape& x = r.in_shapes.front();
  if (x.size() != 4) return false;
  int64_t pixels = 1;
  for (size_t i = 2; i < y.size(); ++i) pixels *= y[i];
  return y.size() <= 2 || pixels == 1;
}

}  // namespace

LevelKey level_key(const Graph& g, const LayerReport& r, const LayerKernel& k) {
  const OpKind first = g.node(r.nodes.front()).kind;
  if (k.cls == "move") return {first == OpKind::kConcat ? k.cls : kCopyLevelClass, 0};
  if (k.cls == "pool") return {leaves_one_pixel(r) ? kGlobalPoolLevelClass : k.cls, 0};
  if (k.cls == "eltwise") return {first == OpKind::kBatchNormalization ? kNormLevelClass : k.cls, 0};
  if (k.cls != "conv" && k.cls != "pointwise") return {k.cls, 0};
  const auto& f = kernel_class_features().at("conv");
  const auto grouped = std::find(f.begin(), f.end(), "grouped") - f.begin();
  if (k.cls == "conv" && static_cast<size_t>(grouped) < k.x.size() && k.x[grouped] == 1) {
    const Value& w = g.value(g.node(r.nodes.front()).inputs[1]);
    return {kGroupedLevelClass, w.shape && w.shape->size() > 1 ? static_cast<double>((*w.shape)[1]) : 0};
  }
  if (r.out_shapes.empty() || r.out_shapes.front().size() != 4) return {k.cls, 0};
  const Shape& y = r.out_shapes.front();
  return {k.cls, std::sqrt(static_cast<double>(y[2]) * static_cast<double>(y[3]))};
}

LayerKernel timed_kernel(const std::map<std::string, KernelFit>& fits, const LayerKernel& k) {
  if (fits.count(k.cls) || k.fallback_cls.empty()) return k;
  return LayerKernel{k.fallback_cls, k.fallback_x, {}, {}};
}

std::vector<double> reorder_features(int64_t bytes, bool to_rowmajor) {
  return {log_pos(static_cast<double>(bytes)), to_rowmajor ? 1.0 : 0.0};
}

namespace {

// A Pad that leaves its input's layout as it is on the oneDNN backend (onednn_backend.h): one
// whose pads are all 0 (an alias), or a constant pad of a 4-D tensor (channels-last stays so).
bool keeps_layout(const Node& pad, const LayerReport& r) {
  if (r.in_shapes.empty() || r.out_shapes.empty()) return false;
  if (r.in_shapes.front() == r.out_shapes.front()) return true;
  const auto* d = std::get_if<PadDesc>(&pad.desc);
  return d && d->mode == PadMode::kConstant && r.in_shapes.front().size() == 4;
}

}  // namespace

// The layout policy of the oneDNN backend, as src/exec/onednn/ implements it: convolutions
// read and write channels-last (acdb); concat writes channels-last and reads its inputs in
// it; pooling, eltwise and binary ops, and constant pads (keeps_layout), keep their (first)
// input's layout; matrix products, other copies (transpose, slice, split, other pads),
// softmax, normalisation and views read row-major; graph inputs are row-major; outputs are
// converted to row-major at the end.
std::vector<std::vector<LayoutConversion>> layout_conversions(const Graph& g, const ModelAnalysis& m) {
  enum Layout { kRowMajor, kChannelsLast };
  std::map<ValueId, Layout> layout;
  std::set<std::pair<ValueId, int>> converted;
  std::vector<std::vector<LayoutConversion>> out(m.layers.size());
  auto bytes_of = [&](ValueId v) {
    const Value& val = g.value(v);
    return val.shape ? numel(*val.shape) * (dtype_is_float(val.dtype) ? dtype_bytes(m.dtype) : dtype_bytes(val.dtype))
                     : 0;
  };
  auto four_d = [&](ValueId v) { return g.value(v).shape && g.value(v).shape->size() == 4; };
  auto is_view = [&](const Node& n) { return is_view_op(n.kind); };
  // The layout a value is held in (views alias their source in row-major order).
  std::function<Layout(ValueId, size_t)> held = [&](ValueId v, size_t at) -> Layout {
    auto it = layout.find(v);
    if (it != layout.end()) return it->second;
    const Value& val = g.value(v);
    if (val.producer >= 0 && is_view(g.node(val.producer)) && !g.node(val.producer).inputs.empty()) {
      const Node& vn = g.node(val.producer);
      const ValueId src = vn.inputs[0];
      const Layout hs = held(src, at);
      // A Reshape of a channels-last tensor that only splits or merges channels (ShuffleNet)
      // stays a channels-last view; one to [N, C] of an [N, C, 1, 1] is a free alias.
      if (hs == kChannelsLast && vn.kind == OpKind::kReshape && g.value(src).shape && val.shape) {
        const Shape& a = *g.value(src).shape;
        const Shape& b = *val.shape;
        const bool channels_only = a.size() >= 4 && b.size() >= 4 && a[0] == b[0] &&
                                   a[a.size() - 1] == b[b.size() - 1] && a[a.size() - 2] == b[b.size() - 2];
        if (channels_only) return layout[v] = kChannelsLast;
        if (a.size() == 4 && a[2] * a[3] == 1) return layout[v] = kRowMajor;
      }
      if (hs == kChannelsLast && four_d(src) && converted.insert({src, kRowMajor}).second)
        out[at].push_back({bytes_of(src), true});
      return layout[v] = kRowMajor;
    }
    return kRowMajor;  // graph inputs, stored values
  };
  auto want = [&](ValueId v, Layout l, size_t at) {
    if (v == kNoValue || !is_activation(g.value(v))) return;
    const Layout h = held(v, at);
    if (h == l || !four_d(v)) return;
    if (converted.insert({v, l}).second) out[at].push_back({bytes_of(v), l == kRowMajor});
  };
  for (size_t i = 0; i < m.layers.size(); ++i) {
    const LayerReport& r = m.layers[i];
    if (r.nodes.empty()) continue;
    std::set<NodeId> in_layer(r.nodes.begin(), r.nodes.end());
    const Node& a = g.node(r.nodes.front());
    const OpCategory cat = a.kind == OpKind::kUnknown ? OpCategory::kMeta : op_info(a.kind).category;
    Layout result = kRowMajor;
    if (a.kind == OpKind::kConv) {
      want(a.inputs[0], kChannelsLast, i);
      result = kChannelsLast;
      // Full-size fused operands are read in the output's layout, broadcast ones row-major.
      for (size_t j = 1; j < r.nodes.size(); ++j)
        for (ValueId in : g.node(r.nodes[j]).inputs) {
          if (in == kNoValue || !is_activation(g.value(in))) continue;
          if (g.value(in).producer >= 0 && in_layer.count(g.value(in).producer)) continue;
          const Node& n = g.node(r.nodes[j]);
          const bool full =
              !n.outputs.empty() && g.value(n.outputs[0]).shape && *g.value(in).shape == *g.value(n.outputs[0]).shape;
          want(in, full ? kChannelsLast : kRowMajor, i);
        }
    } else if ((a.kind == OpKind::kTranspose || a.kind == OpKind::kSlice || a.kind == OpKind::kSplit) &&
               !a.inputs.empty() && held(a.inputs[0], i) == kChannelsLast && moves_channels_only(g, a)) {
      result = kChannelsLast;  // channel shuffle, channel split/slice: host copies in channels-last
    } else if (a.kind == OpKind::kPad && !a.inputs.empty() && keeps_layout(a, r)) {
      result = held(a.inputs[0], i);  // onednn_backend.h: an alias, or a channels-last pad
    } else if (a.kind == OpKind::kConcat) {
      for (ValueId in : a.inputs) want(in, kChannelsLast, i);
      result = kChannelsLast;
    } else if (cat == OpCategory::kPool || cat == OpCategory::kActivation || cat == OpCategory::kElementwise ||
               a.kind == OpKind::kBatchNormalization) {
      if (!a.inputs.empty() && a.inputs[0] != kNoValue) result = held(a.inputs[0], i);
      if (cat == OpCategory::kElementwise && a.inputs.size() > 1) {
        // The operand of the output's shape sets the layout; the other follows it when full-size.
        ValueId first = a.inputs[0], second = a.inputs[1];
        const Shape* ys =
            a.outputs.empty() ? nullptr : (g.value(a.outputs[0]).shape ? &*g.value(a.outputs[0]).shape : nullptr);
        if (ys && g.value(first).shape && *g.value(first).shape != *ys) std::swap(first, second);
        result = held(first, i);
        if (second != kNoValue && is_activation(g.value(second)))
          want(second, ys && g.value(second).shape && *g.value(second).shape == *ys ? result : kRowMajor, i);
      }
    } else {
      // Matrix products, copies, reductions, normalisation and the rest read row-major.
      for (ValueId in : a.inputs) want(in, kRowMajor, i);
      if (a.kind == OpKind::kReduceMean) result = kRowMajor;
    }
    for (NodeId n : r.nodes)
      for (ValueId o : g.node(n).outputs)
        if (o != kNoValue) layout[o] = result;
  }
  if (!m.layers.empty())
    for (ValueId o : g.outputs) want(o, kRowMajor, m.layers.size() - 1);
  return out;
}

std::optional<double> table_layer_seconds(const KernelTable& t, const std::map<std::string, KernelFit>& fits,
                                          const LayerKernel& k, const std::vector<LayoutConversion>& conversions) {
  const LayerKernel use = timed_kernel(fits, k);
  auto it = fits.find(use.cls);
  if (it == fits.end()) return std::nullopt;
  return t.dispatch_s + it->second.kernel_seconds(use.x) + conversions_seconds(t, conversions);
}

double conversions_seconds(const KernelTable& t, const std::vector<LayoutConversion>& conversions) {
  double s = 0;
  auto ro = t.classes.find("reorder");
  for (const auto& c : conversions) {
    s += t.dispatch_s;
    if (ro != t.classes.end()) s += ro->second.kernel_seconds(reorder_features(c.bytes, c.to_rowmajor));
  }
  return s;
}

namespace {

// Least squares of log(work time) on [1, x], work time = the measurement less the dispatch
// and the fixed cost. Each sample is weighted by (work / measurement)^2: an error e in log
// work is an error of about e * work / measurement in log time, so this is the time-space
// fit linearised, and a sample that is almost all overhead says little about the power
// law. When fewer than p samples have work left, every sample counts alike with its work
// floored at a quarter of the measurement.
Expected<std::vector<double>> fit_log_linear(const std::string& cls, const std::vector<KernelSample>& samples, size_t p,
                                             double overhead_s) {
  size_t informative = 0;
  for (const auto& s : samples) informative += s.seconds - overhead_s > 0.01 * s.seconds;
  const bool plain = informative < p;
  NormalEquations ne(p);
  for (const auto& s : samples) {
    const double share = (s.seconds - overhead_s) / s.seconds;
    if (!plain && share <= 0.01) continue;
    const double w = plain ? 1.0 : share * share;
    const double y = std::log(std::max(s.seconds - overhead_s, 0.25 * s.seconds));
    std::vector<double> row(p, 1.0);
    for (size_t j = 0; j + 1 < p; ++j) row[j + 1] = s.x[j];
    ne.add(row, y, w);
  }
  const double ridge = 1e-8 * static_cast<double>(samples.size());
  for (size_t r = 1; r < p; ++r) ne.add_ridge(r, ridge);
  auto coef = ne.solve();
  if (!coef) return Status::invalid("kernel class '" + cls + "': singular fit");
  return std::move(*coef);
}

}  // namespace

Expected<KernelFit> fit_kernel_class(const std::string& cls, const std::vector<KernelSample>& samples,
                                     double dispatch_s) {
  auto feats = kernel_class_features().find(cls);
  if (feats == kernel_class_features().end()) return Status::invalid("unknown kernel class '" + cls + "'");
  const size_t p = feats->second.size() + 1;
  if (samples.size() < p)
    return Status::invalid("kernel class '" + cls + "': " + std::to_string(samples.size()) +
                           " samples, need at least " + std::to_string(p));
  double smallest = std::numeric_limits<double>::infinity();
  for (const auto& s : samples) {
    if (s.x.size() + 1 != p) return Status::internal("kernel class '" + cls + "': sample with wrong feature count");
    if (!(s.seconds > 0) || !std::isfinite(s.seconds))
      return Status::invalid("kernel class '" + cls + "': a measured time is not positive");
    smallest = std::min(smallest, s.seconds - dispatch_s);
  }
  KernelFit f;
  f.features = feats->second;
  // The fixed cost per call (a parallel region's start and end, the stream's wait) is what
  // a power law cannot give small shapes: it is chosen, between 0 and the smallest sample's
  // work time, to minimise the squared log error of the whole fit (a grid, then a
  // ternary search between the best point's neighbours).
  auto fit_with = [&](double fixed) -> Expected<std::pair<double, std::vector<double>>> {
    auto coef = fit_log_linear(cls, samples, p, dispatch_s + fixed);
    if (!coef) return coef.status();
    KernelFit g;
    g.coef = *coef;
    g.fixed_s = fixed;
    double sse = 0;
    for (const auto& s : samples) {
      const double e = std::log((dispatch_s + g.kernel_seconds(s.x)) / s.seconds);
      sse += e * e;
    }
    return std::make_pair(sse, *coef);
  };
  const double top = smallest > 0 ? 0.999 * smallest : 0;
  constexpr int kGrid = 24;
  double best_fixed = 0, best_sse = std::numeric_limits<double>::infinity();
  std::vector<double> best_coef;
  int best_k = 0;
  for (int k = 0; k < (top > 0 ? kGrid : 1); ++k) {
    const double fixed = top * k / (kGrid - 1);
    auto r = fit_with(fixed);
    if (!r) return r.status();
    if (r->first < best_sse) best_sse = r->first, best_fixed = fixed, best_coef = r->second, best_k = k;
  }
  if (top > 0) {
    double lo = top * std::max(0, best_k - 1) / (kGrid - 1), hi = top * std::min(kGrid - 1, best_k + 1) / (kGrid - 1);
    for (int it = 0; it < 30; ++it) {
      const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
      auto r1 = fit_with(m1), r2 = fit_with(m2);
      if (!r1) return r1.status();
      if (!r2) return r2.status();
      if (r1->first < r2->first)
        hi = m2;
      else
        lo = m1;
      for (auto* r : {&*r1, &*r2})
        if (r->first < best_sse) best_sse = r->first, best_fixed = r == &*r1 ? m1 : m2, best_coef = r->second;
    }
  }
  f.coef = best_coef;
  f.fixed_s = best_fixed;
  f.samples = static_cast<int>(samples.size());
  std::vector<double> errs;
  for (const auto& s : samples) {
    errs.push_back(std::abs((dispatch_s + f.kernel_seconds(s.x)) / s.seconds - 1));
    for (size_t j = 0; j < s.x.size(); ++j) {
      auto [it, fresh] = f.range.try_emplace(f.features[j], s.x[j], s.x[j]);
      if (!fresh) it->second = {std::min(it->second.first, s.x[j]), std::max(it->second.second, s.x[j])};
    }
  }
  std::sort(errs.begin(), errs.end());
  f.median_abs_error = errs[errs.size() / 2];
  f.max_abs_error = errs.back();
  return f;
}

}  // namespace rooflens
