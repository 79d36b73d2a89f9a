// ECMP hash collisions: the expected maximum load of balls in bins (cost/ecmp_collisions.hpp).
#include "cost/ecmp_collisions.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

namespace shardsim {

namespace {

constexpr std::int64_t kExactMaxBalls = 256;

// P(no bin holds more than k of n balls in m bins), exactly: R_j(t), the probability that t
// balls thrown into j bins leave every bin at k or fewer, from R_j(t) = Σ_{i<=min(k,t)}
// C(t,i) (1/j)^i (1 − 1/j)^(t−i) R_{j−1}(t−i) (the first bin takes i of them). O(m·n·k).
double exact_max_at_most(std::int64_t n, std::int64_t m, std::int64_t k) {
  if (k >= n) return 1.0;
  if (k * m < n) return 0.0;
  const auto size = static_cast<std::size_t>(n + 1);
  std::vector<double> r(size, 0.0);
  std::vector<double> next(size, 0.0);
  std::vector<double> log_fact(size, 0.0);
  for (std::size_t t = 1; t < size; ++t)
    log_fact[t] = log_fact[t - 1] + std::log(static_cast<double>(t));
  for (std::int64_t t = 0; t <= std::min(n, k); ++t) r[static_cast<std::size_t>(t)] = 1.0;
  for (std::int64_t j = 2; j <= m; ++j) {
    const double p = 1.0 / static_cast<double>(j);
    const double lp = std::log(p);
    const double lq = std::log1p(-p);
    for (std::int64_t t = 0; t <= n; ++t) {
      double sum = 0;
      for (std::int64_t i = 0; i <= std::min(k, t); ++i) {
        const double rest = r[static_cast<std::size_t>(t - i)];
        if (rest == 0) continue;
        const double log_binom = log_fact[static_cast<std::size_t>(t)] -
                                 log_fact[static_cast<std::size_t>(i)] -
                                 log_fact[static_cast<std::size_t>(t - i)];
        sum += std::exp(log_binom + static_cast<double>(i) * lp + static_cast<double>(t - i) * lq) *
               rest;
      }
      next[static_cast<std::size_t>(t)] = sum;
    }
    std::swap(r, next);
  }
  return r[static_cast<std::size_t>(n)];
}

double exact_expected_max(std::int64_t n, std::int64_t m, std::int64_t copies) {
  // E[M] = Σ_{k>=0} P(M > k); P(M > 0) = 1 with at least one ball. Over independent copies,
  // P(max <= k) is the copies' product.
  double e = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const double above = 1.0 - std::pow(exact_max_at_most(n, m, k), static_cast<double>(copies));
    e += above;
    if (above < 1e-12) break;
  }
  return e;
}

// Poisson approximation (Mitzenmacher & Upfal §5.4): each bin's load ~ Poisson(λ), independent,
// so P(M <= k) = F(k)^m (F(k)^(m·copies) over independent copies). Below lo = λ − 12·sqrt(λ) − 10,
// P(M > k) = 1 to double precision; above hi = λ + 12·sqrt(λ) + 30 the upper tail times m is below
// 1e-18. Tails are summed from the top (a CDF summed from below loses the small tails to rounding).
double poisson_expected_max(std::int64_t n, std::int64_t m, std::int64_t copies) {
  const double lambda = static_cast<double>(n) / static_cast<double>(m);
  const double md = static_cast<double>(m) * static_cast<double>(copies);
  const double lo = std::max(0.0, std::floor(lambda - 12.0 * std::sqrt(lambda) - 10.0));
  const double hi = std::ceil(lambda + 12.0 * std::sqrt(lambda) + 30.0);
  const double log_lambda = std::log(lambda);
  const auto count = static_cast<std::size_t>(hi - lo) + 1;
  std::vector<double> upper(count + 1, 0.0);  // upper[i] = P(X > lo + i)
  for (std::size_t i = count; i-- > 0;) {
    const double k = lo + static_cast<double>(i) + 1;
    upper[i] = upper[i + 1] + std::exp(k * log_lambda - lambda - std::lgamma(k + 1));
  }
  double e = lo;  // P(M > k) = 1 for every k < lo
  for (std::size_t i = 0; i < count; ++i) {
    const double tail = std::min(upper[i], 1.0);
    e += tail >= 1.0 ? 1.0 : -std::expm1(md * std::log1p(-tail));
  }
  return e;
}

}  // namespace

double expected_max_bin_load(std::int64_t balls, std::int64_t bins, std::int64_t copies) {
  if (balls <= 0) return 0;
  if (bins <= 1) return static_cast<double>(balls);
  copies = std::max<std::int64_t>(copies, 1);
  static std::mutex mutex;
  static std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, double> memo;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memo.find({balls, bins, copies}); it != memo.end()) return it->second;
  }
  const bool exact = balls <= kExactMaxBalls;
  double v =
      exact ? exact_expected_max(balls, bins, copies) : poisson_expected_max(balls, bins, copies);
  // At least one ball in the busiest bin, and at least the mean.
  v = std::max({v, 1.0, static_cast<double>(balls) / static_cast<double>(bins)});
  const std::lock_guard<std::mutex> lock(mutex);
  if (memo.size() > 4096) memo.clear();
  memo[{balls, bins, copies}] = v;
  return v;
}

double ecmp_slowdown(std::int64_t flows, std::int64_t ports, std::int64_t copies) {
  if (flows <= 0 || ports <= 1) return 1.0;
  const double mean = static_cast<double>(flows) / static_cast<double>(ports);
  return std::max(1.0, expected_max_bin_load(flows, ports, copies) / mean);
}

}  // namespace shardsim
