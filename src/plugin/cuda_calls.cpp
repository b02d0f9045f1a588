// The program's CUDA entry points (exec/cuda.h, microbench/gpu_probe.h): through the cuda
// plugin (plugin.h), or its load status when it cannot be loaded.
#include "rooflens/plugin/plugin.h"

namespace rooflens {

Expected<CudaDeviceInfo> cuda_device_info(int device) {
  auto p = plugin::load(plugin::Kind::kCuda);
  if (!p) return p.status();
  return (*p)->cuda->device_info(device);
}

Expected<std::unique_ptr<Backend>> make_cuda_backend(const CudaBackendOptions& o) {
  auto p = plugin::load(plugin::Kind::kCuda);
  if (!p) return p.status();
  return (*p)->cuda->make_backend(o);
}

bool cuda_supports(const Graph& g, NodeId n, std::string* reason) {
  auto p = plugin::load(plugin::Kind::kCuda);
  if (!p) {
    *reason = p.status().message();
    return false;
  }
  return (*p)->cuda->supports(g, n, reason);
}

}  // namespace rooflens

namespace rooflens::microbench {

Expected<GpuProbeResult> run_gpu_probe(const GpuProbeOptions& options) {
  auto p = plugin::load(plugin::Kind::kCuda);
  if (!p) return p.status();
  return (*p)->cuda->run_gpu_probe(options);
}

}  // namespace rooflens::microbench
