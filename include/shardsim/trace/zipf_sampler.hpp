#pragma once
// Exact draws from a table's Zipf–Mandelbrot law with heavy hitters, in O(1) memory in the row
// count (O(m) for m heavy hitters). A heavy hitter is chosen first by one uniform draw against
// the cumulative h_i; otherwise the rank comes from rejection-inversion (Hörmann & Derflinger
// 1996, "Rejection-inversion to generate variates from monotone discrete distributions"), here
// for p(k) ~ (k + q)^-alpha over the ranks past the heavy hitters. The hat is the integral of
// (x + q')^-alpha over [k - 1/2, k + 1/2], which dominates the point mass because the function is
// convex; so the method is exact for any alpha >= 0, q >= 0.
#include <cstdint>
#include <vector>

#include "shardsim/model/embedding_table.hpp"

namespace shardsim {

class Rng;

class ZipfMandelbrotSampler {
 public:
  // Throws std::invalid_argument when check_table(table) reports a problem.
  explicit ZipfMandelbrotSampler(const EmbeddingTable& table);
  // One 0-based rank (0 = hottest).
  std::uint64_t operator()(Rng& rng) const;

 private:
  double h(double x) const;           // (x + shift)^-alpha
  double h_integral(double x) const;  // an antiderivative of h
  double h_integral_inverse(double u) const;
  std::uint64_t tail_draw(Rng& rng) const;  // 1-based index among the tail ranks

  std::vector<double> heavy_cum_;  // heavy_cum_[i] = h_1 + ... + h_(i+1)
  double heavy_total_ = 0;
  std::uint64_t heavy_count_ = 0;
  std::uint64_t tail_count_ = 0;  // ranks past the heavy hitters
  bool tail_has_mass_ = false;
  double alpha_ = 0;
  double shift_ = 0;  // q + heavy_count_: tail index j = 1.. has weight (j + shift)^-alpha
  double h_integral_x1_ = 0;
  double h_integral_n_ = 0;
  double squeeze_ = 0;
};

}  // namespace shardsim
