// Execution backends (reference, oneDNN, ...): supports -> prepare -> run.
// A backend refuses what it cannot run with a reason; it never skips a node silently,
// and every measurement records which implementation ran.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rooflens/cost/cost.h"
#include "rooflens/exec/tensor.h"
#include "rooflens/util/status.h"

namespace rooflens {

// How a CPU backend lays out 4-D activations between layers: channels-last (NHWC), or
// oneDNN's blocked nChw16c wherever the channel count is a multiple of 16 (channels-last
// elsewhere, with reorders between), or `auto`: each layer in the layout where it ran
// faster when the whole network was timed once in each, reorders included
// (exec/layout_plan.h). Channels-last is the default: on the Zen 5 host the blocked layout
// wins only some pairs (docs/performance.md, "Issue 11: layouts chosen per layer").
enum class ActivationLayout { kChannelsLast, kBlocked, kAuto };
// The layouts by the names the CLI and Python take: "channels-last", "blocked", "auto"
// (activation_layout.cpp); an unknown name is invalid input naming the choices.
inline constexpr const char* kActivationLayoutNames[] = {"channels-last", "blocked", "auto"};
Expected<ActivationLayout> parse_activation_layout(const std::string& name);

struct ExecOptions {
  int threads = 0;         // 0: the backend's default (all cores)
  uint64_t seed = 0x5eed;  // weights generated for stored tensors without data
  // Time each implementation a backend offers for a weighted layer while preparing and
  // keep the fastest (oneDNN: convolutions and inner products); off: the library's first.
  bool tune = true;
  ActivationLayout layout = ActivationLayout::kChannelsLast;
  // With kAuto: per fused layer, 1 where it runs blocked; given, it replaces the timed choice
  // (to replay one, or to test a mix). Empty: chosen by timing.
  std::vector<char> blocked_layers;
  // Let run-time buffers whose lifetimes do not overlap share memory (one arena planned in
  // prepare, buffer_plan.h); off: every activation keeps a buffer of its own.
  bool reuse_buffers = true;
  // The file in which tactic selection keeps its choices across runs (oneDNN's tactic
  // cache); empty: nothing is kept on disk. The library reads no environment: the CLI
  // passes ROOFLENS_TACTIC_CACHE or the user's cache directory (cli/common.h).
  std::string tactic_cache;
  // Run with denormal floats flushed to zero (x86's FTZ and DAZ, on every thread of the run
  // and restored after), as TensorFlow and OpenVINO do: networks whose activations decay
  // towards zero (squeeze-excite gates) otherwise run some layers several times slower on
  // denormal arithmetic. Off: IEEE denormals, as ONNX Runtime and PyTorch run by default.
  bool flush_denormals = true;
};

// Time of one fused layer in the last run, and what implemented it.
struct LayerTiming {
  std::string name;  // the fused layer's name (its anchor node), as in ModelAnalysis
  double time_s = 0;
  std::string impl;  // e.g. "jit:avx2" (oneDNN's implementation string) or "reference"
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Whether the backend can run this node; `reason` says why not.
  virtual bool supports(const Graph& g, NodeId n, std::string* reason) const = 0;
  // Builds everything the runs need (weights reordered once, outside timed loops).
  // `fused` is the fused view of `g` (analyze_graph with FusionMode::kEngine).
  virtual Status prepare(const Graph& g, const ModelAnalysis& fused, const ExecOptions& o) = 0;
  // Runs the graph on inputs in the order of g.inputs; fills outputs in the order of
  // g.outputs (resized as needed). `outputs` may hold poisoned buffers to prove writes.
  virtual Status run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) = 0;
  // Per-layer times of the last run (empty if the backend does not time layers).
  virtual std::vector<LayerTiming> layer_timings() const { return {}; }
  // Bytes of the buffers the runs write, after prepare: as placed (buffers whose lifetimes
  // do not overlap share memory) and with a buffer each; {0, 0} when the backend does not
  // plan its buffers.
  virtual std::pair<size_t, size_t> activation_bytes() const { return {0, 0}; }
  // How the last prepare laid out activations, in a line ("" where the backend has no choice).
  virtual std::string layout_summary() const { return ""; }
  // Whether the runs flush denormal floats to zero (ExecOptions::flush_denormals, where the
  // backend honours it).
  virtual bool flushes_denormals() const { return false; }
  // Device backends keep the inputs of the last run() on the device: run_resident() runs
  // the model again on them without host copies, which is what throughput measures (the
  // host link is a separate question). CPU backends have no such run.
  virtual bool has_resident_run() const { return false; }
  virtual Status run_resident() { return Status::unsupported(name() + " has no device-resident run"); }
  // A new, unprepared backend of the same kind, to run part of a batch beside this one
  // (batch_streams.h); nullptr where the backend cannot run beside another of its kind.
  virtual std::unique_ptr<Backend> fresh() const { return nullptr; }
};

// A fresh backend for each model (the CUDA backend is prepared once per model); the caller
// supplies it, since the CUDA backend is a plugin the library does not link.
using BackendFactory = std::function<Expected<std::unique_ptr<Backend>>()>;

std::unique_ptr<Backend> make_reference_backend();
std::unique_ptr<Backend> make_onednn_backend();  // nullptr when built without oneDNN

}  // namespace rooflens
