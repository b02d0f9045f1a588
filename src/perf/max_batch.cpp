// The largest batch that fits: the general search (perf/model.h) and the affine shortcut
// (perf/max_batch.h).
#include "rooflens/perf/max_batch.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rooflens/perf/model.h"

namespace rooflens {

Expected<int64_t> find_max_batch(const std::function<Expected<int64_t>(int64_t)>& memory_at, double capacity_bytes,
                                 int64_t limit) {
  auto fits = [&](int64_t b) -> Expected<bool> {
    auto mem = memory_at(b);
    if (!mem) return mem.status();
    return static_cast<double>(*mem) <= capacity_bytes;
  };
  auto one = fits(1);
  if (!one) return one.status();
  if (!*one) return Status::invalid("the model does not fit the device's memory even at batch 1");
  int64_t lo = 1, hi = 2;
  while (hi <= limit) {
    auto f = fits(hi);
    if (!f) return f.status();
    if (!*f) break;
    lo = hi;
    hi *= 2;
  }
  if (hi > limit) return lo;
  while (hi - lo > 1) {  // lo fits, hi does not
    const int64_t mid = lo + (hi - lo) / 2;
    auto f = fits(mid);
    if (!f) return f.status();
    (*f ? lo : hi) = mid;
  }
  return lo;
}

Expected<int64_t> find_max_batch_affine(const std::function<Expected<int64_t>(int64_t)>& memory_at,
                                        double capacity_bytes, int64_t limit) {
  auto m1 = memory_at(1);
  if (!m1) return m1.status();
  if (static_cast<double>(*m1) > capacity_bytes)
    return Status::invalid("the model does not fit the device's memory even at batch 1");
  if (limit <= 1) return int64_t{1};
  auto m2 = memory_at(2);
  if (!m2) return m2.status();
  if (static_cast<double>(*m2) > capacity_bytes) return int64_t{1};
  const double slope = static_cast<double>(*m2 - *m1);
  if (slope > 0) {
    const double room = capacity_bytes - static_cast<double>(*m1);
    const int64_t guess = std::clamp<int64_t>(1 + static_cast<int64_t>(std::floor(room / slope)), 2, limit);
    auto at = memory_at(guess);
    if (!at) return at.status();
    if (static_cast<double>(*at) <= capacity_bytes) {
      if (guess == limit) return guess;
      auto next = memory_at(guess + 1);
      if (!next) return next.status();
      if (static_cast<double>(*next) > capacity_bytes) return guess;
    }
  }
  // Not affine after all (or memory does not grow with the batch): the general search.
  return find_max_batch(memory_at, capacity_bytes, limit);
}

std::optional<std::string> memory_overflow_note(const Prediction& p, const DeviceSpec& d) {
  if (static_cast<double>(p.memory_bytes) <= d.mem_bytes - d.reserved_bytes) return std::nullopt;
  return fmt::format("batch {} needs {:.2f} GB: more than the device's {:.1f} GB", p.batch,
                     static_cast<double>(p.memory_bytes) / 1e9, d.mem_bytes / 1e9);
}

}  // namespace rooflens
