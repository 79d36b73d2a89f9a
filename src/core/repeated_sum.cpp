// Repeated floating-point addition in O(binades) steps (core/repeated_sum.hpp).
#include "shardsim/core/repeated_sum.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardsim {

// While acc stays in one binade [2^(e-1), 2^e), its grid is one ulp = 2^(e-53) and acc = A ulp
// with an integer A in [2^52, 2^53). Then fl(acc + v) = (A + round(v / ulp)) ulp as long as that
// stays below 2^53 ulp and v / ulp is no tie (round to nearest even would then depend on A): every
// addition adds the same D = round(v / ulp) ulp, and k of them add k D ulp exactly.
double repeated_sum(double acc, double v, std::uint64_t n) {
  constexpr double kTwo52 = 0x1p52;
  constexpr std::uint64_t kTwo53 = std::uint64_t{1} << 53;
  if (!(v > 0) || !std::isfinite(v)) {
    for (std::uint64_t i = 0; i < n; ++i) acc += v;
    return acc;
  }
  while (n > 0) {
    if (!(acc >= std::numeric_limits<double>::min()) || !std::isfinite(acc)) {
      acc += v;
      --n;
      continue;
    }
    int e = 0;
    std::frexp(acc, &e);
    const int ulp_exp = e - 53;
    const double q = std::ldexp(v, -ulp_exp);  // v in ulps (exact: a power-of-two scaling)
    if (!(q < kTwo52)) {                       // v is not small against acc: one step
      acc += v;
      --n;
      continue;
    }
    const double whole = std::floor(q);
    const double frac = q - whole;  // exact below 2^52
    if (frac == 0.5) {              // a tie: the rounding depends on A's parity
      acc += v;
      --n;
      continue;
    }
    const auto d = static_cast<std::uint64_t>(frac < 0.5 ? whole : whole + 1);
    if (d == 0) return acc;  // v below half an ulp: every addition leaves acc as it is
    const auto a = static_cast<std::uint64_t>(std::ldexp(acc, -ulp_exp));
    const std::uint64_t room = (kTwo53 - a - 1) / d;  // additions that stay in the binade
    if (room == 0) {
      acc += v;
      --n;
      continue;
    }
    const std::uint64_t k = std::min(n, room);
    acc = std::ldexp(static_cast<double>(a + k * d), ulp_exp);
    n -= k;
  }
  return acc;
}

}  // namespace shardsim
