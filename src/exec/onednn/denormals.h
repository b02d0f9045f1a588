// Denormal floats flushed to zero for the length of a scope, on the calling thread and on
// every thread of the OpenMP team oneDNN's primitives run on.
#pragma once

#include <vector>

namespace rooflens::onednn {

class DenormalsFlushed {
 public:
  // `on` false: changes nothing. On a CPU without x86's MXCSR: changes nothing either.
  explicit DenormalsFlushed(bool on);
  ~DenormalsFlushed();
  DenormalsFlushed(const DenormalsFlushed&) = delete;
  DenormalsFlushed& operator=(const DenormalsFlushed&) = delete;

 private:
  std::vector<unsigned> saved_;  // each team thread's control word before; empty when off
};

}  // namespace rooflens::onednn
