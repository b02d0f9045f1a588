// The shared-arena placement of run-time buffers (exec/buffer_plan.h).
#include <gtest/gtest.h>

#include <random>

#include "rooflens/exec/buffer_plan.h"

namespace rooflens {
namespace {

bool overlap_in_time(const BufferLife& a, const BufferLife& b) { return !(a.last < b.first || b.last < a.first); }

// No two buffers alive at the same step share a byte; every offset is aligned and inside
// the arena.
void expect_valid(const std::vector<BufferLife>& bufs, const BufferPlan& p, size_t align) {
  ASSERT_EQ(p.offsets.size(), bufs.size());
  for (size_t i = 0; i < bufs.size(); ++i) {
    EXPECT_EQ(p.offsets[i] % align, 0u);
    EXPECT_LE(p.offsets[i] + bufs[i].bytes, p.arena_bytes);
    for (size_t j = i + 1; j < bufs.size(); ++j) {
      if (!overlap_in_time(bufs[i], bufs[j])) continue;
      const bool apart = p.offsets[i] + bufs[i].bytes <= p.offsets[j] || p.offsets[j] + bufs[j].bytes <= p.offsets[i];
      EXPECT_TRUE(apart) << "buffers " << i << " and " << j << " are alive together and share bytes";
    }
  }
}

TEST(BufferPlan, AChainNeedsOnlyTwoBuffersAtATime) {
  // A plain chain: step s reads buffer s-1 and writes buffer s.
  std::vector<BufferLife> bufs;
  for (int s = 0; s < 10; ++s) bufs.push_back({1000, s, s + 1});
  const BufferPlan p = plan_buffers(bufs, 64);
  expect_valid(bufs, p, 64);
  EXPECT_EQ(p.arena_bytes, 2 * 1024u);  // two buffers of 1000 bytes, each rounded up to 1024
  EXPECT_EQ(p.unplanned_bytes, 10 * 1024u);
}

TEST(BufferPlan, ALongLivedBufferKeepsItsBytes) {
  // A residual: buffer 0 is read again at step 5; the blocks in between reuse each other's
  // bytes but never buffer 0's.
  std::vector<BufferLife> bufs = {{4096, 0, 5}, {4096, 1, 2}, {4096, 2, 3}, {4096, 3, 4}, {4096, 4, 5}, {4096, 5, 6}};
  const BufferPlan p = plan_buffers(bufs, 64);
  expect_valid(bufs, p, 64);
  EXPECT_EQ(p.arena_bytes, 3 * 4096u);
}

TEST(BufferPlan, RandomLifetimesNeverShareLiveBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<BufferLife> bufs;
    const int n = 5 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const int first = static_cast<int>(rng() % 100);
      bufs.push_back({1 + rng() % 100000, first, first + static_cast<int>(rng() % 20)});
    }
    const BufferPlan p = plan_buffers(bufs, 64);
    expect_valid(bufs, p, 64);
    EXPECT_LE(p.arena_bytes, p.unplanned_bytes);
    // The arena holds at least the bytes alive at the busiest step.
    size_t peak = 0;
    for (int s = 0; s < 120; ++s) {
      size_t live = 0;
      for (const auto& b : bufs)
        if (b.first <= s && s <= b.last) live += (b.bytes + 63) / 64 * 64;
      peak = std::max(peak, live);
    }
    EXPECT_GE(p.arena_bytes, peak);
  }
}

}  // namespace
}  // namespace rooflens
