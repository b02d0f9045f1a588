// Whether the machine was contended while a measurement ran: the kernel's own accounts of
// this process's threads (time runnable but waiting for a CPU, /proc/self/task/*/schedstat),
// CPU time against wall time, hypervisor steal and the run queue (/proc/stat). A measuring
// tool that collapses when a neighbour wakes up measures its neighbour; this says so.
//
// The sampler is an interface so that the assessment is tested on injected samples, not on
// whatever load a CI machine happens to carry.
#pragma once

#include <memory>
#include <string>

namespace rooflens {

// One reading of the host and of this process, all counters cumulative since boot or start.
struct HostSample {
  double wall_s = 0;       // steady clock
  double cpu_s = 0;        // CPU time of this process, all threads
  double run_delay_s = 0;  // summed over this process's threads: runnable, waiting for a CPU
  double steal_s = 0;      // hypervisor steal summed over all CPUs
  int procs_running = 0;   // runnable tasks on the machine at the reading, this one included
  int cpus = 0;            // online CPUs
  bool has_run_delay = false;
  bool has_steal = false;
};

// Thresholds of the verdict.
struct ContentionOptions {
  // Share of the measuring threads' time spent runnable but not running above which the
  // measurement is called contended: 0.10 means a tenth of the time the threads wanted a
  // CPU that someone else held.
  double max_wait_share = 0.10;
  // Share of all CPUs' time stolen by the hypervisor above which the host is contended.
  double max_steal_share = 0.05;
};

// What two readings around a block of runs say.
struct ContentionReport {
  bool contended = false;
  double wait_share = 0;   // run_delay / (wall x threads)
  double cpu_share = 0;    // CPU time / (wall x threads): below 1 when threads waited or slept
  double steal_share = 0;  // steal / (wall x cpus)
  int other_runnable = 0;  // runnable tasks beside this reading's own thread, at the later reading
  double wall_s = 0;
  std::string summary;  // one line: the figures and, when contended, why
};

// Pure: the assessment of the interval [before, after] for `threads` measuring threads.
ContentionReport assess_contention(const HostSample& before, const HostSample& after, int threads,
                                   const ContentionOptions& o = {});

class HostSampler {
 public:
  virtual ~HostSampler() = default;
  virtual HostSample sample() = 0;
};

// Reads /proc (schedstat of every thread of this process, /proc/stat) and the clocks.
std::unique_ptr<HostSampler> make_proc_host_sampler();

// Parsers of the /proc texts (exposed for tests). schedstat: "run_ns wait_ns slices";
// returns the wait in seconds, or a negative number when the text is not one.
double parse_schedstat_wait(const std::string& text);
// /proc/stat: steal seconds summed over CPUs (field 8 of the "cpu " line, in USER_HZ ticks
// of `ticks_per_s`), procs_running; false when the "cpu " line is missing.
bool parse_proc_stat(const std::string& text, double ticks_per_s, double* steal_s, int* procs_running);

}  // namespace rooflens
