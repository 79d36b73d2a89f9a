#include "shardsim/trace/access_profile.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace shardsim {

std::uint64_t AccessProfile::ranks_covering(double target_mass) const {
  const std::uint64_t n = num_rows();
  if (!(target_mass > 0.0)) return 0;
  // Smallest r in [1, n] with mass([0, r)) >= target; n when rounding keeps the total below it.
  return crossing_within(target_mass, 1, 0.0, n, mass({0, n}, RowSpace::rank)).rank;
}

AccessProfile::Crossing AccessProfile::crossing_within(double target_mass, std::uint64_t lo,
                                                       double mass_below_lo, std::uint64_t hi,
                                                       double mass_at_hi) const {
  if (lo < 1 || lo > hi || hi > num_rows()) {
    throw std::invalid_argument(
        fmt::format("crossing_within: bracket [{}, {}] outside [1, {}]", lo, hi, num_rows()));
  }
  // A bracketing search: the answer stays in [lo, hi], with m_lo the mass of the lo - 1 hottest
  // ranks (below the target) and m_hi that of the hi hottest. Each step tries the rank where the
  // line through the bracket's ends in (prefix_shape(r), mass) reaches the target (the prefix
  // mass is near linear there), and bisects after a step that did not halve the bracket, so it
  // never takes more than about twice bisection's steps and usually a handful (OPER's partitioning
  // calls it once per partition: issue 21). Any bracketing search of a non-decreasing prefix
  // mass returns the same rank as bisection (tested; where the mass is flat within rounding, near
  // 1, any crossing of the target).
  double m_lo = mass_below_lo;
  double m_hi = mass_at_hi;
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
  return Crossing{lo, m_lo, m_hi};
}

double AccessProfile::prefix_shape(double ranks) const {
  return std::log1p(ranks);
}

double AccessProfile::prefix_shape_inverse(double shape) const {
  return std::expm1(shape);
}

}  // namespace shardsim
