// oneDNN backend internals: lowers the fused IR to oneDNN primitives. Layouts are chosen
// by oneDNN (`any`) for weights; 4-D activations produced by oneDNN stay channels-last
// (acdb) between layers (or, in layers marked blocked, nChw16c where a conv's channels
// allow it: every layer with ActivationLayout::kBlocked, the layers layout_choice.cpp picks
// with kAuto), other tensors row-major; fused activations and residual adds
// become post-ops; weights (with BatchNormalization folded in) are reordered once in
// prepare, outside the timed runs.
// Tactic selection (tactics.h, ExecOptions::tune): each conv and inner product is timed in
// prepare with every non-reference implementation oneDNN lists, with and without its last
// eltwise post-op split off into an in-place pass, and the fastest is kept; the choice is
// cached on disk per machine (tactic_cache.h), so a model's later prepares take no timing.
// Buffers (ExecOptions::reuse_buffers): every buffer a run writes is made by new_buffer and
// every step names the memories it touches; at the end of prepare the touched buffers move
// into one arena where buffers whose step ranges do not overlap share bytes
// (exec/buffer_plan.h), and each memory object pointing into one (views included) is
// pointed at its new place. Weights and stored values keep their own allocations.
// Views and data movement (movement_nodes.cpp, mem()):
//  - A Reshape aliases its input without a copy when PyTorch's view rule allows it on the
//    input's plain strided layout and the result is row-major or acdb; a result in another
//    strided layout is kept only when every consumer is a Transpose. Otherwise (and for
//    Flatten, Squeeze, Unsqueeze, ...) the input is reordered to row-major first.
//  - Channel shuffle (acdb -> Reshape [N,G,C/G,H,W] -> Transpose perm 0,2,1,3,4 -> Reshape
//    [N,C,H,W]) is one host pass writing acdb; any other Transpose with dims 0 and the last
//    two fixed reads its input's layout and writes the split-channels-last layout; other
//    Transposes read and write row-major.
//  - A Pad whose pads are all 0, and a Concat of one input, alias the input (no step); a
//    constant Pad of a channels-last 4-D input writes channels-last, other Pads row-major.
//  - Concat is one host pass: per index of the dimensions outside its axis in memory, each
//    input's contiguous run in turn (along channels of channels-last tensors: per pixel, each
//    input's channels); only blocked inputs of whole 16-channel blocks take oneDNN's concat.
//  - A standalone BatchNormalization followed by a ReLU that only it feeds is one pass
//    (fuse_norm_relu), as in DenseNet's pre-activation. When such a pair is the only reader
//    of a channel Concat (ir/patterns.h), the concat's host pass applies it while copying
//    and the pair's layer adds no step.
//  - Slice/Split of channels only (axis 1) from an acdb input writes acdb (host copy of a
//    contiguous run per pixel); other slices read and write row-major.
// In-place residual: a linear layer's Add of a full-shape operand becomes oneDNN's `sum`
// post-op, accumulating into the operand's own buffer, when nothing reads that operand
// afterwards (every consumer is in this layer or an earlier one, none is a view, it is no
// graph input or output, its buffer is no view of another value, and every other value
// sharing the buffer, such as a one-input Concat's output, is read by then too). Otherwise it is a
// binary post-op, which oneDNN 2.6 serves only with slower kernels (jit_1x1 for 1x1 convs).
#pragma once

#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "rooflens/exec/backend.h"

namespace rooflens::onednn {

using Step = std::function<void(dnnl::stream&)>;

struct LayerPlan {
  std::string name;
  std::vector<Step> steps;
  std::vector<std::string> impls;  // implementation of each primitive (oneDNN's impl_info_str)
  double last_time_s = 0;
};

class OneDnnBackend final : public Backend {
 public:
  OneDnnBackend();
  std::string name() const override { return "onednn"; }
  // Each instance has its own engine, stream and buffers; oneDNN keeps its scratchpad per
  // calling thread, so instances run side by side on threads of their own.
  std::unique_ptr<Backend> fresh() const override;
  bool supports(const Graph& g, NodeId n, std::string* reason) const override;
  Status prepare(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o) override;
  Status run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) override;
  std::vector<LayerTiming> layer_timings() const override;

