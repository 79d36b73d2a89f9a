#pragma once
// Portable, deterministic binomial and multinomial draws (never std:: distributions, whose
// output differs between standard libraries).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

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

// sample_multinomial for many draws over the same weights (one per GPU of a table's block
// split): the suffix sums and conditional probabilities are computed once. sample() gives
// exactly what sample_multinomial gives for the same random stream, and throws the same errors
// (only when n > 0, as sample_multinomial does).
class MultinomialSplitter {
 public:
  explicit MultinomialSplitter(std::span<const double> weights);
  void sample(Rng& rng, std::uint64_t n, std::span<std::uint64_t> counts) const;

 private:
  std::vector<double> conditional_;  // weights[i] / Σ_{j>=i} weights[j]
  std::size_t last_ = 0;             // the last category with a weight
  std::string error_;                // why these weights cannot be split (empty: they can)
};

}  // namespace shardsim
