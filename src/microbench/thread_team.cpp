// Pinned fork/join thread team for the probe (see thread_team.h).
#include "rooflens/microbench/thread_team.h"

#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <string>
#include <system_error>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rooflens::microbench {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

// How long a waiting thread spins before it sleeps: long enough that back-to-back regions
// (the dispatch-overhead loop) never sleep, short enough not to steal a shared CPU for long.
constexpr auto kSpin = std::chrono::microseconds(200);

// Spins until pred() or the budget runs out; true when pred() held.
template <typename Pred>
bool spin_until(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (pred()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() > deadline) return pred();
  }
}

}  // namespace

bool pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

Expected<std::unique_ptr<ThreadTeam>> ThreadTeam::create(const std::vector<int>& cpus) {
  if (cpus.empty()) return Status::invalid("a thread team needs at least one CPU");
  std::unique_ptr<ThreadTeam> t(new ThreadTeam(cpus));
  cpu_set_t old;
  CPU_ZERO(&old);
  if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &old)) t->saved_affinity_.push_back(c);
  if (!pin_current_thread(cpus[0]))
    return Status::unavailable("cannot pin the probe thread to CPU " + std::to_string(cpus[0]));
  try {
    for (size_t m = 1; m < cpus.size(); ++m)
      t->threads_.emplace_back([tp = t.get(), m] { tp->worker(static_cast<int>(m)); });
  } catch (const std::system_error& e) {
    return Status::unavailable(std::string("cannot start a probe thread: ") + e.what());  // ~ThreadTeam joins
  }
  while (t->started_.load(std::memory_order_acquire) < static_cast<int>(cpus.size()) - 1) std::this_thread::yield();
  if (t->pin_failures_.load() > 0)
    return Status::unavailable("cannot pin " + std::to_string(t->pin_failures_.load()) +
                               " probe thread(s) to their CPUs (pthread_setaffinity_np)");
  return t;
}

ThreadTeam::~ThreadTeam() {
  stop_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  for (auto& th : threads_)
    if (th.joinable()) th.join();
  if (!saved_affinity_.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : saved_affinity_) CPU_SET(c, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }
}

void ThreadTeam::worker(int member) {
  if (!pin_current_thread(cpus_[member])) pin_failures_.fetch_add(1);
  uint32_t seen = generation_.load(std::memory_order_acquire);
  started_.fetch_add(1, std::memory_order_release);
  for (;;) {
    if (!spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; })) {
      generation_.wait(seen, std::memory_order_acquire);
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    fn_(ctx_, member);
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) remaining_.notify_one();
  }
}

void ThreadTeam::run(Fn fn, void* ctx) {
  if (cpus_.size() == 1) {
    fn(ctx, 0);
    return;
  }
  fn_ = fn;
  ctx_ = ctx;
  remaining_.store(size() - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  fn(ctx, 0);
  for (;;) {
    if (spin_until([&] { return remaining_.load(std::memory_order_acquire) == 0; })) return;
    const int r = remaining_.load(std::memory_order_acquire);
    if (r == 0) return;
    remaining_.wait(r, std::memory_order_acquire);
  }
}

}  // namespace rooflens::microbench
