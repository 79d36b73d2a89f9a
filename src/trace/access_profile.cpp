#include "shardsim/trace/access_profile.hpp"

#include <algorithm>
#include <cmath>

namespace shardsim {

std::uint64_t AccessProfile::ranks_covering(double target_mass) const {
  const std::uint64_t n = num_rows();
  if (!(target_mass > 0.0)) return 0;
  // Smallest r in [1, n] with mass([0, r)) >= target; n when rounding keeps the total below it.
  // A bracketing search: the answer stays in [lo, hi], with m_lo the mass of the lo - 1 hottest
  // ranks (below the target) and m_hi that of the hi hottest. Each step tries the rank where the
  // line through the bracket's ends in (prefix_shape(r), mass) reaches the target (the prefix
  // mass is near linear there), and bisects after a step that did not halve the bracket, so it
  // never takes more than about twice bisection's steps and usually a handful (OPER's partitioning
  // calls it once per partition: issue 21). Any bracketing search of a non-decreasing prefix
  // mass returns the same rank as bisection (tested; where the mass is flat within rounding, near
  // 1, any crossing of the target).
  std::uint64_t lo = 1;
  std::uint64_t hi = n;
  double m_lo = 0;
  double m_hi = mass({0, n}, RowSpace::rank);
  bool bisect = false;
  while (lo < hi) {
    std::uint64_t mid = lo + (hi - lo) / 2;
    if (!bisect && hi - lo > 8 && m_hi > m_lo && m_hi >= target_mass) {
      const double u_lo = prefix_shape(static_cast<double>(lo - 1));
      const double u_hi = prefix_shape(static_cast<double>(hi));
      const double u = u_lo + (target_mass - m_lo) / (m_hi - m_lo) * (u_hi - u_lo);
      const double r = std::ceil(prefix_shape_inverse(u));
      // NaN (a shape the law cannot invert) falls back to the bracket's low end.
      mid = !(r > static_cast<double>(lo))     ? lo
            : r >= static_cast<double>(hi - 1) ? hi - 1
                                               : static_cast<std::uint64_t>(r);
    }
    const std::uint64_t width = hi - lo;
    const double m = mass({0, mid}, RowSpace::rank);
    if (m >= target_mass) {
      hi = mid;
      m_hi = m;
    } else {
      lo = mid + 1;
      m_lo = m;
    }
    bisect = !bisect && 2 * (hi - lo) > width;
  }
  return lo;
}

double AccessProfile::prefix_shape(double ranks) const {
  return std::log1p(ranks);
}

double AccessProfile::prefix_shape_inverse(double shape) const {
  return std::expm1(shape);
}

}  // namespace shardsim
