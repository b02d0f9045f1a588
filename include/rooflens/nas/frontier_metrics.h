// Judging a search against the true accuracy-throughput frontier of a space (issue 8, part
// 6): hypervolume ratio, inverted generational distance (IGD) and the true-frontier networks
// found. Both objectives are maximized: throughput (images/s) and accuracy (percent, the
// oracle's final accuracy).
//
// Conventions (stated once, used by every report):
//  - Normalisation: each objective is mapped to [0, 1] by the range (min, max) over the
//    whole space (`Bounds`), so both axes weigh the same and the numbers do not depend on
//    units. Throughput is normalised linearly.
//    An objective whose range is empty (max == min) maps every value >= min to 1.
//  - Hypervolume: the area dominated by a set in normalised coordinates, with the reference
//    point at (0, 0), i.e. the space's worst throughput and worst accuracy. Ratio = HV(found)
//    / HV(true frontier), 1 when the found set reaches the true frontier everywhere (and 1
//    for a non-empty found set when the true frontier's HV is 0, a degenerate space).
//  - IGD: the mean, over the true frontier's points, of the Euclidean distance (normalised
//    coordinates) to the nearest found point; 0 when every true-frontier point was found.
//  - Unknown networks: a NaN final accuracy means the network's accuracy is not known (an
//    oracle that trains, or a table, covers only part of the space). Such networks are left
//    out of the true frontier and of the bounds, which are then those of the known networks:
//    the "true" frontier is the reference frontier of what is known, and the caller must say
//    so. A search's evaluated networks must all be known.
#pragma once

#include <cstdint>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens::nas {

struct ObjPoint {
  double throughput = 0;  // images/s
  double accuracy = 0;    // percent
};

struct Bounds {
  double throughput_min = 0, throughput_max = 1;
  double accuracy_min = 0, accuracy_max = 100;
};

// Bounds of a set of points (the whole space). Invalid input when empty or non-finite.
Expected<Bounds> bounds_of(const std::vector<ObjPoint>& points);

// Hypervolume of `points` (any set; dominated points add nothing) in normalised coordinates
// with reference (0, 0). Points outside the bounds are clamped to them; points with a NaN
// coordinate are ignored. O(n log n).
double hypervolume(const std::vector<ObjPoint>& points, const Bounds& bounds);

// Mean distance from each point of `truth` to the nearest point of `found` (normalised);
// +inf when `found` is empty; invalid input when `truth` is empty or a coordinate is NaN.
// Points are clamped to the bounds as for hypervolume. O(|truth| x |found|).
Expected<double> igd(const std::vector<ObjPoint>& truth, const std::vector<ObjPoint>& found, const Bounds& bounds);

struct FrontierScore {
  double hypervolume_ratio = 0;
  double igd = 0;
  int64_t true_frontier_size = 0;
  int64_t true_frontier_found = 0;  // true-frontier networks among those the search evaluated
};

// Scores the networks a search evaluated (`evaluated`: SSS indices, any order, repeats
// allowed) against the space: `final_accuracy[i]` and `throughput[i]` for every index i of
// the space (same length). The found set is the accuracy-throughput frontier of the
// evaluated networks under the final accuracies. Invalid input on mismatched lengths, an
// index out of range, or a non-finite value.
Expected<FrontierScore> score_search(const std::vector<int64_t>& evaluated, const std::vector<double>& throughput,
                                     const std::vector<double>& final_accuracy);

// The true accuracy-throughput frontier of the space (indices, throughput ascending).
// Invalid input as for score_search (and for an empty space).
Expected<std::vector<int64_t>> true_frontier(const std::vector<double>& throughput,
                                             const std::vector<double>& final_accuracy);

// The found set score_search judges: the distinct networks of `evaluated` on the
// accuracy-throughput frontier under the final accuracies (SSS indices, throughput
// ascending; empty when `evaluated` is). Invalid input as for score_search.
Expected<std::vector<int64_t>> evaluated_frontier(const std::vector<int64_t>& evaluated,
                                                  const std::vector<double>& throughput,
                                                  const std::vector<double>& final_accuracy);

}  // namespace rooflens::nas
