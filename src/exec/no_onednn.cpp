// Built without oneDNN: the factory says so by returning nullptr.
#include "rooflens/exec/backend.h"

namespace rooflens {
std::unique_ptr<Backend> make_onednn_backend() { return nullptr; }
}  // namespace rooflens

#include "rooflens/exec/dispatch_probe.h"
namespace rooflens {
Expected<DispatchOverhead> measure_onednn_dispatch(int) {
  return Status::unavailable("built without oneDNN (ROOFLENS_WITH_ONEDNN=OFF)");
}
}  // namespace rooflens
namespace rooflens {
std::string onednn_version_text() { return "none"; }

int onednn_fp32_lanes() { return 0; }
Expected<double> measure_onednn_reference_kernels(int, int) {
  return Status::unavailable("built without oneDNN (ROOFLENS_WITH_ONEDNN=OFF)");
}
Expected<std::unique_ptr<ReferencePasses>> ReferencePasses::make(int, int) {
  return Status::unavailable("built without oneDNN (ROOFLENS_WITH_ONEDNN=OFF)");
}
Expected<double> time_onednn_reorder(int64_t, int64_t, int64_t, int64_t, bool, int, double) {
  return Status::unavailable("built without oneDNN (ROOFLENS_WITH_ONEDNN=OFF)");
}
}  // namespace rooflens
