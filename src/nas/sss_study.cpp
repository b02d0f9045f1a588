// Predicting the NATS-Bench size search space on a device (nas/sss_study.h).
#include "rooflens/nas/sss_study.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "rooflens/analysis/pareto.h"
#include "rooflens/cost/analysis.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/perf/max_batch.h"

namespace rooflens {
namespace {

struct Analysed {
  Graph graph;
  ModelAnalysis analysis;
};

Expected<Analysed> build_analysed(const SssWidths& widths, SssDataset dataset, DType dtype, int64_t batch) {
  auto g = build_sss_network(widths, dataset, batch);
  if (!g) return g.status();
  auto inferred = infer_shapes(*g);
  if (!inferred) return inferred.status().with_context("NATS-SSS network " + sss_arch_string(widths));
  AnalyzeOptions ao;
  ao.cost.dtype = dtype;
  ModelAnalysis m = analyze_graph(*g, *inferred, ao);
  m.model = sss_arch_string(widths);
  if (!m.unknown_nodes.empty())  // an internal invariant: the builder emits only known ops
    return Status::internal("NATS-SSS network " + m.model + ": unknown op node " + m.unknown_nodes[0]);
  return Analysed{std::move(*g), std::move(m)};
}

}  // namespace

Expected<SssPoint> predict_sss_network(const SssWidths& widths, SssDataset dataset, const DeviceSpec& device,
                                       const PerfOptions& options, SssBatch batch, Prediction* detail) {
  auto index = sss_index(widths);
  if (!index) return index.status();
  auto dtype = parse_dtype(options.dtype);
  if (!dtype) return Status::invalid("dtype '" + options.dtype + "': expected fp32, fp16, bf16, int8 or fp8");
  if (!device.best_peak(options.dtype))
    return Status::unsupported("device '" + device.id + "' has no " + options.dtype + " peak");
  if (!batch.max && batch.size < 1)
    return Status::invalid("NATS-SSS batch " + std::to_string(batch.size) + " must be at least 1");

  int64_t b = batch.size;
  if (batch.max) {
    auto memory_at = [&](int64_t n) -> Expected<int64_t> {
      auto a = build_analysed(widths, dataset, *dtype, n);
      if (!a) return a.status();
      return estimate_memory(a->graph, a->analysis, device).total();
    };
    auto mb = find_max_batch_affine(memory_at, device.mem_bytes - device.reserved_bytes);
    if (!mb) return mb.status().with_context("NATS-SSS network " + sss_arch_string(widths) + " on " + device.id);
    b = *mb;
  }
  auto a = build_analysed(widths, dataset, *dtype, b);
  if (!a) return a.status();
  auto p = predict(a->graph, a->analysis, device, options);
  if (!p) return p.status();
  if (batch.max) p->max_batch = b;

  SssPoint pt;
  pt.index = *index;
  pt.arch = a->analysis.model;
  pt.macs = a->analysis.totals.macs / b;
  pt.flop_benchmark = sss_benchmark_flop(pt.macs, dataset);
  pt.flops = a->analysis.totals.flops / b;
  pt.params = a->analysis.params;
  pt.ai = a->analysis.ai;
  pt.throughput = p->throughput;
  pt.utilization = p->utilization;
  pt.batch = b;
  if (detail) *detail = std::move(*p);
  return pt;
}

Expected<std::vector<SssPoint>> predict_sss_indices(const std::vector<int64_t>& indices, SssDataset dataset,
                                                    const DeviceSpec& device, const PerfOptions& options,
                                                    SssBatch batch, int jobs, const SssProgress& progress) {
  for (size_t i = 0; i < indices.size(); ++i)
    if (!sss_index_valid(indices[i]))
      return Status::invalid("NATS-SSS index " + std::to_string(indices[i]) + " (position " + std::to_string(i) +
                             ") is outside 0.." + std::to_string(kSssSpaceSize - 1));
  const int64_t total = static_cast<int64_t>(indices.size());
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = static_cast<int>(std::min<int64_t>(jobs, std::max<int64_t>(total, 1)));

  std::vector<SssPoint> out(indices.size());
  std::vector<Status> errors(indices.size(), Status::ok());
  std::atomic<int64_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  std::mutex progress_mu;
  constexpr int64_t kChunk = 64;  // networks claimed at once: little contention, good balance
  auto work = [&] {
    for (;;) {
      const int64_t begin = next.fetch_add(kChunk);
      if (begin >= total || failed.load(std::memory_order_relaxed)) return;
      const int64_t end = std::min(total, begin + kChunk);
      for (int64_t i = begin; i < end; ++i) {
        auto pt = predict_sss_network(sss_widths(indices[i]), dataset, device, options, batch);
        if (!pt) {
          errors[i] = pt.status();
          failed = true;
          return;
        }
        out[i] = std::move(*pt);
      }
      const int64_t before = done.fetch_add(end - begin);
      const int64_t after = before + (end - begin);
      if (progress && (after / 1024 != before / 1024 || after == total)) {
        std::lock_guard<std::mutex> lock(progress_mu);
        progress(after, total);
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (failed)
    for (const Status& s : errors)
      if (!s) return s;
  return out;
}

Expected<std::vector<SssPoint>> predict_sss_space(SssDataset dataset, const DeviceSpec& device,
                                                  const PerfOptions& options, SssBatch batch, int jobs,
                                                  const SssProgress& progress) {
  std::vector<int64_t> all(static_cast<size_t>(kSssSpaceSize));
  for (int64_t i = 0; i < kSssSpaceSize; ++i) all[static_cast<size_t>(i)] = i;
  return predict_sss_indices(all, dataset, device, options, batch, jobs, progress);
}

Expected<std::vector<size_t>> sss_frontier(const std::vector<SssPoint>& points) {
  std::vector<Point2> pts;
  pts.reserve(points.size());
  for (const SssPoint& p : points) pts.push_back({p.throughput, p.utilization});
  return pareto_front_2d(pts);
}

}  // namespace rooflens
