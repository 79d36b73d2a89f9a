#pragma once
// Portable, deterministic binomial and multinomial draws (never std:: distributions, whose
// output differs between standard libraries).
#include <cstdint>
#include <span>

namespace shardsim {

class Rng;

// Binomial(n, p). Exact inversion (walking the pmf from 0) while min(p, 1-p)·n is below
// kBinomialInversionMaxMean; above it the normal approximation with continuity correction,
// floor(n·p + sd·Z + 1/2) clamped to [0, n]. p is clamped to [0, 1].
inline constexpr double kBinomialInversionMaxMean = 50.0;
std::uint64_t sample_binomial(Rng& rng, std::uint64_t n, double p);

// Splits n draws over categories with probabilities proportional to `weights` (>= 0, not all 0
// when n > 0) by conditional binomials; writes counts to `counts` (same size). The counts always
// sum to n exactly. Throws std::invalid_argument on bad weights or sizes.
void sample_multinomial(Rng& rng, std::uint64_t n, std::span<const double> weights,
                        std::span<std::uint64_t> counts);

}  // namespace shardsim
