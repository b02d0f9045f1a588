// Internal to the GPU probe: how many repeats each figure gets, and the parts of the probe
// that live in their own .cu file.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rooflens/microbench/gpu_probe.h"

namespace rooflens::microbench::gpu {

struct Plan {
  int repeats = 15;               // timed repeats per figure
  int warmups = 3;                // untimed runs first
  double target_repeat_s = 0.02;  // short operations are repeated within a timed repeat up to about this
  std::function<void(const std::string&)> progress;
};

// Square GEMMs (m = n = k = each of `sizes`) for fp32 (pedantic, no TF32), tf32, fp16 and
// bf16 (fp32 accumulation) through cublasGemmEx on stream `s`; appends one measurement per
// (size, dtype) in that order. Operands: hash_uniform values (never all zeros); C is checked
// on 8 elements before timing. A dtype cuBLAS refuses (not supported, invalid value, arch
// mismatch) is skipped with a line in `warnings`; any other error ends the probe.
Status measure_gemms(const Plan& plan, cudaStream_t s, const std::vector<int64_t>& sizes,
                     std::vector<GemmMeasurement>* out, std::vector<std::string>* warnings);

}  // namespace rooflens::microbench::gpu
