// librooflens-cuda.so's entry point (plugin.h): the CUDA backend and the GPU probe.
#include "rooflens/plugin/plugin.h"

namespace {
const rooflens::plugin::CudaApi kCuda{&rooflens::cuda_device_info, &rooflens::make_cuda_backend,
                                      &rooflens::microbench::run_gpu_probe, &rooflens::cuda_supports};
const rooflens::plugin::Table kTable{rooflens::plugin::kApiVersion, ROOFLENS_VERSION, "cuda", &kCuda, nullptr, nullptr};
}  // namespace

extern "C" __attribute__((visibility("default"))) const rooflens::plugin::Table* rooflens_plugin_table() {
  return &kTable;
}
