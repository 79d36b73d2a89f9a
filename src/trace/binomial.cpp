#include "trace/binomial.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "shardsim/core/rng.hpp"

namespace shardsim {

std::uint64_t sample_binomial(Rng& rng, std::uint64_t n, double p) {
  if (n == 0 || !(p > 0.0)) return 0;
  if (p >= 1.0) return n;
  const bool flip = p > 0.5;
  if (flip) p = 1.0 - p;
  const double nd = static_cast<double>(n);
  const double mean = nd * p;
  std::uint64_t x = 0;
  if (mean < kBinomialInversionMaxMean) {
    // P(0) = (1-p)^n; P(k+1) = P(k) · (n-k)/(k+1) · p/(1-p).
    const double ratio = p / (1.0 - p);
    double pk = std::exp(nd * std::log1p(-p));
    double cdf = pk;
    const double u = rng.uniform01();
    while (u >= cdf && x < n) {
      pk *= (nd - static_cast<double>(x)) / static_cast<double>(x + 1) * ratio;
      ++x;
      cdf += pk;
      if (pk == 0.0) break;  // u beyond the cdf's rounding: stop in the far tail
    }
  } else {
    const double sd = std::sqrt(mean * (1.0 - p));
    const double v = std::floor(mean + sd * rng.normal() + 0.5);
    x = v <= 0.0 ? 0 : (v >= nd ? n : static_cast<std::uint64_t>(v));
  }
  return flip ? n - x : x;
}

void sample_multinomial(Rng& rng, std::uint64_t n, std::span<const double> weights,
                        std::span<std::uint64_t> counts) {
  MultinomialSplitter(weights).sample(rng, n, counts);
}

MultinomialSplitter::MultinomialSplitter(std::span<const double> weights)
    : conditional_(weights.size(), 0.0) {
  // Suffix sums: the weight still to be split at each step, without accumulated subtraction.
  std::vector<double> rest(weights.size() + 1, 0.0);
  for (std::size_t i = weights.size(); i-- > 0;) {
    if (!(weights[i] >= 0.0) || std::isinf(weights[i])) {
      error_ = "sample_multinomial: weights must be finite and >= 0";
      return;
    }
    rest[i] = rest[i + 1] + weights[i];
  }
  if (!(rest[0] > 0.0)) {
    error_ = "sample_multinomial: all weights are zero but n > 0";
    return;
  }
  last_ = weights.size() - 1;
  while (weights[last_] == 0.0) --last_;
  for (std::size_t i = 0; i < last_; ++i) conditional_[i] = weights[i] / rest[i];
}

void MultinomialSplitter::sample(Rng& rng, std::uint64_t n, std::span<std::uint64_t> counts) const {
  if (conditional_.size() != counts.size())
    throw std::invalid_argument("sample_multinomial: weights and counts differ in size");
  std::fill(counts.begin(), counts.end(), 0);
  if (n == 0) return;
  if (!error_.empty()) throw std::invalid_argument(error_);
  std::uint64_t left = n;
  for (std::size_t i = 0; i < last_ && left > 0; ++i) {
    const std::uint64_t x = sample_binomial(rng, left, conditional_[i]);
    counts[i] = x;
    left -= x;
  }
  counts[last_] += left;
}

}  // namespace shardsim
