#include "shardsim/trace/access_profile.hpp"

namespace shardsim {

std::uint64_t AccessProfile::ranks_covering(double target_mass) const {
  const std::uint64_t n = num_rows();
  if (!(target_mass > 0.0)) return 0;
  // Smallest r in [1, n] with mass([0, r)) >= target; n when rounding keeps the total below it.
  std::uint64_t lo = 1;
  std::uint64_t hi = n;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (mass({0, mid}, RowSpace::rank) >= target_mass)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

}  // namespace shardsim