  // Used by the op builders (onednn_ops.cpp).
  dnnl::engine& engine() { return eng_; }
  const Graph& graph() const { return *g_; }
  LayerPlan& current() { return plans_.back(); }
  // The memory holding a value (activations as produced; stored values row-major).
  Expected<dnnl::memory> mem(ValueId v);
  // The value in row-major layout (adds a reorder step if needed).
  Expected<dnnl::memory> rowmajor(ValueId v);
  // The value in a given layout (adds a reorder step if needed).
  Expected<dnnl::memory> as_desc(ValueId v, const dnnl::memory::desc& md);
  void set_mem(ValueId v, dnnl::memory m) { mem_[v] = std::move(m); }
  // A step of the current layer. `touched` names every memory the step reads or writes:
  // the buffers' lifetimes, and so which of them may share bytes, come from these lists.
  void add_step(Step s, std::string impl, const std::vector<dnnl::memory>& touched);
  // A primitive run with `args` (every argument counts as touched).
  void add_primitive(const dnnl::primitive& p, const std::unordered_map<int, dnnl::memory>& args, std::string impl);
  // A oneDNN reorder of `from` into `to` (a step named "reorder").
  void add_reorder(const dnnl::memory& from, const dnnl::memory& to);
  // A buffer the runs write (an activation or a temporary): its own allocation while the
  // layers are built; with ExecOptions::reuse_buffers it moves into the shared arena at the
  // end of prepare (buffer_plan.h). Stored values and weights are never made with this.
  dnnl::memory new_buffer(const dnnl::memory::desc& md);
  std::pair<size_t, size_t> activation_bytes() const override { return {arena_bytes_, unplanned_bytes_}; }
  std::string layout_summary() const override { return layout_summary_; }
  bool flushes_denormals() const override { return opts_.flush_denormals; }
  Expected<Tensor> stored(ValueId v);
  const ExecOptions& options() const { return opts_; }
  // The layout a 4-D activation of shape `s` is produced in by the layer being built (see
  // ActivationLayout).
  dnnl::memory::desc activation_md(const Shape& s) const;
  // Whether the layer being built is marked blocked.
  bool blocked() const {
    return !plans_.empty() && plans_.size() - 1 < layer_blocked_.size() && layer_blocked_[plans_.size() - 1];
  }
  // Whether `v`'s buffer may be overwritten by the layer made of `layer` (see above).
  bool dead_after(ValueId v, const std::vector<NodeId>& layer) const;
  // The index of the fused layer that holds node `n`, -1 when none does (after prepare).
  int layer_index(NodeId n) const {
    return n >= 0 && static_cast<size_t>(n) < layer_of_.size() ? layer_of_[static_cast<size_t>(n)] : -1;
  }
  // The fused layer that holds node `n` (its nodes, in order); empty when none does.
  const std::vector<NodeId>& layer_nodes_of(NodeId n) const;
  // Marks nodes of a later layer as built by the current one (their layer then adds no step).
  void mark_built(NodeId n) { built_[static_cast<size_t>(n)] = 1; }
  // Whether `v` is no graph output and every reader of it is in `layer` or built before it.
  bool read_by_now(ValueId v, const std::vector<NodeId>& layer) const;

 private:
  // Lowers every layer, `blocked` marking the layers laid out blocked.
  Status build(const ModelAnalysis& fused, const std::vector<char>& blocked);
  // With layouts chosen per layer: the layer's inputs of its output's shape (a Concat's:
  // all) reordered into its layout first, when its anchor follows its input's layout
  // (pooling, eltwise, binary, batch norm, concat), so it runs in the layout it was timed in.
  Status convert_inputs(const LayerReport& layer);
  // Moves every touched buffer into one arena (buffer_plan.h) and points each memory object
  // that refers to one at its new place.
  Status place_buffers();
  struct Buffer {
    char* base = nullptr;
    size_t bytes = 0;
    int first = -1, last = -1;  // steps that touch it
  };
  std::optional<size_t> buffer_of(const void* p) const;
  dnnl::engine eng_;
  dnnl::stream strm_;
  const Graph* g_ = nullptr;
  ExecOptions opts_;
  std::vector<char> layer_blocked_;  // per layer of the fused analysis
  bool per_layer_layouts_ = false;   // ActivationLayout::kAuto
  std::string layout_summary_;
  std::map<ValueId, dnnl::memory> mem_;
  std::map<std::pair<ValueId, std::string>, dnnl::memory> converted_;
  std::vector<LayerPlan> plans_;
  std::vector<char> built_;  // per node: its layer's primitives are already built
  const ModelAnalysis* fused_ = nullptr;
  std::vector<int> layer_of_;  // per node: its layer in fused_, -1 when none
  std::vector<dnnl::memory> input_mems_, output_mems_;
  std::vector<Buffer> buffers_;
  std::map<const char*, size_t> buffer_at_;  // base -> index in buffers_
  std::vector<dnnl::memory> touched_;        // every memory object a step touches
  int step_count_ = 0;
  std::unique_ptr<char, void (*)(void*)> arena_{nullptr, std::free};
  size_t arena_bytes_ = 0, unplanned_bytes_ = 0;
};

// Row-major / channels-last descriptors.
dnnl::memory::desc md_rowmajor(const Shape& s);
dnnl::memory::desc md_channels_last(const Shape& s);  // acdb for rank 4, row-major otherwise
dnnl::memory::desc md_blocked16(const Shape& s);      // aBcd16b (nChw16c), rank 4 only
bool is_rowmajor(const dnnl::memory::desc& md, const Shape& s);
// Element strides of a plain strided desc (no blocking, padding or offset); nullopt otherwise.
std::optional<dnnl::memory::dims> plain_strides(const dnnl::memory::desc& md);
// Strides that let shape `to` alias a tensor of shape `from` laid out with `strides`
// without a copy (PyTorch's view rule); nullopt when it needs one.
std::optional<dnnl::memory::dims> reshape_strides(const Shape& from, const dnnl::memory::dims& strides,
                                                  const Shape& to);

// ActivationLayout::kAuto: the network prepared in each layout and run a few times in turn,
// each layer's least time taken from the runs, a reorder of each value between layers
// timed in both directions, and the cheapest assignment of layouts to layers
// (layout_plan.h). The assignment is then prepared and run in turn with channels-last, and
// kept only when it is at least 1% faster; otherwise channels-last throughout. The outcome
// is kept in the tactic cache (tactic_cache.h) under the model's layer shapes, so later
// prepares of the same model, batch and threads on this machine replay it without timing.
// Defined in layout_choice.cpp.
struct LayoutChoice {
  std::vector<char> blocked;  // per layer
  std::string summary;        // what was chosen and why, in a line
};
Expected<LayoutChoice> choose_layer_layouts(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o);

// Builds the primitives of one fused layer (defined in nodes.cpp).
Status build_fused_layer(OneDnnBackend& b, const LayerReport& layer);
// Whether a node can be lowered; `reason` when not.
bool node_supported(const Graph& g, NodeId n, std::string* reason);

}  // namespace rooflens::onednn
