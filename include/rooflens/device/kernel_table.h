// A measured kernel table: per kernel class, a time predictor fitted to the backend's own
// primitives timed on this machine (`rooflens probe cpu --kernels`; nn-Meter's method, the
// article's "latency lookup table"). It lives in the device file under "kernel_table".
//
// Every class has the same form (docs/perf-model.md, "Measured kernel table"):
//   t = dispatch + exp(c0 + sum_i c_i * x_i)
// where dispatch is the device's measured per-primitive overhead (launch_overhead_s) and
// x_i are the class's features: logs of sizes (log_rows: GEMM rows = images x output
// pixels, log_bytes ...) or 0/1 indicators (residual). A log-linear model is a power law in
// the sizes: exponent 1 on the work means constant efficiency, below 1 means efficiency
// grows with size. The features per class are fixed (kernel_class_features below) and only
// ever appended to: a table whose list is a leading part of its class's (fitted before a
// feature was added) reads with the missing coefficients 0; any other list is refused as
// foreign. A class a table lacks (attention and
// gemm_skinny, in tables probed before 2026-12-04) is predicted as the layer's fallback
// class says (perf/kernel_predict.h): gemm, as those tables did.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rooflens/util/status.h"

// Field-wise operator== on the device structs (defaulted, so a new field is compared too):
// C++20. The CUDA probe's sources compile as C++17 and do without it.
#ifndef ROOFLENS_FIELDWISE_EQUALITY
#if __cplusplus >= 202002L
#define ROOFLENS_FIELDWISE_EQUALITY 1
#else
#define ROOFLENS_FIELDWISE_EQUALITY 0
#endif
#endif

namespace rooflens {

inline constexpr const char* kKernelTableSchema = "rooflens.kernel_table/1";
// A matrix product with at most this many rows reads each weight for a few rows only: its
// time follows the weights, not the FLOPs, so it has a class of its own (gemm_skinny); one
// power law across both regimes put ViT's two MLP layers, equal in FLOPs, 1.5x apart.
inline constexpr int64_t kSkinnyGemmRows = 32;
// A convolution of one group with at most this many input channels reads an image (RGB, or
// RGBA, or grey): the stem class.
inline constexpr int64_t kStemMaxChannels = 4;

struct KernelFit {
  std::vector<std::string> features;  // names, in coefficient order after the intercept
  std::vector<double> coef;           // c0 (intercept), then one per feature
  double fixed_s = 0;                 // fixed cost per call, beside the dispatch (0 in older tables)
  int samples = 0;                    // measurements it was fitted on
  double median_abs_error = 0;        // of the fit on its own samples (relative)
  double max_abs_error = 0;
  // Sampled range of each feature (min, max); a prediction outside it extrapolates.
  std::map<std::string, std::pair<double, double>> range;

