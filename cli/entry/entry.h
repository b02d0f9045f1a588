// Which rooflens program runs a command. Two programs share the whole command line:
// `rooflens` links neither CUDA nor LibTorch, so it starts in milliseconds (the CUDA
// libraries alone cost about 170 ms of loading and relocation per process); `rooflens-full`
// adds the CUDA backend, the GPU probe and the LibTorch trainer. `rooflens` hands the
// commands that need them to `rooflens-full` beside it (see light.cpp); run directly, each
// program does what it was built with and its stubs explain what is missing.
#pragma once

namespace rooflens::cli {

// In `rooflens`: if the arguments ask for CUDA or LibTorch and `rooflens-full` sits in the
// same directory, replaces this process with it (same arguments); otherwise returns.
// In `rooflens-full`: returns at once.
void run_elsewhere_if_needed(int argc, char** argv);

// True when the arguments name the CUDA backend, the GPU probe or the training oracle.
bool needs_full_program(int argc, const char* const* argv);

}  // namespace rooflens::cli
