// Built without CUDA: the entry points say so.
#include "rooflens/exec/cuda.h"

namespace rooflens {

Expected<CudaDeviceInfo> cuda_device_info(int) {
  return Status::unavailable("rooflens was built without CUDA (nvcc, cuBLAS or cuDNN not found at configure time)");
}
bool cuda_supports(const Graph&, NodeId, std::string* reason) {
  *reason = "rooflens was built without CUDA";
  return false;
}
Expected<std::unique_ptr<Backend>> make_cuda_backend(const CudaBackendOptions&) {
  return Status::unavailable("rooflens was built without CUDA (nvcc, cuBLAS or cuDNN not found at configure time)");
}

}  // namespace rooflens