  // fixed_s + exp(c0 + sum c_i x_i); x in feature order. x.size() must equal features.size().
  double kernel_seconds(const std::vector<double>& x) const;
#if ROOFLENS_FIELDWISE_EQUALITY
  bool operator==(const KernelFit&) const = default;
#endif
};

// A table's level inside whole networks at one batch: the time whole generated networks
// (calibration/level_networks.h, none of them a zoo model) took, over the time the table
// predicts for them at the host's state; measured by `probe cpu --kernels` right after the
// fits. Each shape is timed in a loop of its own, its weights and input warm; in a network
// every layer follows others that used the caches and the cores (docs/perf-model.md).
// Per level class (`level_key` in perf/kernel_predict.h: the table's class, conv_grouped for
// grouped convolutions), and per class and position ("pointwise@14": conv and pointwise by
// their output's side, conv_grouped by its channels per group), the networks' layers of it:
// their measured time (each network's layer times scaled to sum to its end-to-end time) over
// the table's; one with fewer than kMinLevelLayers layers among them has none.
struct NetworkLevel {
  int64_t batch = 1;
  double level = 1;                       // median over the networks of measured time / predicted time
  int networks = 0;                       // how many it is the median of
  double spread = 0;                      // (largest - smallest) / median of the networks' ratios
  std::map<std::string, double> classes;  // level class or CLASS@N -> its level (empty in the first such tables)
  // Seconds a classifier head held at its weights' stream (kStreamLevelClass) takes in a
  // network beyond that stream's time: the median over the networks' such layers; absent in
  // tables probed before the twenty-ninth pass of issue 30 and where fewer than
  // kMinLevelLayers layers had it. Added, not multiplied: see kStreamLevelClass.
  std::optional<double> stream_latency_s = std::nullopt;
  int stream_layers = 0;  // how many layers it is the median of
#if ROOFLENS_FIELDWISE_EQUALITY
  bool operator==(const NetworkLevel&) const = default;
#endif
};

struct KernelTable {
  std::string backend;   // e.g. "oneDNN 2.7.3 (cpu, avx512_core)"
  std::string host;      // CPU model name the table was measured on
  std::string measured;  // UTC date/time
  int threads = 0;       // threads the primitives ran with
  std::string dtype = "fp32";
  double dispatch_s = 0;  // per-primitive overhead added to every kernel (from the probe)
  // fp32 lanes of the vector instructions the backend's kernels ran with (16 for AVX-512, 8
  // for AVX2): the block that output channels are padded to (log_cols_fill). 0 in tables
  // probed before 2026-12-04 15:00 UTC, which have no log_cols_fill either.
  int simd_lanes = 0;
  // Fits with warm caches (the sample's weights and input in cache) and cold (caches
  // evicted before each run). `predict` uses the warm fits; when a network's weights and
  // live activations exceed the cache that keeps them between runs (the threads' private
  // caches, at most `cache_bytes`, the last-level cache), it holds each layer at least at its
  // weights' streaming time from memory (docs/perf-model.md). The cold fits are kept as measured,
  // to show how cache-sensitive each class is; they over-predicted whole networks
  // (docs/validation.md, rerun of 2026-12-01 on the Zen 5 host).
  std::map<std::string, KernelFit> classes;
  std::map<std::string, KernelFit> cold;
  double cache_bytes = 0;
  // The host-state reference (microbench/host_reference.h) while the table was measured:
  // the fixed GEMM's FLOP/s, the DRAM triad's B/s, one core's clock (Hz) and the FMA loop's
  // FLOP/s, mean of before and after the probe; 0 in older tables (clock and FMA: in tables
  // probed before 2026-12-03 16:00 UTC). A
  // prediction is scaled by the host's drift from these at measurement time, so that predicted
  // and measured refer to the same machine state.
  double host_gemm_flops = 0, host_stream_bytes = 0, host_clock_hz = 0, host_fma_flops = 0;
  // The executor's dispatch in the same readings (HostReference::dispatch_s): the host's
  // dispatch state the table describes. 0 in tables probed before 2026-12-04 15:00 UTC.
  double host_dispatch_s = 0;
  // The reference's convolutions (HostReference::kernels_s), median of the readings before,
  // between the rounds of and after the probe: the level the fits describe. 0 in tables probed
  // before 2026-12-05 22:00 UTC.
  double host_kernels_s = 0;
  // The same at batch 8 (HostReference::kernels8_s): the baseline shown beside the batch-8
  // readings of measurements at batch 4 or more (the drift uses host_kernels_s at every batch).
  // 0 in tables probed before 2026-12-06 17:00 UTC.
  double host_kernels8_s = 0;
  // In-network levels by batch, ascending (empty in tables probed before 2026-12-06: level 1).
  std::vector<NetworkLevel> network_levels;
#if ROOFLENS_FIELDWISE_EQUALITY
  bool operator==(const KernelTable&) const = default;
#endif
};

// The kernel classes and their features, in coefficient order: the one definition that
// the probe, the fit, the predictor and the parser share.
//   conv       kxk convolution (k > 1):        log_rows, log_cols, log_k, residual, transcendental,
//              log_cols_fill, grouped, transcendental_log_k
//   stem       kxk convolution of at most kStemMaxChannels input channels, one group, windows
//              that overlap (a network's first layer, reading the image; a patch embedding, whose
//              stride is its kernel, is a conv): log_rows, log_cols, log_k, transcendental
//   pointwise  1x1 convolution:                log_rows, log_cols, log_k, residual, transcendental,
//              log_cols_fill, transcendental_log_k
//   depthwise  one filter per channel:         log_out, log_in, log_window, transcendental
//   gemm       Gemm / MatMul, more than kSkinnyGemmRows rows: log_rows, log_cols, log_k,
//              transcendental
//   gemm_skinny Gemm / MatMul with at most kSkinnyGemmRows rows (classifier heads, weight-
//              bound): log_rows, log_cols, log_k
//   attention  fused attention (Q.K^T, its scale/bias/mask, Softmax, A.V): log_matrices,
//              log_q, log_kv, log_d, score_ops
//   pool       Max/Average/Global pooling, ReduceMean over H,W: log_out, log_in, log_window
//   eltwise    elementwise, binary, softmax, normalisation: log_bytes, binary
//   move       Concat, Transpose, Slice, Split, Pad (copies): log_bytes, transpose
//   reorder    layout conversion between channels-last and row-major: log_bytes, to_rowmajor
// rows = images x output pixels (x groups), cols = output channels per group, k = input
// channels per group x kernel area; residual = 1 when a residual Add is fused in;
// transcendental = 1 when a fused activation evaluates exp/tanh/erf (SiLU, sigmoid, GELU,
// tanh), which costs more per output than ReLU or clipping; log_cols_fill = log(cols /
// cols rounded up to the table's simd_lanes), <= 0: the share of the vector lanes the output
// channels fill (0 when they fill every lane, or when the table has no simd_lanes); grouped = 1
// for a convolution of more than one group (ResNeXt, RegNet), which oneDNN runs on other
// kernels than dense ones (0 in tables probed before 2026-12-05, which lack the feature);
// transcendental_log_k = transcendental x log_k: the fused activation's cost is per output
// while the product's is per output and per k, so its share falls as k grows (EfficientNet's
// 24 -> 144 expansion with SiLU ran 1.8x the fit without it). It and gemm's transcendental
// (a GELU fused after the product) read 0 in tables probed before 2026-12-05 04:00 UTC,
// which have no stem class either (stems fall back to conv there).
// For attention: matrices = the
// score matrices (images x heads x windows), q and kv = their rows and columns (query and
// key tokens), d = the head width (K of Q.K^T), score_ops = the pointwise ops between Q.K^T
// and the Softmax (scale, position bias, mask).
const std::map<std::string, std::vector<std::string>>& kernel_class_features();

inline constexpr int kMinLevelLayers = 3;

// The level class of grouped convolutions (kernel class conv with `grouped` 1): its levels
// are kept by group width only, since a level at one width says nothing of another (16
// channels per group read 1.53x the fit at batch 1 on 2026-12-06; RegNets of 112-264 read
// 0.8-1.0x).
inline constexpr const char* kGroupedLevelClass = "conv_grouped";

// The level class of the move class's copies other than concatenation (transposes, slices,
// splits, pads): the concatenations of the dense generated network read 1.27x the fit at
// batch 8 while ShuffleNetV2's channel shuffles and splits read 0.7-0.9x it in the same
// minutes (2026-12-06), so neither's level is the other's. Without a level of its own it
// takes the overall one, never the concatenations'.
inline constexpr const char* kCopyLevelClass = "move_copy";

// The level class of pooling that leaves one pixel per channel (global average pooling, a
// mean over the spatial axes): squeeze-excite's squeeze and the heads. Inside the generated
// networks at batch 8 on 2026-12-06 these read 0.74x the fit while windowed max and average
// pooling read 2.0x and 1.7x, and the zoo's read 0.70x and 1.9x in the same minutes, so one
// pool level carried the windowed pools' 1.8x into every squeeze-excite.
inline constexpr const char* kGlobalPoolLevelClass = "pool_global";

// The level class of a standalone batch normalisation (with its activation): the dense
// network's pre-activations read 1.85x the fit at batch 8 on 2026-12-06 while the binary
// and unary elementwise ops (squeeze-excite's scaling) read 1.08x, in the generated networks
// and in the zoo alike, so one eltwise level carried the normalisations' into the multiplies.
inline constexpr const char* kNormLevelClass = "eltwise_norm";

// The level class of a matrix product of few rows (kernel class gemm_skinny: a classifier
// head) that the table holds at its weights' stream from memory. Its in-network time is that
// stream plus a latency (NetworkLevel::stream_latency_s), not a multiple of it: the heads of
// the generated networks (2-5 MB of weights) read 1.98x their stream at batch 1 on the Zen 3
// guest (2026-12-07), and that factor put AlexNet's and VGG's first classifier layers (151 and
// 411 MB) at 1.8-2.2x their measured time, which is their stream at 33-37 GB/s plus ~50 us
// (docs/perf-model.md, "A classifier head held at its stream").
inline constexpr const char* kStreamLevelClass = "gemm_skinny_stream";

// The latency a layer of kStreamLevelClass adds to its stream at `batch`: interpolated on log
// batch between the measured batches that have one, the nearest one's outside them; nullopt
// when no batch has one (older tables: such a layer takes gemm_skinny's level instead).
std::optional<double> stream_latency_at(const KernelTable& t, int64_t batch);

// The key of a level class's level at one position on its axis (perf/kernel_predict.h,
// level_key: the output's side for conv and pointwise, the channels per group for
// conv_grouped): "CLASS@N", N the position rounded to an integer.
std::string level_point_key(const std::string& cls, double position);

// A NetworkLevel::classes key read back: its class and position (0 for the class's own level);
// nullopt when what follows "@" is not a positive integer. The one reader of level_point_key's format.
struct LevelPoint {
  std::string cls;
  int position = 0;
};
std::optional<LevelPoint> split_level_key(const std::string& key);

// The in-network level at `batch` of a layer of level class `cls` at `position` (0: none).
// Per measured batch: where the class has levels at positions ("CLASS@N"), interpolated on log
// position between them (the nearest one's outside them); else the class's own (not for
// kGroupedLevelClass); else that batch's `level` ("" for `level`). Then interpolated on log
// batch between the measured batches, the nearest one's outside them; 1 when the table has none.
double network_level_at(const KernelTable& t, int64_t batch, const std::string& cls = "", double position = 0);

// Parses the "kernel_table" object of a device file. An unknown class, another feature
// list, a wrong coefficient count, a non-finite number or another schema is an error
// naming `file` and the field (kernel_table.classes.conv.coef ...).
Expected<KernelTable> parse_kernel_table(const std::string& json_text, const std::string& file);

// The table as the JSON text of a device file's "kernel_table" object.
std::string kernel_table_json(const KernelTable& t);

}  // namespace rooflens
