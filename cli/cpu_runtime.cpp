// The CPU runtime's configuration before libgomp initialises (see cpu_runtime.h).
//
// Why: libgomp's threads spin at every barrier and at the end of every parallel region for
// up to GOMP_SPINCOUNT iterations (300000 by default, when OMP_WAIT_POLICY is unset) before
// they sleep on a futex. oneDNN runs one parallel region per primitive, so on a quiet
// machine the spinning only burns idle cycles; on a shared one (other processes, an OpenMP
// training run, ONNX Runtime's pool) a spinning thread holds a CPU that a thread with work -
// our own other thread, preempted, or the neighbour - needs, and the primitive waits for the
// slowest thread of its static split. A short spin keeps the quiet-machine latency of a
// wake-up (a few microseconds) and yields the CPU soon when there is nothing to do
// (docs/performance.md, "Contention"). The user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT win.
#include "cpu_runtime.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace rooflens::cli {

void configure_cpu_runtime(int argc, char** argv) {
  if (argc < 2) return;
  static const char* const kCpuCommands[] = {"measure", "validate", "probe", "study", "whatif", "doctor"};
  bool runs_cpu = false;
  for (const char* c : kCpuCommands) runs_cpu = runs_cpu || std::strcmp(argv[1], c) == 0;
  if (!runs_cpu) return;
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT") || std::getenv("ROOFLENS_CPU_RUNTIME_SET"))
    return;
  // Marked, so that a failed re-execution (or one whose libgomp ignores the variable) is
  // never repeated.
  setenv("ROOFLENS_CPU_RUNTIME_SET", "1", 1);
  setenv("GOMP_SPINCOUNT", kGompSpinCount, 1);
  execv("/proc/self/exe", argv);  // returns only on failure: carry on with libgomp's defaults
}

}  // namespace rooflens::cli
