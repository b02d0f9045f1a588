// The prediction request (session/predict_request.h).
#include "rooflens/session/predict_request.h"

#include "rooflens/passes/folded_cnn.h"
#include "rooflens/perf/max_batch.h"
#include "rooflens/perf/memory.h"

namespace rooflens {

Expected<std::vector<Prediction>> predict_session(const ModelSession& session, DType dtype, const DeviceSpec& device,
                                                  const PredictRequest& request) {
  if (request.batches.empty() && !request.max) return Status::invalid("predict: no batch given");
  for (int64_t b : request.batches)
    if (b < 1) return Status::invalid("predict: batch " + std::to_string(b) + ": must be >= 1");
  std::optional<int64_t> max_batch;
  const double capacity = device.mem_bytes - device.reserved_bytes;
  auto memory_at = [&](int64_t b) -> Expected<int64_t> {
    auto an = session.model(b, dtype);
    if (!an) return an.status();
    return estimate_memory(an->graph, an->analysis, device).total();
  };
  auto mb = find_max_batch(memory_at, capacity);
  if (mb)
    max_batch = *mb;
  else if (request.max)
    return mb.status().with_context(session.name() + " on " + device.id);
  std::vector<int64_t> batches = request.batches;
  if (request.max) batches.push_back(*max_batch);
  std::vector<Prediction> out;
  for (int64_t b : batches) {
    auto an = session.model(b, dtype);
    if (!an) return an.status();
    auto p = predict(an->graph, an->analysis, device, request.perf);
    if (!p) return p.status();
    p->max_batch = max_batch;
    p->images_per_input = fold_factor_of(an->graph);
    if (auto note = memory_overflow_note(*p, device)) p->notes.push_back(*note);
    out.push_back(std::move(*p));
  }
  return out;
}

Expected<DeviceSpec> device_with_peak(const std::string& spec, const std::vector<DeviceSpec>& db,
                                      const std::string& dtype) {
  auto dev = resolve_device(spec, db);
  if (!dev) return dev.status();
  if (!dev->best_peak(dtype)) return Status::unsupported(dev->no_peak_message(dtype));
  return dev;
}

}  // namespace rooflens
