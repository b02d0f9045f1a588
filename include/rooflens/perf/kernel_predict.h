// Prediction from a measured kernel table (device/kernel_table.h): which class a fused
// layer belongs to and its features, the layout conversions the oneDNN backend inserts
// before it, and the fit of a class's log-linear model to measured times.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rooflens/cost/cost.h"
#include "rooflens/device/kernel_table.h"

namespace rooflens {

// A fused layer seen as one kernel of the table: its class and feature values in the
// order kernel_class_features() gives.
struct LayerKernel {
  std::string cls;
  std::vector<double> x;
  // The class and features to use when the table has no fit for `cls` (tables probed
  // before the class existed): a fused attention layer falls back to the GEMM view of its
  // Q.K^T product, a skinny GEMM to gemm, as those tables predicted them.
  std::string fallback_cls;
  std::vector<double> fallback_x;
};
// nullopt for layers that are not kernels (no work). `simd_lanes` is the table's
// (KernelTable::simd_lanes): the block convolutions pad their output channels to; 0 leaves
// log_cols_fill 0.
std::optional<LayerKernel> classify_layer(const Graph& g, const LayerReport& r, int simd_lanes);
// Where a layer's in-network level is kept (KernelTable::network_levels): its class, and its
// position on that class's axis (0: none). A grouped convolution is kGroupedLevelClass at its
// channels per group (its level follows the width: 16 channels read 1.4-1.6x the fit in
// RegNets at batch 1 on 2026-12-06, 112-264 channels 0.8-1.0x); a dense kxk or 1x1
// convolution is its class at its output's side (sqrt of its pixels per image: 7x7 and 14x14
// 1x1s read 1.15-1.3x the fit inside networks, 28x28 and 56x56 ones 1.0x). A move other than
// a concatenation is kCopyLevelClass; a pool that leaves one pixel per channel is
// kGlobalPoolLevelClass; a standalone batch normalisation is kNormLevelClass. Other classes
// have no position.
struct LevelKey {
  std::string cls;
  double position = 0;
};
LevelKey level_key(const Graph& g, const LayerReport& r, const LayerKernel& k);
// The kernel as `fits` can time it: `k` itself, or its fallback when `fits` lacks k's class.
LayerKernel timed_kernel(const std::map<std::string, KernelFit>& fits, const LayerKernel& k);

// Features of a layout conversion of `bytes` (channels-last <-> row-major).
std::vector<double> reorder_features(int64_t bytes, bool to_rowmajor);

// A layout conversion the backend adds inside a layer: a 4-D activation produced in one
// layout (channels-last by convolutions, pooling and concat; row-major by graph inputs,
// copies and matrix products) read by an op that wants the other.
struct LayoutConversion {
  int64_t bytes = 0;
  bool to_rowmajor = false;
};
// Per fused layer, in order, the conversions the oneDNN backend's layout policy
// (src/exec/onednn/onednn_backend.h) inserts; the last layer also converts the graph's
// outputs to row-major.
std::vector<std::vector<LayoutConversion>> layout_conversions(const Graph& g, const ModelAnalysis& m);

// Seconds of a layer's conversions: each one's dispatch plus the table's reorder fit.
double conversions_seconds(const KernelTable& t, const std::vector<LayoutConversion>& conversions);

// Predicted seconds of one layer from the table: dispatch per primitive + the class's
// kernel time + each conversion's time. nullopt when the table has no fit for the class
// (nor for its fallback).
// `fits` is the set of fits to use (predict passes the warm ones); conversions use the warm
// reorder fit (their input was just written).
std::optional<double> table_layer_seconds(const KernelTable& t, const std::map<std::string, KernelFit>& fits,
                                          const LayerKernel& k, const std::vector<LayoutConversion>& conversions);

struct KernelSample {
  std::vector<double> x;
  double seconds = 0;  // measured, dispatch included
  std::string desc;    // the sampled problem (LayerReport::desc, oneDNN's notation); may be empty
};
// Least squares of log(seconds - dispatch) on [1, x] (a tiny ridge keeps features that do
// not vary at 0). Errors: fewer samples than coefficients, or a non-positive time.
Expected<KernelFit> fit_kernel_class(const std::string& cls, const std::vector<KernelSample>& samples,
                                     double dispatch_s);

}  // namespace rooflens
