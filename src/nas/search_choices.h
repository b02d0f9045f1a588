// Internal to the search strategies (strategies.cpp): a NATS-SSS network as
// its five width choices, and back.
#pragma once

#include <array>
#include <cstdint>

#include "rooflens/nas/search.h"

namespace rooflens::nas::detail {

inline int64_t arch_of(const std::array<int, kSssNumLayers>& choices) {
  int64_t index = 0;
  for (int c : choices) index = index * kSssNumChoices + c;
  return index;
}

inline std::array<int, kSssNumLayers> random_choices(SearchRng& rng) {
  std::array<int, kSssNumLayers> a{};
  for (auto& c : a) c = static_cast<int>(rng.uniform_index(kSssNumChoices));
  return a;
}

inline std::array<int, kSssNumLayers> choices_of(int64_t arch) {
  std::array<int, kSssNumLayers> a{};
  for (int i = kSssNumLayers - 1; i >= 0; --i) {
    a[i] = static_cast<int>(arch % kSssNumChoices);
    arch /= kSssNumChoices;
  }
  return a;
}

}  // namespace rooflens::nas::detail
