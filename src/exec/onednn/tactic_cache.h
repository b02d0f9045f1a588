// The implementations tactic selection chose, kept across runs (as TensorRT's timing
// cache): key -> oneDNN implementation name. A key names the machine (CPU model, the ISA
// oneDNN dispatches to, oneDNN's version, threads) and the primitive (its memory
// descriptors, geometry and post-ops), so a cache copied to another machine is never
// used there. The file is ExecOptions::tactic_cache (empty: keep nothing on disk; the CLI
// passes ROOFLENS_TACTIC_CACHE, else $XDG_CACHE_HOME/rooflens/tactics.json or
// ~/.cache/rooflens/tactics.json). An unreadable or foreign file is ignored and replaced:
// it only ever costs a re-timing.
#pragma once

#include <optional>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

namespace rooflens::onednn {

// The machine part of every key.
const std::string& machine_key();

// "f32 acdb 32x64x56x56"-style text of a memory descriptor (dims, type, strides or blocks).
std::string desc_key(const dnnl::memory::desc& md);
// The post-op chain as text (kinds, algorithms, scales).
std::string post_ops_key(const dnnl::post_ops& ops);

// The choice stored under `key` in the cache file `path` ("": the choices of this process).
std::optional<std::string> cached_tactic(const std::string& path, const std::string& key);
// Stores a choice, in the file `path` too unless it is "".
void remember_tactic(const std::string& path, const std::string& key, const std::string& impl);

}  // namespace rooflens::onednn
