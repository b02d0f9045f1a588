// The probe's kernel catalogue: which compute and bandwidth kernels this CPU can run (chosen
// from the run-time IsaFeatures), their work per call and bytes moved. The raw kernels are in
// simd_kernels.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rooflens/microbench/host_cpu.h"
#include "rooflens/microbench/simd_kernels.h"

namespace rooflens::microbench {

// A compute kernel the probe can run, with fixed operands (values stay finite for any
// iteration count) and its work per instruction.
struct ComputeKernel {
  std::string dtype;                                 // fp32, bf16, int8
  std::string isa;                                   // avx512, avx2 (the SimdPath it is measured against)
  std::string instruction;                           // "vfmadd231ps zmm", "vdpbf16ps zmm", "vpdpbusd ymm (AVX-VNNI)"
  int lanes = 0;                                     // 32-bit lanes per instruction
  int ops_per_lane = 0;                              // FLOP (OP for int8) per lane per instruction: 2, 4, 8
  int accumulators = 0;                              // independent accumulators (instructions per iteration)
  void (*run)(uint64_t iters, void* acc) = nullptr;  // acc: kMaxAccumulators x 16 x 4 bytes is enough

  // FLOP (OP) done by run(iters).
  double ops(uint64_t iters) const { return static_cast<double>(iters) * accumulators * lanes * ops_per_lane; }
};

// The compute kernels this CPU can run, widest ISA first per dtype.
std::vector<ComputeKernel> compute_kernels(const IsaFeatures& isa);

enum class BandwidthKind { kRead, kWrite, kWriteNontemporal, kTriad };
const char* bandwidth_kind_name(BandwidthKind k);  // read, write, write_nt, triad
inline constexpr BandwidthKind kBandwidthKinds[] = {BandwidthKind::kRead, BandwidthKind::kWrite,
                                                    BandwidthKind::kWriteNontemporal, BandwidthKind::kTriad};

// Arrays a kernel of this kind uses (triad: 3, else 1).
int bandwidth_arrays(BandwidthKind k);
// Bytes counted for one call over n floats per array: read n x 4, write n x 4, triad
// 3 x n x 4 (STREAM convention: write-allocate traffic of normal stores is not counted).
double bandwidth_bytes(BandwidthKind k, size_t n, int passes);

struct BandwidthKernels {
  std::string isa;  // avx512, avx2, sse2
  float (*read)(const float*, size_t, int) = nullptr;
  void (*write)(float*, size_t, float, int) = nullptr;
  void (*write_nt)(float*, size_t, float, int) = nullptr;
  void (*triad)(float*, const float*, const float*, float, size_t, int) = nullptr;
};
// The widest set this CPU can run.
BandwidthKernels bandwidth_kernels(const IsaFeatures& isa);

}  // namespace rooflens::microbench
