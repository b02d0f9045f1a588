// The timing harness shared by all backends: warm-up, repeats until the spread settles or
// a time cap, median and interquartile range, and a warning when the spread says the
// machine is noisy.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens {

// Past this multiple of TimingOptions::max_seconds measured, min_repeats_past_cap runs suffice.
constexpr double kPastCapMultiple = 4;

struct TimingOptions {
  int warmup = 2;
  // Keep warming up until this much time has passed too: a GPU idling between programs
  // clocks down (an H200 reads 345 MHz idle against 1980 under load) and needs a few
  // hundred milliseconds of work to clock up again.
  double min_warmup_seconds = 0;
  int min_repeats = 5;
  // Measured time before the settle rule may stop: five runs of a 3 ms model settle within
  // 15 ms, short enough for one transient on a shared host to set the median.
  double min_seconds = 0;
  int max_repeats = 200;
  double max_seconds = 10;       // stop repeating after this much measured time
  double settle_rel_iqr = 0.05;  // stop once IQR / median is below this (after min_repeats)
  // A long model's floor (0: off). When one warm-up run alone takes max_seconds (and
  // min_warmup_seconds), warming up ends there; and once kPastCapMultiple x max_seconds have
  // been measured, this many runs suffice though min_repeats asked more. RegNetY-128GF at
  // batch 8 runs 45 s a batch on two Zen 3 cores: two warm-ups and five repeats per block of
  // --max-seconds 0.5 took it 17 minutes in validate, where the cap says half a second.
  int min_repeats_past_cap = 0;
  double noisy_rel_iqr = 0.10;  // warn when the final IQR / median is above this
};

struct TimingResult {
  std::vector<double> samples;  // seconds per run
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
  double rel_iqr() const { return median > 0 ? (q3 - q1) / median : 0; }
  bool noisy = false;
  std::string warning;  // set when noisy
};

// Calls `run_once` (which must return ok) warmup + repeats times; `after_each` sees every
// timed repeat's index (e.g. to collect per-layer times).
Expected<TimingResult> time_runs(const std::function<Status()>& run_once, const TimingOptions& o,
                                 const std::function<void(int)>& after_each = {});

// The timing of one model's measurement as `measure`, `validate` and Python's `measure` take
// it: at most `max_seconds` measured; `warmup_seconds` of untimed runs (negative: the default,
// 1 s on a GPU, which clocks up from idle, else a quarter second or an eighth of the cap).
// On a CPU at least a quarter of the cap (at most 1 s) is measured, as ONNX Runtime's peer
// bench does, and the number of runs is bounded by time alone: a 1 ms model capped at 200
// runs was timed over 0.2 s, short enough for one state of a shared host to set its median.
// A model whose runs outlast the cap far is timed over three runs after one warm-up
// (min_repeats_past_cap).
TimingOptions model_timing(bool gpu, double max_seconds, double warmup_seconds = -1);

// Median and quartiles of samples (linear interpolation).
double quantile(std::vector<double> v, double q);

}  // namespace rooflens
