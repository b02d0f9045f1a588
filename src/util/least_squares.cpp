// Normal equations (see least_squares.h).
#include "rooflens/util/least_squares.h"

#include <cmath>
#include <utility>

namespace rooflens {

NormalEquations::NormalEquations(size_t coefficients)
    : p_(coefficients), a_(coefficients, std::vector<double>(coefficients + 1, 0.0)) {}

void NormalEquations::add(const std::vector<double>& x, double y, double weight) {
  for (size_t r = 0; r < p_; ++r) {
    for (size_t c = 0; c < p_; ++c) a_[r][c] += weight * x[r] * x[c];
    a_[r][p_] += weight * x[r] * y;
  }
  ++rows_;
}

void NormalEquations::add_ridge(size_t coefficient, double ridge) { a_[coefficient][coefficient] += ridge; }

std::optional<std::vector<double>> NormalEquations::solve() const {
  std::vector<std::vector<double>> a = a_;
  for (size_t col = 0; col < p_; ++col) {
    size_t piv = col;
    for (size_t r = col + 1; r < p_; ++r)
      if (std::abs(a[r][col]) > std::abs(a[piv][col])) piv = r;
    if (std::abs(a[piv][col]) < 1e-300) return std::nullopt;
    std::swap(a[col], a[piv]);
    for (size_t r = 0; r < p_; ++r) {
      if (r == col) continue;
      const double f = a[r][col] / a[col][col];
      for (size_t c = col; c <= p_; ++c) a[r][c] -= f * a[col][c];
    }
  }
  std::vector<double> coef;
  for (size_t r = 0; r < p_; ++r) coef.push_back(a[r][p_] / a[r][r]);
  return coef;
}

}  // namespace rooflens
