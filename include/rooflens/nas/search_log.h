// The JSONL log of one search run, and resuming a run from it.
//
// One file per run (strategy, seed). Line 1 is the header (schema rooflens.nas-log/1, the
// run's configuration and what the oracle and the space table are); then one line per
// evaluation in order (step, index, arch, accuracy, cost_s, clock_s, throughput,
// utilization, reward, oracle_seed); the last line, once the run is over, is the result
// ({"done": true, ..., "frontier": [...]}). Numbers are written in their shortest
// round-trip form, so a line read back gives exactly the doubles that were written.
//
// Each line goes to the file in one write(2) on an O_APPEND descriptor, so a run killed at
// any point (SIGKILL included) leaves whole lines plus at most one partial last line.
// Resuming: the header must match the new run's header byte for byte (else invalid input:
// the log belongs to another run); a partial last line is cut off; the strategy runs again
// from the start with the same seed, takes accuracy and cost of the logged steps from the
// log (checking that each step asks for the same network with the same oracle seed and
// that the re-created line equals the logged one), and asks the oracle only from the first
// step not logged. The file then ends exactly as an uninterrupted run's would.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rooflens/nas/async_search.h"
#include "rooflens/nas/search.h"
#include "rooflens/util/status.h"

namespace rooflens::nas {

// The header line (no newline) for a run; `oracle` and `space` are one-line descriptions.
std::string search_log_header(const SearchConfig& config, const std::string& oracle, const std::string& space);
// One evaluation line (no newline).
std::string search_log_line(const EvalRecord& record);
// The closing line (no newline).
std::string search_log_done(const SearchResult& result);
// A line recording an evaluation lost with its worker (asynchronous runs, async_search.h), written
// when the loss is noticed: {"lost": true, "index", "arch", "oracle_seed", "start_s", "where", "reason"}.
// Readers skip it (LoggedRun::lost_lines); the closing line lists the lost networks again.
std::string search_log_lost(const LostEvaluation& lost);

struct LoggedRun {
  std::string header;
  std::vector<EvalRecord> evaluations;
  std::vector<std::string> lines;  // the evaluation lines as written
  bool done = false;
  std::string done_line;
  int64_t dropped_partial_bytes = 0;    // bytes of a partial last line (cut off when resuming)
  std::vector<std::string> lost_lines;  // search_log_lost lines, as written
};

// Reads a log. Invalid input (naming file:line) on a malformed line other than a partial
// last one, a missing header, a step out of sequence, or a line after the closing line.
Expected<LoggedRun> read_search_log(const std::string& path);

struct LoggedSearch {
  SearchResult result;
  int64_t replayed_steps = 0;  // steps taken from an existing log
  bool was_complete = false;   // the log already held the closing line
};

// Runs `config` and logs it to `path`.
//  resume == false: the file is created (an existing file is invalid input: pass resume or
//                   remove it; a finished log is never overwritten by accident).
//  resume == true:  continues the log at `path` as described above; a missing file starts a
//                   fresh run.
//  measure:         when set, each evaluated network's throughput and utilization are measured
//                   (oracle_source); replayed steps take them from the log instead.
//  progress:        when set, called after each step taken live (not replayed) is logged, e.g. to
//                   report progress of slow oracles; a non-ok Status stops the run.
Expected<LoggedSearch> run_logged_search(const SearchConfig& config, const SpaceTable& space, AccuracyOracle& oracle,
                                         const std::string& oracle_description, const std::string& path, bool resume,
                                         ThroughputFn measure = {}, EvalSink progress = {});

// An asynchronous run (async_search.h) on `pool`, logged to `path` like run_logged_search: the
// same header (its oracle description should say how the run was spread), a line per
// evaluation in arrival order, a search_log_lost line per lost evaluation as it is noticed,
// the closing line. The file must not exist (invalid input otherwise): an asynchronous run's
// order depends on arrival times, so it cannot be replayed step by step; resuming is refused
// by the caller (docs/nas.md: rerun with the same results database instead).
// `progress` and `on_lost` are called after the line is written.
Expected<SearchResult> run_logged_async_search(const SearchConfig& config, const SpaceTable& space, EvalPool& pool,
                                               const std::string& oracle_description, const std::string& path,
                                               EvalSink progress = {}, LostSink on_lost = {});

}  // namespace rooflens::nas
