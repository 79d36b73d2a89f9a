#include "shardsim/trace/zipf_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "shardsim/core/rng.hpp"
#include "shardsim/model/validation.hpp"
#include "shardsim/trace/power_sum.hpp"

namespace shardsim {

ZipfMandelbrotSampler::ZipfMandelbrotSampler(const EmbeddingTable& table) {
  if (auto problem = check_table(table))
    throw std::invalid_argument("table '" + table.name + "': " + problem->key + ": " +
                                problem->problem);
  heavy_count_ = table.heavy_hitters.size();
  heavy_cum_.resize(heavy_count_);
  double acc = 0;
  for (std::uint64_t i = 0; i < heavy_count_; ++i) heavy_cum_[i] = acc += table.heavy_hitters[i];
  heavy_total_ = acc;
  tail_count_ = table.rows - heavy_count_;
  tail_has_mass_ = tail_count_ > 0 && heavy_total_ < 1.0;
  alpha_ = table.alpha;
  shift_ = table.q + static_cast<double>(heavy_count_);
  if (tail_has_mass_) {
    // Apache Commons RNG's RejectionInversionZipfSampler, generalised to an offset.
    h_integral_x1_ = h_integral(1.5) - h(1.0);
    h_integral_n_ = h_integral(static_cast<double>(tail_count_) + 0.5);
    squeeze_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
  }
}

double ZipfMandelbrotSampler::h(double x) const {
  return std::pow(x + shift_, -alpha_);
}

// H(x) = ((x + shift)^(1-alpha) - 1) / (1 - alpha), ln(x + shift) at alpha = 1.
double ZipfMandelbrotSampler::h_integral(double x) const {
  const double log_y = std::log(x + shift_);
  return expm1_over_x((1.0 - alpha_) * log_y) * log_y;
}

double ZipfMandelbrotSampler::h_integral_inverse(double u) const {
  double t = u * (1.0 - alpha_);
  if (t < -1.0) t = -1.0;  // rounding can push u just past the range of H
  return std::exp(log1p_over_x(t) * u) - shift_;
}

std::uint64_t ZipfMandelbrotSampler::tail_draw(Rng& rng) const {
  if (tail_count_ == 1) return 1;
  if (alpha_ == 0.0) return 1 + rng.below(tail_count_);
  const double n = static_cast<double>(tail_count_);
  while (true) {
    const double u = h_integral_n_ + rng.uniform01() * (h_integral_x1_ - h_integral_n_);
    const double x = h_integral_inverse(u);
    double k = std::floor(x + 0.5);
    if (k < 1.0) k = 1.0;
    if (k > n) k = n;
    // Accept at once inside the squeeze, else when u falls under the point mass h(k).
    if (k - x <= squeeze_ || u >= h_integral(k + 0.5) - h(k)) return static_cast<std::uint64_t>(k);
  }
}

std::uint64_t ZipfMandelbrotSampler::operator()(Rng& rng) const {
  if (heavy_count_ > 0) {
    const double u = rng.uniform01();
    if (u < heavy_total_ || !tail_has_mass_) {
      const auto it = std::upper_bound(heavy_cum_.begin(), heavy_cum_.end(), u);
      return std::min<std::uint64_t>(it - heavy_cum_.begin(), heavy_count_ - 1);
    }
  }
  return heavy_count_ + tail_draw(rng) - 1;
}

}  // namespace shardsim
