// The largest batch that fits a device, in few memory evaluations.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "rooflens/util/status.h"

namespace rooflens {

// Same answer and errors as find_max_batch (perf/model.h) for any monotone memory(batch).
// Memory of a fused CNN is affine in the batch (stored weights + batch x live activations
// + workspace), so two evaluations predict the answer and two more confirm it; when the
// confirmation fails (memory not affine) it falls back to the exponential + binary search.
Expected<int64_t> find_max_batch_affine(const std::function<Expected<int64_t>(int64_t)>& memory_at,
                                        double capacity_bytes, int64_t limit = int64_t{1} << 20);

struct Prediction;
struct DeviceSpec;

// "batch N needs X GB: more than the device's Y GB" when a prediction's memory at its batch
// exceeds what the device holds (its memory less the reserved bytes, the capacity
// find_max_batch fills); nullopt when the batch fits. Every report of a prediction at a
// given batch (predict, doctor) says it in these words.
std::optional<std::string> memory_overflow_note(const Prediction& p, const DeviceSpec& d);

}  // namespace rooflens
