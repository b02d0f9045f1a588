// Plugins: the parts of rooflens that need heavy libraries are shared libraries that the one
// `rooflens` program loads with dlopen the first time a command needs them, as ONNX Runtime
// loads its execution providers. So every other command starts without loading CUDA (about
// 170 ms of loading and relocation per process), LibTorch or Open MPI, and a machine without
// them runs everything else.
//
//   plugin  file                 holds                                  needs
//   cuda    librooflens-cuda.so  the CUDA backend, the GPU probe         cuDNN, cuBLAS (libcuda at run time)
//   torch   librooflens-torch.so the trainer of the training oracle     LibTorch
//   mpi     librooflens-mpi.so   spreading NAS training over MPI ranks  Open MPI
//
// The program reaches a plugin only through the functions it already declares
// (make_cuda_backend and cuda_device_info in exec/cuda.h, run_gpu_probe in
// microbench/gpu_probe.h, the trainer in train/trainer.h, dist/mpi_pool.h): in the program
// those load the plugin (load() below) and call through its table; a plugin links the real
// implementations (which tests link directly). When a plugin is missing or cannot load, they
// answer with load()'s status: the plugin, every path tried and dlerror().
//
// Plugin API: each plugin exports one C function, kEntryName, returning its Table. The table
// is C++ (the plugin is built with the program, from the same headers); api_version and
// rooflens_version must equal the program's, else the plugin is refused as another build's.
// A plugin's own symbols are local to it (linked -Bsymbolic with --exclude-libs=ALL); what it
// uses of the core (Graph, Status, the train oracle, ...) it takes from the program, which
// exports its symbols for that (CMakeLists.txt, "CLI").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rooflens/dist/mpi_pool.h"
#include "rooflens/exec/cuda.h"
#include "rooflens/microbench/gpu_probe.h"
#include "rooflens/train/trainer.h"
#include "rooflens/util/status.h"

namespace rooflens::plugin {

// Bumped whenever a table below changes.
inline constexpr int kApiVersion = 2;
inline constexpr const char* kEntryName = "rooflens_plugin_table";

enum class Kind { kCuda, kTorch, kMpi };

struct CudaApi {
  Expected<CudaDeviceInfo> (*device_info)(int device);
  Expected<std::unique_ptr<Backend>> (*make_backend)(const CudaBackendOptions& options);
  Expected<microbench::GpuProbeResult> (*run_gpu_probe)(const microbench::GpuProbeOptions& options);
  bool (*supports)(const Graph& g, NodeId n, std::string* reason);
};

struct TorchApi {
  std::string (*versions)();
  Expected<int64_t> (*param_count)(const Graph& net);
  Expected<train::TrainResult> (*train_and_evaluate)(const Graph& net, const train::ImageDataset& train_set,
                                                     const train::ImageDataset& test_set,
                                                     const train::TrainRecipe& recipe, uint64_t seed);
};

// dist::MpiSession's members, in the plugin: `finish` is the destructor's work (stop the
// workers, join the heartbeat thread, MPI_Finalize), the program's destructor calls it.
struct MpiApi {
  Expected<std::unique_ptr<dist::MpiSession>> (*start)();
  void (*finish)(dist::MpiSession& session);
  std::string (*host)(const dist::MpiSession& session);
  void (*mark_lost)(dist::MpiSession& session, int rank);
  bool (*is_lost)(const dist::MpiSession& session, int rank);
  void (*stop_workers)(dist::MpiSession& session);
  Expected<std::unique_ptr<nas::EvalPool>> (*make_pool)(dist::MpiSession& session, nas::DistributableOracle& oracle,
                                                        const std::string& spec, dist::MpiPoolOptions options);
  Status (*run_worker)(dist::MpiSession& session, const dist::MpiWorkerOptions& options);
};

// What a plugin's entry point returns; the pointers of the plugin's kind are set, the others null.
struct Table {
  int api_version = 0;                     // kApiVersion of the plugin's build
  const char* rooflens_version = nullptr;  // the plugin's rooflens version
  const char* name = nullptr;              // "cuda", "torch", "mpi"
  const CudaApi* cuda = nullptr;
  const TorchApi* torch = nullptr;
  const MpiApi* mpi = nullptr;
};

// "cuda", "torch", "mpi".
const char* name_of(Kind kind);
// "librooflens-cuda.so", ...
std::string file_of(Kind kind);
// Where plugins are looked for, in order: the directory of the running program, then the
// build tree's plugin directory (for test programs under build/tests), without repeats.
std::vector<std::string> search_dirs();

// The table of plugin `kind`, loaded on first use (thread-safe; the answer, table or error, is
// kept for the process). Errors:
//   built without it: CUDA unavailable, LibTorch and MPI unsupported (the configure step did
//     not find them; the message says what to install);
//   not found or not loadable: unavailable, naming the plugin, each path tried with dlerror();
//   another build's plugin (API or rooflens version differs): unavailable, naming both.
Expected<const Table*> load(Kind kind);

}  // namespace rooflens::plugin

extern "C" {
// The one symbol a plugin exports (kEntryName).
using RooflensPluginEntry = const rooflens::plugin::Table* (*)();
}
