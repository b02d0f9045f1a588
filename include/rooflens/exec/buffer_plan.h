// Placement of run-time buffers in one shared arena (what inference engines call a memory
// plan): buffers whose lifetimes do not overlap share bytes, so a network's working set
// is the few activations alive at once instead of every activation it ever writes, and a
// layer writes into memory a recent layer has just read (still in cache) rather than into
// a buffer last touched a whole run ago.
#pragma once

#include <cstddef>
#include <vector>

namespace rooflens {

// A buffer's size and the steps (in execution order, inclusive) that read or write it.
struct BufferLife {
  size_t bytes = 0;
  int first = 0;
  int last = 0;
};

struct BufferPlan {
  std::vector<size_t> offsets;  // per buffer, in the input order; multiples of `align`
  size_t arena_bytes = 0;       // bytes the arena needs
  size_t unplanned_bytes = 0;   // the sum of the buffers' sizes (each aligned): no sharing
};

// Greedy by size (largest first), each buffer into the smallest gap between buffers whose
// lifetimes overlap its own, else after the last of them. Two buffers touched by the same
// step always overlap, so no step reads and writes shared bytes unless it names one buffer
// for both. `align` must be a power of two.
BufferPlan plan_buffers(const std::vector<BufferLife>& buffers, size_t align);

}  // namespace rooflens
