// Per-primitive dispatch overhead of the oneDNN CPU backend: the time to execute a
// primitive with almost no work (a ReLU over 64 floats) on `threads` threads. It is the
// CPU counterpart of a GPU's kernel launch overhead in the performance model.
#pragma once

#include "rooflens/util/status.h"

namespace rooflens {

struct DispatchOverhead {
  double median_s = 0, best_s = 0;
  int samples = 0;
};

// Unavailable when built without oneDNN.
Expected<DispatchOverhead> measure_onednn_dispatch(int threads);

}  // namespace rooflens
