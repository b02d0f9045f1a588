// Internal to the GPU probe: CUDA/cuBLAS return codes -> Status, and owners that free device
// resources on every return path. Host code only; included by the .cu files.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "rooflens/util/status.h"

namespace rooflens::microbench::gpu {

// Unavailable for a missing device/driver or exhausted memory (the user can do something
// about those); internal for anything else. The message names the call and the error.
inline Status cuda_status(cudaError_t e, const char* call) {
  const std::string what = std::string(call) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorMemoryAllocation:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorNotPermitted: return Status::unavailable(what);
    default: return Status::internal(what);
  }
}

inline Status cublas_status(cublasStatus_t s, const char* call) {
  const std::string what = std::string(call) + " failed: " + cublasGetStatusString(s);
  if (s == CUBLAS_STATUS_ALLOC_FAILED || s == CUBLAS_STATUS_NOT_INITIALIZED) return Status::unavailable(what);
  return Status::internal(what);
}

}  // namespace rooflens::microbench::gpu

// Returns a Status from the enclosing function when a CUDA runtime call fails.
#define RL_CUDA(call)                                                                        \
  do {                                                                                       \
    const cudaError_t rl_e_ = (call);                                                        \
    if (rl_e_ != cudaSuccess) return ::rooflens::microbench::gpu::cuda_status(rl_e_, #call); \
  } while (0)

// After a kernel launch: the launch configuration error, if any.
#define RL_CUDA_LAUNCHED(what) RL_CUDA(cudaGetLastError())

#define RL_CUBLAS(call)                                                                                  \
  do {                                                                                                   \
    const cublasStatus_t rl_s_ = (call);                                                                 \
    if (rl_s_ != CUBLAS_STATUS_SUCCESS) return ::rooflens::microbench::gpu::cublas_status(rl_s_, #call); \
  } while (0)

namespace rooflens::microbench::gpu {

// Device memory; freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }
  Status allocate(size_t bytes) {
    reset();
    RL_CUDA(cudaMalloc(&p_, bytes));
    bytes_ = bytes;
    return Status::ok();
  }
  void reset() {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return p_; }
  size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

// Page-locked host memory (cudaMallocHost); freed on destruction.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (p_) cudaFreeHost(p_);
  }
  Status allocate(size_t bytes) {
    RL_CUDA(cudaMallocHost(&p_, bytes));
    return Status::ok();
  }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

class Stream {
 public:
  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  Status create() {
    RL_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
    return Status::ok();
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// A start/stop pair of events; elapsed() in seconds.
class EventPair {
 public:
  EventPair() = default;
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  ~EventPair() {
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
  }
  Status create() {
    RL_CUDA(cudaEventCreate(&start_));
    RL_CUDA(cudaEventCreate(&stop_));
    return Status::ok();
  }
  Status start(cudaStream_t s) {
    RL_CUDA(cudaEventRecord(start_, s));
    return Status::ok();
  }
  Status stop(cudaStream_t s) {
    RL_CUDA(cudaEventRecord(stop_, s));
    return Status::ok();
  }
  // Waits for the stop event; seconds between the two events.
  Expected<double> elapsed() {
    float ms = 0;
    cudaError_t e = cudaEventSynchronize(stop_);
    if (e != cudaSuccess) return cuda_status(e, "cudaEventSynchronize");
    e = cudaEventElapsedTime(&ms, start_, stop_);
    if (e != cudaSuccess) return cuda_status(e, "cudaEventElapsedTime");
    return 1e-3 * static_cast<double>(ms);
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

class CublasHandle {
 public:
  CublasHandle() = default;
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  ~CublasHandle() {
    if (h_) cublasDestroy(h_);
  }
  Status create() {
    RL_CUBLAS(cublasCreate(&h_));
    return Status::ok();
  }
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace rooflens::microbench::gpu
