#include "shardsim/trace/power_sum.hpp"

#include <algorithm>
#include <cmath>

namespace shardsim {

namespace {

// Terms with k + q below this are summed exactly. Above it the Euler–Maclaurin remainder after
// the B6 term is about 2(2π)^-8 (beta)_7 y^-7 relative to the first term (Abramowitz & Stegun
// 23.1.30): at y = 64, beta = 1.5 that is ~3e-15, and y >= 2·beta keeps it < 1e-8 for any beta.
constexpr double kSumExactBelowY = 64.0;
constexpr double kSumExactBelowYMax = 4096.0;
// Ranges at most this long are summed exactly.
constexpr std::uint64_t kSumShortRange = 64;

double exact_below_y(double beta) {
  return std::min(std::max(kSumExactBelowY, 2 * beta), kSumExactBelowYMax);
}

// Euler–Maclaurin for Σ_{y = ya, ya+1, ..., yb} y^-beta (yb - ya an integer):
//   ∫ f + (f(ya) + f(yb))/2 + Σ_j B_2j/(2j)! (f^(2j-1)(yb) - f^(2j-1)(ya)), j = 1..3,
// with f^(n)(y) = (-1)^n (beta)_n y^(-beta-n), B2/2! = 1/12, B4/4! = -1/720, B6/6! = 1/30240.
double euler_maclaurin(double beta, double ya, double yb) {
  const double fa = std::pow(ya, -beta);
  const double fb = std::pow(yb, -beta);
  const double r1 = beta;                          // (beta)_1
  const double r3 = r1 * (beta + 1) * (beta + 2);  // (beta)_3
  const double r5 = r3 * (beta + 3) * (beta + 4);  // (beta)_5
  // f' = -r1 f / y, f''' = -r3 f / y^3, f^(5) = -r5 f / y^5.
  const double ia = 1.0 / ya;
  const double ib = 1.0 / yb;
  const double ga1 = fa * ia, gb1 = fb * ib;              // f / y
  const double ga3 = ga1 * ia * ia, gb3 = gb1 * ib * ib;  // f / y^3
  const double ga5 = ga3 * ia * ia, gb5 = gb3 * ib * ib;  // f / y^5
  return power_integral(beta, ya, yb) + 0.5 * (fa + fb) - r1 * (gb1 - ga1) / 12.0 +
         r3 * (gb3 - ga3) / 720.0 - r5 * (gb5 - ga5) / 30240.0;
}

}  // namespace

double expm1_over_x(double x) {
  return x == 0.0 ? 1.0 : std::expm1(x) / x;
}
double log1p_over_x(double x) {
  return x == 0.0 ? 1.0 : std::log1p(x) / x;
}

double power_integral(double beta, double y0, double y1) {
  // (y1^(1-beta) - y0^(1-beta)) / (1 - beta) = y0^(1-beta) · L · expm1((1-beta)L)/((1-beta)L)
  // with L = ln(y1/y0): no cancellation near beta = 1.
  const double log_ratio = std::log1p((y1 - y0) / y0);
  return std::pow(y0, 1.0 - beta) * log_ratio * expm1_over_x((1.0 - beta) * log_ratio);
}

double power_sum(double beta, double q, std::uint64_t first, std::uint64_t last) {
  if (first > last) return 0.0;
  if (beta == 0.0) return static_cast<double>(last - first + 1);
  const double y_exact = exact_below_y(beta);
  double sum = 0.0;
  std::uint64_t k = first;
  while (k <= last && (static_cast<double>(k) + q < y_exact || last - k < kSumShortRange)) {
    sum += std::pow(static_cast<double>(k) + q, -beta);
    ++k;
  }
  if (k > last) return sum;
  return sum + euler_maclaurin(beta, static_cast<double>(k) + q, static_cast<double>(last) + q);
}

PowerSumFrom::PowerSumFrom(double beta, double q, std::uint64_t first)
    : beta_(beta), q_(q), first_(first), exact_end_(first) {
  if (beta == 0.0) return;
  const double y_exact = exact_below_y(beta);
  // power_sum's loop while k + q < y_exact (the short-range condition aside).
  while (static_cast<double>(exact_end_) + q < y_exact) {
    exact_sum_ += std::pow(static_cast<double>(exact_end_) + q, -beta);
    ++exact_end_;
  }
}

double PowerSumFrom::operator()(std::uint64_t last) const {
  // power_sum stops its exact loop at exact_end_ only when the range goes on for at least
  // kSumShortRange more terms; otherwise (and for beta = 0) it is asked directly.
  if (beta_ == 0.0 || last < exact_end_ || last - exact_end_ < kSumShortRange) {
    return power_sum(beta_, q_, first_, last);
  }
  return exact_sum_ + euler_maclaurin(beta_, static_cast<double>(exact_end_) + q_,
                                      static_cast<double>(last) + q_);
}

}  // namespace shardsim
