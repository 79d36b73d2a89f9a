// Tail latency of a collective: the slowest of its participants (cost/collective_tail.hpp).
#include "shardsim/cost/collective_tail.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

namespace shardsim {

namespace {

double integrate_max(int n, double cv) {
  const double sigma = std::sqrt(std::log1p(cv * cv));
  const double mu = -0.5 * sigma * sigma;
  // z beyond [-9, 9 + sqrt(2 ln n)] carries < 1e-12 of the density of the maximum.
  const double lo = -9.0;
  const double hi = 9.0 + std::sqrt(2.0 * std::log(static_cast<double>(n)));
  constexpr int kIntervals = 2000;  // even
  const double h = (hi - lo) / kIntervals;
  const double inv_sqrt2 = 1.0 / std::sqrt(2.0);
  const double inv_sqrt2pi = 1.0 / std::sqrt(2.0 * M_PI);
  auto f = [&](double z) {
    const double cdf = 0.5 * std::erfc(-z * inv_sqrt2);
    const double pdf = inv_sqrt2pi * std::exp(-0.5 * z * z);
    return std::exp(mu + sigma * z) * n * std::pow(cdf, n - 1) * pdf;
  };
  double sum = f(lo) + f(hi);
  for (int k = 1; k < kIntervals; ++k) sum += (k % 2 ? 4.0 : 2.0) * f(lo + k * h);
  return sum * h / 3.0;
}

}  // namespace

double expected_max_lognormal(int n, double cv) {
  if (n <= 1 || !(cv > 0)) return 1.0;
  static std::mutex mutex;
  static std::map<std::pair<int, double>, double> memo;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memo.find({n, cv}); it != memo.end()) return it->second;
  }
  const double v = integrate_max(n, cv);
  const std::lock_guard<std::mutex> lock(mutex);
  if (memo.size() > 4096) memo.clear();
  memo[{n, cv}] = v;
  return v;
}

double sample_max_lognormal(int n, double cv, Rng& rng) {
  if (n <= 1 || !(cv > 0)) return 1.0;
  const double sigma = std::sqrt(std::log1p(cv * cv));
  const double mu = -0.5 * sigma * sigma;
  double m = 0;
  for (int k = 0; k < n; ++k) m = std::max(m, rng.lognormal(mu, sigma));
  return m;
}

}  // namespace shardsim
