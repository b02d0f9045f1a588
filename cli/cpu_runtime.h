// The CPU runtime's configuration that must be in place before GNU OpenMP (libgomp, which
// Debian's oneDNN runs on) initialises: libgomp reads its environment once, in a constructor
// that runs when the program is loaded, before main. See cpu_runtime.cpp for why.
#pragma once

namespace rooflens::cli {

// How long an idle OpenMP thread spins at a barrier before it sleeps, in libgomp's spin
// iterations (GOMP_SPINCOUNT); libgomp's default is 300000 (~0.1-1 ms).
inline constexpr const char* kGompSpinCount = "10000";

// When neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set by the user and the command runs
// the CPU backend, sets GOMP_SPINCOUNT and executes the program again (same argv) so that
// libgomp reads it. Returns only when nothing had to be done or the re-execution failed.
void configure_cpu_runtime(int argc, char** argv);

}  // namespace rooflens::cli
