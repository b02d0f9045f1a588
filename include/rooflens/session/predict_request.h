// A prediction request over a model session: the model predicted on one device at each batch
// asked for and, when asked, at the largest batch that fits the device. What `rooflens
// predict` maps its flags to, and what the Python module's predict() calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/perf/model.h"
#include "rooflens/session/model_session.h"

namespace rooflens {

struct PredictRequest {
  std::vector<int64_t> batches;  // explicit batches, each >= 1
  bool max = false;              // and the largest batch that fits, last
  PerfOptions perf;              // perf.dtype must name `dtype` of predict_session
  // The execution the GPU predictions describe (perf/engine.h) is perf.engine: default the
  // TensorRT-class engine; `rooflens predict --engine` sets it. Not used on a CPU.
};

// One Prediction per batch (the largest that fits last when max). Each carries max_batch
// when a batch fits, its images per input (folded models) and a note when it overflows the
// device memory. Errors: the model's own (import, unsupported op), the device's (no peak for
// the dtype), and, when max is asked, a model that does not fit at batch 1 (naming the model
// and the device). Invalid input when nothing is asked.
Expected<std::vector<Prediction>> predict_session(const ModelSession& session, DType dtype, const DeviceSpec& device,
                                                  const PredictRequest& request);

// A device by id, alias, file or custom spec (resolve_device) from the database `db`,
// refused as unsupported when it has no peak for `dtype`.
Expected<DeviceSpec> device_with_peak(const std::string& spec, const std::vector<DeviceSpec>& db,
                                      const std::string& dtype);

}  // namespace rooflens
