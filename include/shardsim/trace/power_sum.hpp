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

// ∫_{y0}^{y1} y^-beta dy for 0 < y0 <= y1, stable for beta near 1 (ln(y1/y0) at beta = 1).
double power_integral(double beta, double y0, double y1);

// expm1(x)/x and log1p(x)/x, continuous at 0 (= 1).
double expm1_over_x(double x);
double log1p_over_x(double x);

}  // namespace shardsim
