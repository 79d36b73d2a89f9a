#pragma once
// Sums and integrals of (k + q)^-beta, the building block of the Zipf–Mandelbrot profile.
// O(1) in the length of the range: exact summation for the first terms (where k + q is small)
// and for short ranges, Euler–Maclaurin (integral + end-point corrections up to B6) beyond.
// Relative error below 1e-12 for beta up to ~100 (docs/traces.md derives the bound).
#include <cstdint>

namespace shardsim {

// Σ_{k=first}^{last} (k + q)^-beta for integers first..last with first + q > 0; 0 when
// first > last. beta >= 0, q >= 0.
double power_sum(double beta, double q, std::uint64_t first, std::uint64_t last);

// power_sum(beta, q, first, last) for many `last` with the same (beta, q, first): the exactly
// summed first terms (those with k + q below the Euler–Maclaurin threshold) are added up once,
// in the same order, so every value is bit-identical to power_sum's. A profile's prefix masses
// (every query from rank 0: OPER's partitioning, access_greedy's chunks, ranks_covering's
// bisection) take two pow() calls instead of about sixty.
class PowerSumFrom {
 public:
  PowerSumFrom() = default;
  PowerSumFrom(double beta, double q, std::uint64_t first);
  double operator()(std::uint64_t last) const;

 private:
  double beta_ = 0;
  double q_ = 0;
  std::uint64_t first_ = 1;
  std::uint64_t exact_end_ = 1;  // the first k with k + q at or above the threshold
  double exact_sum_ = 0;         // Σ_{k=first}^{exact_end_ - 1} (k + q)^-beta, in order
};

// ∫_{y0}^{y1} y^-beta dy for 0 < y0 <= y1, stable for beta near 1 (ln(y1/y0) at beta = 1).
double power_integral(double beta, double y0, double y1);

// expm1(x)/x and log1p(x)/x, continuous at 0 (= 1).
double expm1_over_x(double x);
double log1p_over_x(double x);

}  // namespace shardsim
