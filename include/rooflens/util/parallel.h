// Work on a few threads at once, the calling thread among them: the one place the library
// and the CLI start worker threads for independent items.
#pragma once

#include <cstddef>
#include <functional>

namespace rooflens {

// Runs worker() on `threads` threads at once (the calling thread is one; threads < 1 counts
// as 1) and returns when every one has returned. The worker claims its own items (an atomic
// counter, a queue); what it shares it guards itself.
void run_on_threads(int threads, const std::function<void()>& worker);

// Calls body(i) once for every i in [0, n) on up to `threads` threads (run_on_threads); each
// thread takes the next index not yet taken, so bodies run in any order and at once: each
// writes only its own slot of a result.
void parallel_for(size_t n, int threads, const std::function<void(size_t i)>& body);

}  // namespace rooflens
