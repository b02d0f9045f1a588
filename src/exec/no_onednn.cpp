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
