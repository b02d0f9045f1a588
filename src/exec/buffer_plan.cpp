// Shared-arena placement of run-time buffers (see buffer_plan.h).
#include "rooflens/exec/buffer_plan.h"

#include <algorithm>
#include <numeric>

namespace rooflens {

BufferPlan plan_buffers(const std::vector<BufferLife>& buffers, size_t align) {
  auto aligned = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
  BufferPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> placed;
  std::vector<std::pair<size_t, size_t>> busy;  // [offset, end) of placed buffers alive with this one
  for (size_t i : order) {
    const BufferLife& b = buffers[i];
    const size_t size = aligned(b.bytes);
    plan.unplanned_bytes += size;
    busy.clear();
    for (size_t j : placed)
      if (!(buffers[j].last < b.first || b.last < buffers[j].first))
        busy.emplace_back(plan.offsets[j], plan.offsets[j] + aligned(buffers[j].bytes));
    std::sort(busy.begin(), busy.end());
    size_t cursor = 0, best = 0, best_gap = 0;
    bool found = false;
    for (const auto& [start, end] : busy) {
      if (start >= cursor + size && (!found || start - cursor < best_gap)) {
        found = true;
        best = cursor;
        best_gap = start - cursor;
      }
      cursor = std::max(cursor, end);
    }
    plan.offsets[i] = found ? best : cursor;
    plan.arena_bytes = std::max(plan.arena_bytes, plan.offsets[i] + size);
    placed.push_back(i);
  }
  return plan;
}

}  // namespace rooflens
