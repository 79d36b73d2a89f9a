#pragma once
// Standard normal density and distribution function (private to the model module).
#include <cmath>
#include <numbers>

namespace shardsim::detail {

inline double normal_pdf(double z) {
  if (std::isinf(z)) return 0.0;
  return std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi);
}

inline double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

// P(lo < Z < hi) for a standard normal Z, without cancellation when both bounds are far in the
// upper tail.
inline double normal_prob_between(double lo, double hi) {
  if (!(hi > lo)) return 0.0;
  if (lo > 0.0) return normal_cdf(-lo) - normal_cdf(-hi);
  return normal_cdf(hi) - normal_cdf(lo);
}

}  // namespace shardsim::detail
