// --backend/--dtype/--graph to a backend, and the GPU at hand (backend_choice.h).
#include "backend_choice.h"

#include "common.h"
#include "rooflens/device/device.h"
#include "rooflens/exec/cuda.h"

namespace rooflens::cli {

Expected<std::unique_ptr<Backend>> make_backend(const BackendChoice& c) {
  if (c.name == "cuda") {
    CudaBackendOptions o;
    o.dtype = c.dtype;
    o.graph = c.graph;
    return make_cuda_backend(o);
  }
  std::unique_ptr<Backend> b;
  if (c.name == "cpu" || c.name == "onednn") b = make_onednn_backend();
  if (c.name == "reference") b = make_reference_backend();
  if (!b) return Status::unavailable("backend '" + c.name + "' is not available in this build");
  return b;
}

Expected<GpuAtHand> gpu_at_hand(const std::string& device, const std::string& devices_dir_override) {
  auto info = cuda_device_info();
  if (!info) return info.status();
  GpuAtHand g{info->name, device};
  if (device.empty() || device == "this-cpu") {
    auto db = load_device_dir(devices_dir(devices_dir_override));
    if (!db) return db.status();
    auto gpu = find_gpu_by_name(info->name, *db);
    if (!gpu) return gpu.status();
    g.device = gpu->id;
  }
  return g;
}

Status check_backend_flags(const std::string& backend, const std::string& dtype, bool graph) {
  if (backend != "cuda" && (dtype != "fp32" || graph))
    return Status::invalid("--dtype " + dtype + (graph ? " and --graph" : "") +
                           ": the CPU backends run fp32 layer by layer; fp16 and --graph need --backend cuda");
  if (backend == "cuda" && dtype != "fp32" && dtype != "fp16")
    return Status::invalid("--dtype " + dtype + ": the cuda backend runs fp16 or fp32");
  return Status::ok();
}

}  // namespace rooflens::cli
