// The backend a measuring command runs (--backend, --dtype, --graph) and, for the CUDA
// backend, the GPU at hand and its database entry. Shared by measure, validate, study and
// doctor so that each maps the same flags to the same backend.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "rooflens/exec/backend.h"
#include "rooflens/util/status.h"

namespace rooflens::cli {

struct BackendChoice {
  std::string name = "cpu";  // cpu (oneDNN), onednn, reference, cuda
  DType dtype = DType::kF32;
  bool graph = false;  // cuda: replay as one CUDA graph
};

// A fresh backend (the CUDA backend is prepared once per model, so each model gets its own):
// unavailable with the runtime's reason ("no CUDA device: ...") when the GPU is missing.
Expected<std::unique_ptr<Backend>> make_backend(const BackendChoice& c);
// make_backend(c) as the library's measuring calls take it (exec/backend.h).
inline BackendFactory backend_factory(const BackendChoice& c) {
  return [c] { return make_backend(c); };
}

// The GPU that --backend cuda runs on: its name, and the device id to predict with: `device`
// unless it is empty or "this-cpu", then the database entry of that name. Unavailable
// ("no CUDA device: ...") without one.
struct GpuAtHand {
  std::string name;
  std::string device;
};
Expected<GpuAtHand> gpu_at_hand(const std::string& device, const std::string& devices_dir_override);

// The checks a measured run shares: --dtype fp16 and --graph only with --backend cuda.
Status check_backend_flags(const std::string& backend, const std::string& dtype, bool graph);

}  // namespace rooflens::cli
