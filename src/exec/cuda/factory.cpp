// The CUDA backend's entry points: device discovery and the factory.
#include "cuda_backend.h"

namespace rooflens {

Expected<CudaDeviceInfo> cuda_device_info(int device) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    return Status::unavailable(std::string("no CUDA device: ") + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) +
                               ")");
  if (count == 0) return Status::unavailable("no CUDA device: the driver reports none");
  if (device < 0 || device >= count)
    return Status::invalid("CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                           " found)");
  cudaDeviceProp p{};
  ROOFLENS_RETURN_IF_ERROR(cuda::cuda_status(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties"));
  CudaDeviceInfo info;
  info.name = p.name;
  info.sm_count = p.multiProcessorCount;
  info.cc_major = p.major;
  info.cc_minor = p.minor;
  info.memory_bytes = p.totalGlobalMem;
  cudaRuntimeGetVersion(&info.runtime_version);
  cudaDriverGetVersion(&info.driver_version);
  info.cudnn_version = cudnnGetVersion();
  return info;
}

bool cuda_supports(const Graph& g, NodeId n, std::string* reason) { return cuda::node_supported(g, n, reason); }

Expected<std::unique_ptr<Backend>> make_cuda_backend(const CudaBackendOptions& o) {
  auto info = cuda_device_info(o.device);
  if (!info) return info.status();
  auto b = std::make_unique<cuda::CudaBackend>(o);
  ROOFLENS_RETURN_IF_ERROR(b->init());
  return std::unique_ptr<Backend>(std::move(b));
}

}  // namespace rooflens
