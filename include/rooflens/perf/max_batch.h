// The largest batch that fits a device, in few memory evaluations.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "rooflens/device/device.h"
#include "rooflens/perf/memory.h"
#include "rooflens/util/status.h"

namespace rooflens {

// Same answer and errors as find_max_batch (perf/model.h) for any monotone memory(batch).
// Memory of a fused CNN is affine in the batch (stored weights + batch x live activations
// + workspace), so two evaluations predict the answer and two more confirm it; when the
// confirmation fails (memory not affine) it falls back to the exponential + binary search.
Expected<int64_t> find_max_batch_affine(const std::function<Expected<int64_t>(int64_t)>& memory_at,
                                        double capacity_bytes, int64_t limit = int64_t{1} << 20);

struct Prediction;

// "batch N needs X GB: more than the device's Y GB" when a prediction's memory at its batch
// exceeds what the device holds (its memory less the reserved bytes, the capacity
// find_max_batch fills); nullopt when the batch fits. Every report of a prediction at a
// given batch (predict, doctor) says it in these words.
std::optional<std::string> memory_overflow_note(const Prediction& p, const DeviceSpec& d);
// The largest batch at which a model's estimate_memory fits the device's usable memory
// (perf/memory.h), by find_max_batch_affine. `analysed_at(batch)` gives the model analysed at
// that batch: an Expected of anything with `graph` and `analysis` members (analysis's
// LoadedModel, nas's analysed NATS-SSS network). Its errors come back unchanged.
template <class AnalysedAt>
Expected<int64_t> max_batch_for(const DeviceSpec& d, const AnalysedAt& analysed_at) {
  auto memory_at = [&](int64_t batch) -> Expected<int64_t> {
    auto a = analysed_at(batch);
    if (!a) return a.status();
    return estimate_memory(a->graph, a->analysis, d).total();
  };
  return find_max_batch_affine(memory_at, usable_memory(d));
}

}  // namespace rooflens
