// Built without oneDNN: the factory says so by returning nullptr.
#include "rooflens/exec/backend.h"

namespace rooflens {
std::unique_ptr<Backend> make_onednn_backend() { return nullptr; }
}  // namespace rooflens
