#pragma once
// Private to the trace module: the chance that a row of per-lookup probability p is touched by n
// independent lookups, 1 - (1 - p)^n, computed without cancellation for small p.
#include <cmath>

namespace shardsim::detail {

inline double touch_probability(double p, double n) {
  if (p >= 1.0) return 1.0;
  return -std::expm1(n * std::log1p(-p));
}

}  // namespace shardsim::detail
