// Expected `trace stats` histograms in closed form (docs/traces.md §12).
#include "shardsim/trace/expected_count_histograms.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace shardsim {

namespace {

constexpr std::uint64_t kExactHead = 64;   // ranks summed one by one
constexpr double kNormalVariance = 400.0;  // above: the binomial is taken as normal
constexpr double kTermFloor = 1e-17;       // terms below this share of the mode's are dropped

void add_at(std::vector<double>& v, std::size_t j, double x) {
  if (v.size() <= j) v.resize(j + 1, 0.0);
  v[j] += x;
}

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

// Adds weight * P(X + shift in bin j) to out[j] for X ~ Binomial(m, p), over X + shift >= 1.
// m may be fractional (the recursion runs over k <= floor(m)).
void add_binomial_bins(double m, double p, std::uint64_t shift, double weight,
                       std::vector<double>& out) {
  if (!(weight > 0) || !(m >= 0)) return;
  if (!(p > 0)) {
    if (shift >= 1) add_at(out, count_bin(shift), weight);
    return;
  }
  const double kmax = std::floor(m);
  if (p >= 1) {
    const auto v = static_cast<std::uint64_t>(kmax) + shift;
    if (v >= 1) add_at(out, count_bin(v), weight);
    return;
  }
  const double mean = m * p;
  const double var = mean * (1 - p);
  if (var > kNormalVariance) {
    // P(lo < X + shift <= hi) with the continuity correction, bins within 10 sd of the mean.
    const double sd = std::sqrt(var);
    const double s = static_cast<double>(shift);
    const auto first = count_bin(static_cast<std::uint64_t>(std::max(1.0, mean + s - 10 * sd)));
    const auto last = count_bin(static_cast<std::uint64_t>(mean + s + 10 * sd) + 1);
    for (std::size_t j = first; j <= last; ++j) {
      const double lo = j == 0 ? 0.0 : std::ldexp(1.0, static_cast<int>(j) - 1);
      const double hi = std::ldexp(1.0, static_cast<int>(j));
      const double pr =
          normal_cdf((hi - s + 0.5 - mean) / sd) - normal_cdf((lo - s + 0.5 - mean) / sd);
      if (pr > 0) add_at(out, j, weight * pr);
    }
    return;
  }
  // Term by term from the mode, both ways.
  const double mode = std::clamp(std::floor((m + 1) * p), 0.0, kmax);
  const double log_pmf0 = std::lgamma(m + 1) - std::lgamma(mode + 1) - std::lgamma(m - mode + 1) +
                          mode * std::log(p) + (m - mode) * std::log1p(-p);
  const double pmf0 = std::exp(log_pmf0);
  const double odds = p / (1 - p);
  const auto add_term = [&](double k, double pmf) {
    const auto v = static_cast<std::uint64_t>(k) + shift;
    if (v >= 1) add_at(out, count_bin(v), weight * pmf);
  };
  add_term(mode, pmf0);
  double pmf = pmf0;
  for (double k = mode; k < kmax; ++k) {
    pmf *= (m - k) / (k + 1) * odds;
    if (!(pmf > kTermFloor * pmf0)) break;
    add_term(k + 1, pmf);
  }
  pmf = pmf0;
  for (double k = mode; k > 0; --k) {
    pmf *= k / ((m - k + 1) * odds);
    if (!(pmf > kTermFloor * pmf0)) break;
    add_term(k - 1, pmf);
  }
}

}  // namespace

std::size_t count_bin(std::uint64_t count) {
  return count <= 1 ? 0 : static_cast<std::size_t>(std::bit_width(count - 1));
}

void CountHistograms::add(const CountHistograms& other, double weight) {
  for (std::size_t j = 0; j < other.rows.size(); ++j) add_at(rows, j, weight * other.rows[j]);
  for (std::size_t j = 0; j < other.lookups.size(); ++j)
    add_at(lookups, j, weight * other.lookups[j]);
}

CountHistograms expected_count_histograms(const AccessProfile& profile, double lookups,
                                          double cell_ratio) {
  CountHistograms h;
  const std::uint64_t n_rows = profile.num_rows();
  if (!(lookups > 0) || n_rows == 0) return h;
  std::uint64_t a = 0;
  while (a < n_rows) {
    std::uint64_t b = a + 1;  // cell [a, b)
    if (a >= kExactHead) {
      const auto grown = static_cast<std::uint64_t>(static_cast<double>(a + 1) * cell_ratio);
      b = std::min(n_rows, std::max(a + 1, grown));
    }
    const double width = static_cast<double>(b - a);
    const double mass = profile.mass(RowRange{a, b}, RowSpace::rank);
    const double p = std::clamp(mass / width, 0.0, 1.0);
    if (p > 0) {
      add_binomial_bins(lookups, p, 0, width, h.rows);
      add_binomial_bins(lookups - 1, p, 1, width * lookups * p, h.lookups);
    }
    a = b;
  }
  return h;
}

std::vector<double> bin_shares(std::span<const double> bins, std::size_t open_last_bin) {
  std::vector<double> out(bins.begin(), bins.end());
  if (open_last_bin > 0) {
    out.resize(std::max(out.size(), open_last_bin + 1), 0.0);
    for (std::size_t j = open_last_bin + 1; j < out.size(); ++j) out[open_last_bin] += out[j];
    out.resize(open_last_bin + 1);
  }
  double sum = 0;
  for (double x : out) sum += x;
  for (double& x : out) x = sum > 0 ? x / sum : 0.0;
  return out;
}

double l1_distance(std::span<const double> a, std::span<const double> b) {
  double d = 0;
  for (std::size_t j = 0; j < std::max(a.size(), b.size()); ++j)
    d += std::abs((j < a.size() ? a[j] : 0.0) - (j < b.size() ? b[j] : 0.0));
  return d;
}

}  // namespace shardsim
