// Work on a few threads at once (util/parallel.h).
#include "rooflens/util/parallel.h"

#include <atomic>
#include <thread>
#include <vector>

namespace rooflens {

void run_on_threads(int threads, const std::function<void()>& worker) {
  std::vector<std::thread> others;
  for (int t = 1; t < threads; ++t) others.emplace_back(worker);
  worker();
  for (auto& t : others) t.join();
}

void parallel_for(size_t n, int threads, const std::function<void(size_t i)>& body) {
  std::atomic<size_t> next{0};
  run_on_threads(threads, [&] {
    for (size_t i = next++; i < n; i = next++) body(i);
  });
}

}  // namespace rooflens
