// A made-up but valid table of the whole NATS size space for the NAS tests: throughput falls
// and utilization rises with a scrambled index, so frontiers and strategies have work to do.
#pragma once

#include "rooflens/nas/search.h"

namespace rooflens::nas {

inline const SpaceTable& fixture_space() {
  static const SpaceTable table = [] {
    SpaceTable t;
    t.source = "synthetic fixture";
    t.points.resize(kSssSpaceSize);
    for (int64_t i = 0; i < kSssSpaceSize; ++i) {
      SssPoint& p = t.points[static_cast<size_t>(i)];
      p.index = i;
      p.throughput = 1e6 / static_cast<double>(1 + (i * 7919) % kSssSpaceSize);
      p.utilization = static_cast<double>((i * 104729) % kSssSpaceSize) / kSssSpaceSize;
    }
    return t;
  }();
  return table;
}

}  // namespace rooflens::nas
