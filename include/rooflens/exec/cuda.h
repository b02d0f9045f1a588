// The CUDA backend: a model's fused layers run on an NVIDIA GPU through cuDNN (convolution,
// pooling, softmax), cuBLAS (Gemm/MatMul) and rooflens's own element-wise kernels.
// Activations stay on the device in channels-last (NHWC) order in the compute dtype; host
// inputs are fp32 NCHW and are converted on the device, outside the timed runs.
#pragma once

#include <memory>
#include <string>

#include "rooflens/exec/backend.h"

namespace rooflens {

struct CudaBackendOptions {
  DType dtype = DType::kF16;  // kF16 (tensor cores, fp32 accumulation) or kF32 (no TF32)
  int device = 0;
  // Replay the whole model as one CUDA graph (launch overhead removed); per-layer times
  // are then not available.
  bool graph = false;
  // Convolution + bias + residual add + ReLU as one cuDNN call where cuDNN accepts it.
  bool fuse_conv_epilogue = true;
  size_t workspace_bytes = size_t{256} << 20;  // cuDNN/cuBLAS scratch, shared by all layers
  // fp16 convolutions whose input channels are not a multiple of 8 (conv1's 3) also tried on
  // an input padded with zero channels, kept where cuDNN times it faster (as TensorRT does).
  bool pad_channels = true;
};

// What the CUDA runtime reports about a device.
struct CudaDeviceInfo {
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  size_t memory_bytes = 0;
  int runtime_version = 0, driver_version = 0;
  size_t cudnn_version = 0;
};

// kUnavailable (with the CUDA runtime's reason) when there is no usable device, and when
// rooflens was built without CUDA.
Expected<CudaDeviceInfo> cuda_device_info(int device = 0);
Expected<std::unique_ptr<Backend>> make_cuda_backend(const CudaBackendOptions& o);
// What the CUDA backend's supports() answers for node `n` (shapes inferred), without a
// device; false with "built without CUDA" when rooflens was.
bool cuda_supports(const Graph& g, NodeId n, std::string* reason);

}  // namespace rooflens
