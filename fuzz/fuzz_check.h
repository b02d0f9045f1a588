// A failed property in a fuzz target: print what broke and abort, so libFuzzer keeps the
// input as a crash reproducer (a plain error Status is never a failure).
#pragma once

#include <cstdio>
#include <cstdlib>

#define ROOFLENS_FUZZ_CHECK(cond, what)                                                    \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__, __LINE__, what); \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)
