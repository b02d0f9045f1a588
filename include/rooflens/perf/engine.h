// Engine profiles: which execution of a model a GPU prediction describes (TensorRT, rooflens's
// own CUDA backend, PyTorch eager, PyTorch with CUDA graphs, torch.compile). A profile is
// rules (which fusions apply, which kernels misaligned channels get, whether CUDA-core fp16
// runs at the fp32 rate, whether launches are captured) plus constants (efficiencies, host
// cost per call, the serialized gap per kernel), each with its source. Files:
// data/engines/<id>.json, schema rooflens.engine/1 (data/engines/README.md); this is their
// one reader and writer. docs/perf-model.md, "Engine profiles", says what each term does.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/passes/fuse.h"
#include "rooflens/util/status.h"

namespace rooflens {

// What an engine does with a tensor-core-eligible layer whose channels are not multiples of
// the device's tensor-core multiple (a 3-channel first convolution).
enum class MisalignedTactic {
  kCudaCores,  // a CUDA-core kernel (the model before engine profiles)
  kFastest,    // the faster of a CUDA-core kernel and a tensor-core kernel on padded channels
               // (TensorRT's tactic selection, cudnn.benchmark)
  kHeuristic,  // cuDNN's heuristic: the padded tensor-core kernel only for GEMM rows in
               // [padded_rows_min, padded_rows_max], otherwise the CUDA-core kernel
};

struct EngineProfile {
  std::string id = "tensorrt";
  std::string name = "TensorRT-class engine (the seed study's)";
  std::vector<std::string> applies_to = {"gpu"};  // device kinds ("gpu", "cpu")
  // Which fusions the engine performs (passes/fuse.h decides what each mode fuses).
  FusionMode fusion = FusionMode::kEngine;
  MisalignedTactic misaligned = MisalignedTactic::kCudaCores;
  int64_t padded_rows_min = 0, padded_rows_max = 0;  // kHeuristic only
  // CUDA-core fp16 computes at the fp32 rate (cuDNN's PSEUDO_HALF configuration).
  bool pseudo_half = false;
  // Share of the CUDA-core peak a convolution with fewer input channels per group than the
  // tensor-core multiple reaches (a direct 7x7 kernel over 3 channels).
  double small_channel_efficiency = 1;
  // Tensor-core convolutions with fewer input channels per group than this gather their
  // operands tap by tap: rate x channels / this (0: no such loss).
  int tc_full_rate_channels = 0;
  double gemm_efficiency = 1;       // tensor-core GEMM/convolution share of the modelled rate
  double cuda_core_efficiency = 1;  // CUDA-core GEMM/convolution (aligned channels) share of the peak
  double depthwise_efficiency = 1;  // depthwise convolutions' share of the modelled rate
  double memory_efficiency = 0;     // share of datasheet DRAM bandwidth (0: device/PerfOptions default)
  double kernel_gap_s = 10e-6;      // serialized GPU-side cost per kernel
  // Host cost per call when launches are not captured: the host issues layer i after
  // layer i-1, and a kernel starts no earlier than its issue (perf/layer_sequence.h).
  double host_library_call_s = 0;              // a cuDNN/cuBLAS call (convolution, GEMM)
  double host_kernel_call_s = 0;               // any other kernel
  bool captured = true;                        // launches captured (CUDA graph, an engine): no host cost
  std::map<std::string, std::string> sources;  // constant or rule -> where it comes from
  std::string file;                            // the file it was read from ("" built in)

  bool applies_to_kind(const std::string& kind) const;
  // One line naming the engine for outputs ("engine: tensorrt (...)").
  std::string describe() const;
};

std::string_view misaligned_tactic_name(MisalignedTactic t);
std::string_view fusion_mode_name(FusionMode m);

Expected<EngineProfile> parse_engine_json(const std::string& text, const std::string& file);
Expected<EngineProfile> load_engine_file(const std::string& path);
nlohmann::ordered_json engine_json(const EngineProfile& e);
// Every data/engines-style *.json in `dir`, sorted by id.
Expected<std::vector<EngineProfile>> load_engine_dir(const std::string& dir);
// The profile named `id` in `db`; invalid input naming the known ids when there is none.
Expected<EngineProfile> find_engine(const std::string& id, const std::vector<EngineProfile>& db);
// Invalid input when `e` does not apply to the device's kind (pytorch-compile on a CPU).
Status check_engine_applies(const EngineProfile& e, const DeviceSpec& d);
// The engine a prediction on `dev` describes, by id (looked up in `engines_dir`, data/engines)
// or by an engine .json file; empty: the default (tensorrt on a GPU, none on a CPU). Invalid
// input for an unknown id or an engine that does not apply to the device.
Expected<EngineProfile> resolve_engine(const std::string& id_or_file, const DeviceSpec& dev,
                                       const std::string& engines_dir);

}  // namespace rooflens
