// The doctor: the article's checklist (shared/seeds/001_*, study.md section 5) run on one
// model and one device. Each item says whether it applies, with evidence (the layers
// concerned, their share of the model's time, the numbers behind the verdict), and the
// remedies that address it with their gain, each computed by predicting the transformed
// model or setting again (the what-if machinery, analysis/whatif.h) - never a constant.
// Items are ranked by the time the best remedy saves on the whole model (Amdahl: the gain
// is on the model, not on the layers).
//
// Items (numbering of the article's checklist):
//  1 memory-bound layers     layers whose predicted bound is memory (AI below the ridge)
//  2 work starvation         layers that cannot fill the device (waves, wave efficiency)
//  3 waiting for input       input bytes/s the throughput needs against the host link, and
//                            JPEG decode cores (needs DoctorOptions::host_link / jpeg rate)
//  4 copy/compute overlap    host-to-device copy of a batch against its compute time
//  5 specialized units       time on CUDA cores that could run on tensor cores, and why
//  6 unoptimized code        layers measured far above their roofline bound (needs a
//                            measured run: DoctorOptions::measured)
//  7 thermal envelope        clock under sustained load (needs a measurement; otherwise
//                            "cannot tell", naming the measurement)
//  8 heterogeneity           share of time per unit type
//  9 launch overhead         kernels x launch latency against total time; graph capture
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rooflens/analysis/whatif.h"
#include "rooflens/perf/model.h"

namespace rooflens {

enum class Verdict { kApplies, kDoesNotApply, kCannotTell };
std::string_view verdict_name(Verdict v);  // "applies", "does not apply", "cannot tell"

// One layer named as evidence.
struct DoctorLayer {
  std::string name, op;
  double time_share = 0;  // of the model's predicted (or measured) time
  std::string detail;     // the numbers that make it evidence, e.g. "AI 12.3 < ridge 139"
};

// A remedy and what it gains on the whole model, from a prediction of the changed model or
// setting (or a measurement).
struct Remedy {
  std::string name;                                      // "pad channels to 8", "batch 64", "graph capture", ...
  std::string how;                                       // how the gain was obtained ("predicted on the padded graph")
  bool ok = true;                                        // false: could not be computed (note says why)
  double throughput_before = 0, throughput_after = 0;    // images/s
  double utilization_before = 0, utilization_after = 0;  // of the datasheet peak
  double speedup = 1;                                    // throughput_after / throughput_before
  std::string note;                                      // caveats (e.g. "needs retraining")
  // Runs on another device of the database: listed, but not counted when findings are
  // ranked or the largest gain on the device given is chosen (best_remedy).
  bool other_device = false;
  // Share of the model's time saved: 1 - 1 / speedup (0 when it does not help).
  double time_saved() const { return speedup > 1 ? 1 - 1 / speedup : 0; }
};

struct Finding {
  int item = 0;     // 1..9, the checklist number
  std::string key;  // "memory-bound", "starvation", "input", "overlap", "tensor-cores",
                    // "unoptimized", "thermal", "heterogeneity", "launch"
  std::string title;
  Verdict verdict = Verdict::kCannotTell;
  std::string summary;                // one sentence with the main number
  double time_share = 0;              // share of the model's time in the layers concerned
  std::vector<DoctorLayer> layers;    // the largest first, at most DoctorOptions::max_layers
  int64_t layers_total = 0;           // layers concerned, before the cut
  std::vector<std::string> evidence;  // further lines of numbers
  std::vector<Remedy> remedies;       // the best first
  std::string measurement_needed;     // for "cannot tell": what would tell
  double best_time_saved() const;     // over the remedies that are ok
};

// A measured layer (from a measured run on this CPU), matched to the prediction by name.
struct MeasuredLayer {
  std::string name;
  double time_s = 0;
  std::string implementation;  // the backend's primitive, e.g. "brg:avx512_core"
};

struct DoctorOptions {
  WhatIfOptions whatif;  // device, dtype, batch, perf options and the transforms
  // Host-to-device link bandwidth, bytes/s per direction (a GPU's link from the device
  // database); nullopt: items 3 and 4 say "cannot tell".
  std::optional<double> host_link_bytes_per_s;
  std::string host_link_name;
  // JPEG decode rate of this machine, images/s per core, at about the model's input size.
  std::optional<double> jpeg_images_per_s_per_core;
  int host_cores = 0;  // cores of this machine that could decode (0: unknown)
  // Per-layer measured times of a run on the device at the same batch (CPU, --measured).
  std::optional<std::vector<MeasuredLayer>> measured;
  double unoptimized_factor = 2;  // item 6: measured above this multiple of the bound
  // Item 7: the core clock measured right after the measured run (Hz, this CPU), against
  // the device file's clock; below `throttle_factor` x that clock, the envelope applies.
  std::optional<double> clock_measured_hz;
  double throttle_factor = 0.9;
  size_t max_layers = 8;  // layers listed per finding
  // A finding "applies" when the layers concerned hold at least this share of the time.
  double min_time_share = 0.05;
};

struct DoctorReport {
  std::string model;
  Prediction baseline;            // the model as given (device, dtype, batch)
  std::vector<WhatIfRow> whatif;  // every variant predicted (the remedies' source)
  std::vector<Finding> findings;  // applies first, ranked by best_time_saved, then the rest
  // What the reader must know before the findings: the batch does not fit the device
  // (memory_overflow_note, as predict says it).
  std::vector<std::string> warnings;
};

// The largest single gain in a report: over the findings that apply, the remedy that saves
// the most of the model's time. nullopt when none helps.
struct BestRemedy {
  int item = 0;
  std::string finding;  // the finding's key ("tensor-cores", "launch", ...)
  Remedy remedy;
};
std::optional<BestRemedy> best_remedy(const DoctorReport& r);

// Runs the checklist. `load` loads the model at a batch and dtype (as run_whatif's).
// Errors: the baseline cannot be loaded or predicted.
Expected<DoctorReport> run_doctor(const std::string& model, const TypedLoader& load, const DoctorOptions& o);

}  // namespace rooflens
