// run_gpu_probe() of a build without CUDA (nvcc, cuBLAS or cuDNN missing at configure time):
// always unavailable, naming why. The JSON writers are built either way.
#include "rooflens/microbench/gpu_probe.h"

namespace rooflens::microbench {

Expected<GpuProbeResult> run_gpu_probe(const GpuProbeOptions&) {
  return Status::unavailable("built without CUDA (nvcc/cuDNN not found at configure time)");
}

}  // namespace rooflens::microbench
