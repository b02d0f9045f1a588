// FoldedCNNs (Kosaian et al., ICML 2021) as a graph transform, and the channel-width
// rewriting machinery it shares with pad_channels (passes/pad_channels.h).
//
// Folding by a factor f turns a CNN that reads N images of C channels into one that reads
// N/f "folded" inputs of C*f channels (image j of a group takes channels [j*C, (j+1)*C)).
// Widths follow the public FoldedCNNs code (github.com/msr-fiddle/folded-cnns,
// models/game.py): every hidden conv / dense output width w becomes int(w * sqrt(f)),
// i.e. TRUNCATED (32 -> 45 at f=2, 55 at f=3, 64 at f=4); WidthRounding offers nearest
// and ceil as what-ifs. With align > 0 the result is then rounded UP to a multiple of
// align. The final classifier (each linear layer a graph output is reached from without
// passing another linear layer) outputs classes * f: the graph output holds classes * f
// scores per folded input, f rows of classes when reshaped. Depth, kernels, strides,
// pooling and resolution are unchanged.
//
// Throughput of a folded model counts images = folded inputs x f; its per-image FLOPs
// are its FLOPs at batch N/f divided by N.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "rooflens/ir/graph.h"

namespace rooflens {

enum class WidthRounding {
  kTruncate,  // int(w * sqrt(f)), as FoldedCNNs' models/game.py (the default)
  kNearest,   // round half up
  kCeil,
};

struct FoldedCnnOptions {
  int factor = 2;  // f >= 2 (1 is the identity and is rejected as invalid)
  int align = 0;   // 0: no alignment; else hidden widths are rounded up to a multiple of it
  WidthRounding rounding = WidthRounding::kTruncate;
};

// The width a hidden conv/dense output of `width` channels gets at fold factor f
// (before any group or align multiple).
int64_t folded_cnn_width(int64_t width, int factor, WidthRounding rounding);

// Folds `g`, which must be shape-inferred at batch N (its single graph input is
// [N, C, ...]), into a NEW graph at batch N/f, shape-inferred again; `g` is not changed.
// Resized initializers keep their names where only one node reads them and carry no data
// (as the bundled weight-stripped zoo: backends and export --weights random fill them);
// small per-channel constants with data (e.g. input normalization) repeat their values
// cyclically, which is exact for the input channels (each image gets the original ones).
// Errors: invalid (factor < 2, N not divisible by f, inconsistent widths meeting at an
// elementwise op); unsupported (an op fold cannot rewrite soundly, naming node and why).
Expected<Graph> folded_cnn(const Graph& g, const FoldedCnnOptions& o);

// The fold factor of a graph folded_cnn made (and `rooflens fold` exported, then imported
// again): folded_cnn names it "<name>_fold<f>"; 1 for any other graph. Throughput of such a
// graph counts folded inputs, each of f images.
int fold_factor_of(const Graph& g);

// ---- Shared machinery (folded_cnn and pad_channels are two rules over it) ----

struct WidthRule {
  // The graph input's new shape from its old one (invalid status to refuse).
  std::function<Expected<Shape>(const Shape& old_shape)> input_shape;
  // New output width of a conv/dense layer of old output width `width`. `classifier` is
  // true for final classifiers; `multiple` (>= 1) is a multiple the result must be (group
  // counts of the grouped convs it feeds); the rule rounds up to it.
  std::function<int64_t(int64_t width, bool classifier, int64_t multiple)> output_width;
  std::string what = "fold";  // names the transform in error messages
};

// Rewrites every conv/Gemm/MatMul-with-weights layer's widths by `rule` and propagates
// the new widths through the graph in topological order: each layer's input width follows
// the actual (new) width of its input tensor (so concatenations work); depthwise convs
// (group == input channels) keep group == new input channels and their channel multiplier;
// other grouped convs keep the group count (widths are rounded to a multiple of it, error if
// impossible); norm parameters, per-channel constants and LayerNorm scales follow their
// input; constant-target Reshapes are rewritten when the regrouping is sound (merging dims,
// or splitting a resized dim keeping its leading factors, as channel shuffle's group
// count); elementwise ops whose inputs end up with different widths are an error naming
// the node and both widths. `g` must be shape-inferred; it is not changed.
Expected<Graph> rewrite_widths(const Graph& g, const WidthRule& rule);

}  // namespace rooflens
