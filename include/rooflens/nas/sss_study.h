// Predicted throughput and utilization of every network of the NATS-Bench size search space
// (nas/sss_space.h) on one device, and their throughput-utilization Pareto frontier: the
// data behind the "Figure 3" scatter of a search space on a device.
//
// The reference path builds each network as IR directly at the batch it is predicted at,
// infers shapes, analyses it (fused, engine mode) and predicts it with perf/model.h; for "max"
// the batch is the largest that fits the device (perf/max_batch.h, memory is affine in the
// batch). Many networks at once are assembled from cached segments instead (SssMethod), with
// the same results. Networks are independent, so they are spread over `jobs` threads; results
// come back in index order whatever `jobs` is.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/nas/sss_space.h"
#include "rooflens/perf/model.h"

namespace rooflens {

// One predicted network. Counts are per image.
struct SssPoint {
  int64_t index = 0;
  std::string arch;            // "8:16:24:32:64"
  int64_t macs = 0;            // rooflens MACs (Conv/Gemm multiply-accumulates)
  int64_t flop_benchmark = 0;  // the benchmark's "flop" field: macs + classes (sss_benchmark_flop)
  int64_t flops = 0;           // rooflens FLOPs (2 x MACs + other arithmetic); utilization uses it
  int64_t params = 0;          // trainable parameters (count_params)
  double ai = 0;               // FLOP per byte of the fused model at `batch`
  double throughput = 0;       // images/s
  double utilization = 0;      // throughput x flops / datasheet peak of the dtype, 0..1
  int64_t batch = 0;           // batch predicted at (the max batch for SssBatch::max)
};

// The batch a study predicts at: a fixed size, or the largest that fits the device.
struct SssBatch {
  int64_t size = 256;  // used when !max; >= 1
  bool max = false;
  static SssBatch fixed(int64_t n) { return SssBatch{n, false}; }
  static SssBatch largest() { return SssBatch{0, true}; }
};

// (networks done, total); called from worker threads, serialised, at most every 1024 networks
// and once at the end.
using SssProgress = std::function<void(int64_t done, int64_t total)>;

// One network in detail; `detail`, when not null, receives the full prediction (per layer).
// Errors: invalid widths or batch; the device has no peak for options.dtype (unsupported);
// no batch fits (max).
Expected<SssPoint> predict_sss_network(const SssWidths& widths, const SssNetInput& input, const DeviceSpec& device,
                                       const PerfOptions& options, SssBatch batch, Prediction* detail = nullptr);

// The networks at `indices` (each 0..kSssSpaceSize-1, else invalid input naming it), in the
// order given. jobs <= 0: one per hardware thread. The first error (lowest position) wins.
// Method kAuto (below).
Expected<std::vector<SssPoint>> predict_sss_indices(const std::vector<int64_t>& indices, const SssNetInput& input,
                                                    const DeviceSpec& device, const PerfOptions& options,
                                                    SssBatch batch, int jobs, const SssProgress& progress = {});

// How a set of networks is predicted. Both give the same numbers (bit for bit):
// - kFull: each network built as IR, shape-inferred, analysed and predicted (predict_sss_network).
// - kAssembled: a network is a chain of five segments (stem + L0 cell: c0; L1: c0->c1; L2:
//   c1->c2; L3: c2->c3; L4 cell + head: c3->c4), and a segment's fused layers depend only on
//   its two widths, linearly on the batch. The 8 + 4 x 64 segments are taken once from 64
//   analysed networks (at batches 1, 2 and 3: affinity is checked), and every network is
//   assembled from them and timed layer by layer with the same per-layer model
//   (perf/layer_model.h), L2 reuse across segment boundaries and memory for the max batch
//   included. An internal error if the segments are not what that assumes.
// - kAuto: kAssembled for large sets (where taking the segments pays off), falling back to
//   kFull if they cannot be taken; else kFull.
enum class SssMethod { kAuto, kFull, kAssembled };

Expected<std::vector<SssPoint>> predict_sss_indices(const std::vector<int64_t>& indices, const SssNetInput& input,
                                                    const DeviceSpec& device, const PerfOptions& options,
                                                    SssBatch batch, int jobs, const SssProgress& progress,
                                                    SssMethod method);

// All 32768 networks, index order (points[i].index == i).
Expected<std::vector<SssPoint>> predict_sss_space(const SssNetInput& input, const DeviceSpec& device,
                                                  const PerfOptions& options, SssBatch batch, int jobs,
                                                  const SssProgress& progress = {});

// Positions in `points` of the throughput-utilization Pareto frontier (both maximized), sorted
// by throughput ascending (pareto_front_2d).
Expected<std::vector<size_t>> sss_frontier(const std::vector<SssPoint>& points);

}  // namespace rooflens
