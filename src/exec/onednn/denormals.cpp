#include "denormals.h"

#include <omp.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define ROOFLENS_HAVE_MXCSR 1
#endif

namespace rooflens::onednn {

#ifdef ROOFLENS_HAVE_MXCSR
namespace {
constexpr unsigned kFlushToZero = 1u << 15;
constexpr unsigned kDenormalsAreZero = 1u << 6;
}  // namespace

// One parallel region of the team size oneDNN uses (omp_get_max_threads): GNU OpenMP
// keeps the same threads for the next regions of that size, so each keeps the mode set
// here until the destructor's region puts its own word back. Thread 0 is the caller.
DenormalsFlushed::DenormalsFlushed(bool on) {
  if (!on) return;
  saved_.assign(static_cast<size_t>(omp_get_max_threads()), 0);
#pragma omp parallel num_threads(static_cast <int>(saved_.size()))
  {
    unsigned& word = saved_[static_cast<size_t>(omp_get_thread_num())];
    word = _mm_getcsr();
    _mm_setcsr(word | kFlushToZero | kDenormalsAreZero);
  }
}

DenormalsFlushed::~DenormalsFlushed() {
  if (saved_.empty()) return;
#pragma omp parallel num_threads(static_cast <int>(saved_.size()))
  _mm_setcsr(saved_[static_cast<size_t>(omp_get_thread_num())]);
}
#else
DenormalsFlushed::DenormalsFlushed(bool) {}
DenormalsFlushed::~DenormalsFlushed() = default;
#endif

}  // namespace rooflens::onednn
