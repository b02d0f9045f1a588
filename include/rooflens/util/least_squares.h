// Weighted linear least squares through the normal equations, for the small fits of the
// performance model (a kernel class's power law, the host's elasticities): a handful of
// coefficients over at most thousands of rows, where forming X'X loses nothing that matters.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace rooflens {

// Accumulates rows (x, y, weight) and solves for the coefficients b minimising
// sum w (y - x.b)^2 + sum ridge_j b_j^2 (Gauss-Jordan with partial pivoting).
class NormalEquations {
 public:
  explicit NormalEquations(size_t coefficients);
  // x must hold as many values as there are coefficients.
  void add(const std::vector<double>& x, double y, double weight = 1);
  void add_ridge(size_t coefficient, double ridge);
  size_t rows() const { return rows_; }
  // nullopt when the system is singular (a coefficient no row informs, without a ridge).
  std::optional<std::vector<double>> solve() const;

 private:
  size_t p_;
  size_t rows_ = 0;
  std::vector<std::vector<double>> a_;  // p x (p + 1): X'WX beside X'Wy
};

}  // namespace rooflens
