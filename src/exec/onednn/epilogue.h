// Post-op mapping of fused epilogues (see epilogue.cpp).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "onednn_backend.h"

namespace rooflens::onednn {

struct Epilogue {
  dnnl::post_ops ops;
  std::vector<std::pair<int, dnnl::memory>> binary_args;  // post-op index -> src1
  std::optional<dnnl::memory> sum_into;                   // dst to use: a residual accumulated in place (`sum`)
  ValueId tip = kNoValue;                                 // the value the primitive's dst holds after the post-ops
  size_t next = 0;                                        // first node of the layer not covered
};

// Maps nodes[first..] that read the running `tip` onto post-ops, stopping at the first
// node it cannot express. Binary operands are bound to memories now.
// `run_shape`, when given, is the row-major 2-D shape [rows, dst_shape.back()] the primitive
// computes in place of dst_shape (a MatMul whose leading dims are collapsed into rows);
// dst_md is then its descriptor, and a binary operand maps only when it is a full row-major
// tensor of dst_shape or broadcast along every dim but the last.
Expected<Epilogue> map_epilogue(OneDnnBackend& b, const std::vector<NodeId>& nodes, size_t first, ValueId tip,
                                const Shape& dst_shape, const dnnl::memory::desc& dst_md,
                                const Shape* run_shape = nullptr);

std::optional<double> known_scalar(const Graph& g, ValueId v);

// The primitive's destination: the in-place residual when the epilogue has one.
Expected<dnnl::memory> epilogue_dst(OneDnnBackend& b, const Epilogue& e, const dnnl::memory::desc& dst_desc);

}  // namespace rooflens::onednn
