// bench/handoff: two threads hand a buffer back and forth, as a 2-thread inference team hands
// activations from one layer to the next. Step s: thread s % 2 rewrites the whole buffer,
// both meet at a spinning barrier, the other thread reads it, both meet again. Prints the
// median over blocks of the nanoseconds per step.
//
// On the 2-vCPU cloud guest of issue 30 it reads in two modes (about 10 us or 20-60 us per
// step for 64 KiB) that follow the host's state, and its ~10 us mode coincided with the slow
// windows of EfficientNet-B0 and ShuffleNet V2 at two threads, which the per-thread readings
// (FMA loop, L2, L3, DRAM) do not see (docs/performance.md, "Issue 30, sixth pass";
// bench/handoff_vs_model.sh alternates it with a model's measurement). The modes need the
// waiter to spin: a waiter that yields after a few thousand spins reads one steady value.
//
// Usage: rooflens_handoff [KIB=64] [STEPS=400] [BLOCKS=5]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

std::atomic<int> arrived{0}, generation{0};

void barrier() {
  const int g = generation.load();
  if (arrived.fetch_add(1) == 1) {
    arrived.store(0);
    generation.fetch_add(1);
  } else {
    while (generation.load() == g) {
    }
  }
}

volatile float sink = 0;

// One member of the pair over `steps` hand-offs of buf[0..n).
void member(int me, float* buf, size_t n, int steps) {
  float acc = 0;
  for (int s = 0; s < steps; ++s) {
    if (s % 2 == me)
      for (size_t i = 0; i < n; ++i) buf[i] += 1.0f;
    barrier();
    if (s % 2 != me)
      for (size_t i = 0; i < n; i += 16) acc += buf[i];
    barrier();
  }
  sink = sink + acc;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t kib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 400;
  const int blocks = argc > 3 ? std::atoi(argv[3]) : 5;
  if (kib == 0 || steps <= 0 || blocks <= 0) {
    std::fprintf(stderr, "usage: rooflens_handoff [KIB>0] [STEPS>0] [BLOCKS>0]\n");
    return 2;
  }
  const size_t n = kib * 1024 / sizeof(float);
  std::vector<float> buf(n, 1.0f);
  std::vector<double> ns;
  for (int b = 0; b <= blocks; ++b) {  // the first block warms up and is not counted
    const auto t0 = std::chrono::steady_clock::now();
    std::thread other(member, 1, buf.data(), n, steps);
    member(0, buf.data(), n, steps);
    other.join();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (b > 0) ns.push_back(dt / steps * 1e9);
  }
  std::sort(ns.begin(), ns.end());
  std::printf("%.0f\n", ns[ns.size() / 2]);
  return 0;
}
