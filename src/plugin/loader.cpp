// Finding and loading the plugins (plugin.h): dlopen beside the program, then in the build tree.
#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rooflens/plugin/plugin.h"

#ifndef ROOFLENS_VERSION
#error "ROOFLENS_VERSION must be defined (CMakeLists.txt)"
#endif

namespace rooflens::plugin {
namespace {

// Which plugins this build made (ROOFLENS_PLUGIN_* from CMakeLists.txt), and why not.
Status not_built(Kind kind) {
  switch (kind) {
    case Kind::kCuda:
#ifndef ROOFLENS_PLUGIN_CUDA
      return Status::unavailable(
          "rooflens was built without CUDA (nvcc, cuBLAS or cuDNN not found at configure "
          "time, or a sanitizer/fuzz build): no CUDA plugin");
#else
      break;
#endif
    case Kind::kTorch:
#ifndef ROOFLENS_PLUGIN_TORCH
      return Status::unsupported(
          "rooflens was built without LibTorch (find_package(Torch) failed at configure "
          "time, or a sanitizer/fuzz build; install libtorch-dev and reconfigure): no "
          "LibTorch plugin, the training oracle cannot train");
#else
      break;
#endif
    case Kind::kMpi:
#ifndef ROOFLENS_PLUGIN_MPI
      return Status::unsupported(
          "rooflens was built without MPI (install libopenmpi-dev and reconfigure, or a "
          "sanitizer/fuzz build): no MPI plugin");
#else
      break;
#endif
  }
  return Status::ok();
}

// dlopen + the entry point + the version check of one file; the error says what failed.
Expected<const Table*> open_file(Kind kind, const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = ::dlerror();
    return Status::unavailable(e != nullptr ? e : "dlopen failed");
  }
  auto entry = reinterpret_cast<RooflensPluginEntry>(::dlsym(handle, kEntryName));
  if (entry == nullptr) {
    const char* e = ::dlerror();
    return Status::unavailable(fmt::format("no {}: {}", kEntryName, e != nullptr ? e : "dlsym failed"));
  }
  const Table* t = entry();
  // The handle stays open for the process: the plugin's code runs until exit.
  if (t == nullptr || t->api_version != kApiVersion || t->rooflens_version == nullptr ||
      std::string(t->rooflens_version) != ROOFLENS_VERSION)
    return Status::unavailable(
        fmt::format("from another build (plugin API {}, rooflens {}; this program: API {}, rooflens {})",
                    t != nullptr ? t->api_version : 0, t != nullptr && t->rooflens_version ? t->rooflens_version : "?",
                    kApiVersion, ROOFLENS_VERSION));
  const bool has_api = (kind == Kind::kCuda && t->cuda != nullptr) || (kind == Kind::kTorch && t->torch != nullptr) ||
                       (kind == Kind::kMpi && t->mpi != nullptr);
  if (!has_api) return Status::unavailable(fmt::format("its table has no {} part", name_of(kind)));
  return t;
}

Expected<const Table*> find_and_open(Kind kind) {
  if (Status s = not_built(kind); !s) return s;
  const std::string file = file_of(kind);
  std::vector<std::string> tried;
  for (const std::string& dir : search_dirs()) {
    const std::string path = (std::filesystem::path(dir) / file).string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried.push_back(fmt::format("{} (not there)", path));
      continue;
    }
    auto t = open_file(kind, path);
    if (t) return t;
    // Found but not loadable (a missing libcudnn, libtorch, libmpi): that is the answer.
    return Status::unavailable(
        fmt::format("the {} plugin {} cannot be loaded: {}", name_of(kind), path, t.status().message()));
  }
  std::string where;
  for (const auto& t : tried) where += (where.empty() ? "" : "; ") + t;
  return Status::unavailable(fmt::format("the {} plugin {} is not installed: looked for {}", name_of(kind), file,
                                         where.empty() ? "it nowhere (no directory to search)" : where));
}

}  // namespace

const char* name_of(Kind kind) {
  switch (kind) {
    case Kind::kCuda: return "cuda";
    case Kind::kTorch: return "torch";
    case Kind::kMpi: return "mpi";
  }
  return "?";
}

std::string file_of(Kind kind) { return fmt::format("librooflens-{}.so", name_of(kind)); }

std::vector<std::string> search_dirs() {
  std::vector<std::string> dirs;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(self.parent_path().string());
#ifdef ROOFLENS_PLUGIN_BUILD_DIR
  const std::string build_dir = ROOFLENS_PLUGIN_BUILD_DIR;
  if (dirs.empty() || dirs.front() != build_dir) dirs.push_back(build_dir);
#endif
  return dirs;
}

Expected<const Table*> load(Kind kind) {
  struct Slot {
    std::once_flag once;
    Expected<const Table*> answer = Status::internal("plugin not loaded");
  };
  static Slot slots[3];
  Slot& slot = slots[static_cast<int>(kind)];
  std::call_once(slot.once, [&] { slot.answer = find_and_open(kind); });
  return slot.answer;
}

}  // namespace rooflens::plugin
