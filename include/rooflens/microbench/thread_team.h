// A small team of pinned threads for the probe: the caller is member 0, the others are
// persistent workers, each pinned to one logical CPU (pthread_setaffinity_np). run() starts a
// parallel region on every member and returns when all have finished: the
// fork/join a threaded inference engine pays per primitive, and what the probe's dispatch
// overhead measures. Workers spin briefly after a region, then sleep (std::atomic::wait).
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens::microbench {

class ThreadTeam {
 public:
  using Fn = void (*)(void* ctx, int member);

  // cpus[i] is the logical CPU of member i; the calling thread is pinned to cpus[0] until
  // the team is destroyed (its previous affinity is restored then). Unavailable when a
  // thread cannot be created or pinned.
  static Expected<std::unique_ptr<ThreadTeam>> create(const std::vector<int>& cpus);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(cpus_.size()); }
  // Runs fn(ctx, m) for m in [0, size()) concurrently (member 0 on the caller) and waits.
  void run(Fn fn, void* ctx);

  template <typename F>
  void run(F& f) {
    run([](void* c, int m) { (*static_cast<F*>(c))(m); }, &f);
  }

 private:
  explicit ThreadTeam(std::vector<int> cpus) : cpus_(std::move(cpus)) {}
  void worker(int member);

  std::vector<int> cpus_;
  std::vector<std::thread> threads_;
  std::atomic<uint32_t> generation_{0};  // 32-bit: std::atomic::wait maps to a futex
  std::atomic<int> remaining_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> pin_failures_{0};
  std::atomic<int> started_{0};
  Fn fn_ = nullptr;  // written before generation_ is bumped, read after (release/acquire)
  void* ctx_ = nullptr;
  std::vector<int> saved_affinity_;
};

// Pins the calling thread to one logical CPU; false on failure.
bool pin_current_thread(int cpu);

}  // namespace rooflens::microbench
