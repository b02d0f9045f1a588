// A batch run as independent streams: the batch split into parts, each part a copy of the
// graph at its batch, prepared on a backend of its own on one thread and run on a thread of
// its own, all parts at once (OpenVINO's throughput streams work the same way). No barrier
// joins the parts: on a machine where other processes take CPUs, each stream runs whenever
// the scheduler gives it a CPU, where one OpenMP team of as many threads waits at every
// barrier of every primitive for its preempted members (docs/performance.md, "Issue 30,
// fourteenth pass").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rooflens/cost/cost.h"
#include "rooflens/exec/backend.h"

namespace rooflens {

// The batch of each of `streams` parts: as even as can be, the larger parts first; every
// part at least 1 (so streams <= batch).
std::vector<int64_t> stream_batches(int64_t batch, int streams);

class BatchStreams {
 public:
  // Rebatches `g` (whose fused view is `fused`) to each part's batch, and prepares a fresh
  // backend of `kind`'s kind (Backend::fresh) for each on one thread, the streams one after
  // another, each on the thread that will run it. Unsupported when `kind` has no fresh
  // backend, invalid input when streams < 2 or streams > the batch, and any error of
  // rebatching or preparing.
  static Expected<std::unique_ptr<BatchStreams>> start(const Graph& g, const ModelAnalysis& fused, const Backend& kind,
                                                       const ExecOptions& o, int streams, uint64_t input_seed);
  ~BatchStreams();  // stops and joins the streams' threads
  BatchStreams(const BatchStreams&) = delete;
  BatchStreams& operator=(const BatchStreams&) = delete;

  // One batch: every stream runs its part once, all at once; returns when all have (the
  // first error of any).
  Status run();
  // Per fused layer of the last run, the mean over the streams of its time: the layers'
  // times add up to the streams' mean time, the batch's time when they run side by side.
  std::vector<LayerTiming> layer_timings() const;
  // The buffers of every stream together (placed, and with a buffer each).
  std::pair<size_t, size_t> activation_bytes() const;
  std::string layout_summary() const;  // the first stream's
  bool flushes_denormals() const;
  int streams() const;
  const std::vector<int64_t>& batches() const { return batches_; }
  // Stream i's inputs (random, from the seed given to start) and its outputs of the last run,
  // in the order of the graph's inputs and outputs.
  const std::vector<Tensor>& inputs(int i) const;
  const std::vector<Tensor>& outputs(int i) const;

 private:
  struct Stream;
  struct Shared;
  BatchStreams();
  std::vector<int64_t> batches_;
  std::unique_ptr<Shared> shared_;
  std::vector<std::unique_ptr<Stream>> streams_;
};

}  // namespace rooflens
