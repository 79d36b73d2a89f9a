#include "shardsim/trace/power_law_profile.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "shardsim/model/validation.hpp"
#include "shardsim/trace/power_sum.hpp"
#include "trace/touch_probability.hpp"

namespace shardsim {

namespace {

// Numerical-method parameters of expected_distinct (not model parameters; docs/traces.md).
// Tail ranks with k + q below max(kExactBelowY, kExactAlphaFactor·alpha), and ranges of at most
// kShortRange ranks, are summed exactly.
constexpr double kExactBelowY = 64.0;
constexpr double kExactAlphaFactor = 16.0;
constexpr std::uint64_t kShortRange = 64;
// n·p >= kSaturatedLoad: 1 - (1 - p)^n = 1 to within e^-40 ~ 4e-18.
constexpr double kSaturatedLoad = 40.0;
// n·p <= kSeriesLoad and p <= kSeriesLoad: the binomial series converges by a factor <= 0.1 a term.
constexpr double kSeriesLoad = 0.1;
constexpr int kMaxSeriesTerms = 40;
// Composite Gauss–Legendre in t = ln y: panels of width kPanelWidth / max(alpha, 0.5).
constexpr double kPanelWidth = 1.0;
constexpr int kGaussPoints = 8;

// Sorts (row id, probability) pairs by row id, least significant 11 bits first (at most three
// passes for tables below 2^33 rows). The ids are distinct (the layout is a bijection), so the
// order is the one std::sort gives; this is a few times faster for the 4096 pairs of a head.
void sort_by_row_id(std::vector<std::pair<std::uint64_t, double>>& entries, std::uint64_t rows) {
  constexpr int kDigitBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  const int bits = std::bit_width(rows > 0 ? rows - 1 : 0);
  std::vector<std::pair<std::uint64_t, double>> other(entries.size());
  std::vector<std::size_t> start(kBuckets);
  for (int shift = 0; shift < bits; shift += kDigitBits) {
    std::fill(start.begin(), start.end(), 0);
    for (const auto& e : entries) ++start[(e.first >> shift) & (kBuckets - 1)];
    std::size_t at = 0;
    for (auto& s : start) at += std::exchange(s, at);
    for (const auto& e : entries) other[start[(e.first >> shift) & (kBuckets - 1)]++] = e;
    entries.swap(other);
  }
}

struct GaussLegendre {
  std::array<double, kGaussPoints> node{};
  std::array<double, kGaussPoints> weight{};
};

// Nodes and weights on [-1, 1] by Newton's method on the Legendre polynomial.
const GaussLegendre& gauss_legendre() {
  static const GaussLegendre gl = [] {
    GaussLegendre g;
    const int n = kGaussPoints;
    for (int i = 0; i < n; ++i) {
      double x = std::cos(std::numbers::pi * (i + 0.75) / (n + 0.5));
      double dp = 1.0;
      for (int iter = 0; iter < 100; ++iter) {
        double p0 = 1.0, p1 = x;
        for (int k = 2; k <= n; ++k) {
          const double pk = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
          p0 = p1;
          p1 = pk;
        }
        dp = n * (x * p1 - p0) / (x * x - 1.0);
        const double dx = p1 / dp;
        x -= dx;
        if (std::abs(dx) < 1e-16) break;
      }
      g.node[i] = x;
      g.weight[i] = 2.0 / ((1.0 - x * x) * dp * dp);
    }
    return g;
  }();
  return gl;
}

// 1 - (1 - p)^n: the probability that n independent lookups touch a row of probability p.
using detail::touch_probability;

// floor/ceil results as rank bounds, clamped to [lo, hi] (NaN -> lo).
std::uint64_t clamp_rank(double x, std::uint64_t lo, std::uint64_t hi) {
  if (!(x >= static_cast<double>(lo))) return lo;
  if (x >= static_cast<double>(hi)) return hi;
  return std::clamp(static_cast<std::uint64_t>(x), lo, hi);
}

}  // namespace

struct PowerLawProfile::HeadIndex {
  std::vector<std::uint64_t> ids;  // row ids of the H hottest ranks, sorted
  std::vector<double> p;           // their probabilities, in the same order
  std::vector<double> log1m_p;     // log1p(-p): 1 - (1 - p)^n = -expm1(n · log1m_p)
  std::vector<double> cum;         // cum[i] = p[0] + ... + p[i-1]
  std::uint64_t size = 0;          // H
  double beyond_mass = 0;          // mass of the ranks past the head
};

PowerLawProfile::PowerLawProfile(const EmbeddingTable& table, HotRowLayout layout,
                                 std::uint64_t seed, PowerLawOptions options)
    : rows_(table.rows),
      alpha_(table.alpha),
      q_(table.q),
      heavy_(table.heavy_hitters),
      tail_mass_(0),
      layout_(layout, std::max<std::uint64_t>(table.rows, 1), seed),  // rows checked below
      options_(options) {
  require_valid_table(table);
  heavy_cum_.assign(heavy_.size() + 1, 0.0);
  for (std::size_t i = 0; i < heavy_.size(); ++i) heavy_cum_[i + 1] = heavy_cum_[i] + heavy_[i];
  tail_mass_ = std::max(0.0, 1.0 - heavy_cum_.back());
  const std::uint64_t m = heavy_.size();
  tail_from_top_ = PowerSumFrom(alpha_, q_, m + 1);
  if (m < rows_ && tail_mass_ > 0) {
    const double z = power_sum(alpha_, q_, m + 1, rows_);
    tail_scale_ = z > 0 ? tail_mass_ / z : 0.0;
  }
}

PowerLawProfile::~PowerLawProfile() = default;

double PowerLawProfile::probability(std::uint64_t rank) const {
  if (rank >= rows_) throw std::out_of_range("PowerLawProfile::probability: rank past the table");
  if (rank < heavy_.size()) return heavy_[rank];
  return tail_scale_ * std::pow(static_cast<double>(rank) + 1.0 + q_, -alpha_);
}

std::uint64_t PowerLawProfile::row_of_rank(std::uint64_t rank) const {
  return layout_.row_of_rank(rank);
}
double PowerLawProfile::prefix_shape(double ranks) const {
  const double s = 1.0 - alpha_;
  const double x = ranks + q_ + 1.0;
  if (std::abs(s) < 1e-6) return std::log(x);
  return s > 0 ? std::pow(x, s) : -std::pow(x, s);
}

double PowerLawProfile::prefix_shape_inverse(double shape) const {
  const double s = 1.0 - alpha_;
  if (std::abs(s) < 1e-6) return std::exp(shape) - q_ - 1.0;
  const double base = s > 0 ? shape : -shape;
  return (base > 0 ? std::pow(base, 1.0 / s) : 0.0) - q_ - 1.0;
}

std::uint64_t PowerLawProfile::rank_of_row(std::uint64_t row) const {
  return layout_.rank_of_row(row);
}

void PowerLawProfile::check_range(RowRange rows) const {
  if (rows.begin > rows.end || rows.end > rows_)
    throw std::invalid_argument("PowerLawProfile: range [" + std::to_string(rows.begin) + ", " +
                                std::to_string(rows.end) + ") is not inside a table of " +
                                std::to_string(rows_) + " rows");
}

double PowerLawProfile::rank_mass(std::uint64_t begin, std::uint64_t end) const {
  if (begin >= end) return 0.0;
  const std::uint64_t m = heavy_.size();
  double mass = 0.0;
  if (begin < m) mass += heavy_cum_[std::min(end, m)] - heavy_cum_[begin];
  const std::uint64_t tail_begin = std::max(begin, m);
  // 0-based ranks [tail_begin, end) are 1-based k = tail_begin + 1 .. end.
  if (tail_begin < end && tail_scale_ > 0) {
    mass += tail_scale_ *
            (tail_begin == m ? tail_from_top_(end) : power_sum(alpha_, q_, tail_begin + 1, end));
  }
  return mass;
}

double PowerLawProfile::rank_distinct(std::uint64_t begin, std::uint64_t end, double n) const {
  if (begin >= end || !(n > 0)) return 0.0;
  const std::uint64_t m = heavy_.size();
  double distinct = 0.0;
  for (std::uint64_t r = begin; r < std::min(end, m); ++r)
    distinct += touch_probability(heavy_[r], n);
  const std::uint64_t tail_begin = std::max(begin, m);
  if (tail_begin < end) distinct += tail_distinct(tail_begin + 1, end, n);
  return distinct;
}

double PowerLawProfile::tail_distinct(std::uint64_t first, std::uint64_t last, double n) const {
  if (first > last || !(tail_scale_ > 0)) return 0.0;
  const double c = tail_scale_;
  if (alpha_ == 0.0) return static_cast<double>(last - first + 1) * touch_probability(c, n);
  const auto g = [&](std::uint64_t k) {
    return touch_probability(c * std::pow(static_cast<double>(k) + q_, -alpha_), n);
  };
  // Exact head of the range, and short ranges.
  const double y_exact = std::max(kExactBelowY, kExactAlphaFactor * alpha_);
  double sum = 0.0;
  std::uint64_t k = first;
  while (k <= last && (static_cast<double>(k) + q_ < y_exact || last - k < kShortRange)) {
    sum += g(k);
    ++k;
  }
  if (k > last) return sum;
  // Saturated ranks: n·p(k) >= kSaturatedLoad <=> k + q <= (n·c / kSaturatedLoad)^(1/alpha).
  const double inv_alpha = 1.0 / alpha_;
  const double y_saturated = std::pow(n * c / kSaturatedLoad, inv_alpha);
  if (y_saturated - q_ >= static_cast<double>(k)) {
    const std::uint64_t k_last = clamp_rank(std::floor(y_saturated - q_), k, last);
    sum += static_cast<double>(k_last - k + 1);
    k = k_last + 1;
    if (k > last) return sum;
  }
  // Series ranks: n·p <= kSeriesLoad and p <= kSeriesLoad.
  const double y_series = std::pow(std::max(n * c, c) / kSeriesLoad, inv_alpha);
  const std::uint64_t k_series = clamp_rank(std::ceil(y_series - q_), k, last + 1);
  if (k_series > k) {
    if (k_series - k <= kShortRange) {
      for (; k < k_series; ++k) sum += g(k);
    } else {
      sum += transition_distinct(k, k_series - 1, n);
    }
  }
  if (k_series <= last) sum += series_distinct(k_series, last, n);
  return sum;
}

// Euler–Maclaurin to the B2 term, Σ_{k=first}^{last} g(k) ~ ∫ g + (g(a) + g(b))/2 +
// (g'(b) - g'(a))/12 with g(y) = 1 - (1 - c y^-alpha)^n over y = k + q, the integral by
// composite Gauss–Legendre in t = ln y (the integrand g(e^t) e^t is smooth on the scale 1/alpha).
double PowerLawProfile::transition_distinct(std::uint64_t first, std::uint64_t last,
                                            double n) const {
  const double c = tail_scale_;
  const double ya = static_cast<double>(first) + q_;
  const double yb = static_cast<double>(last) + q_;
  const auto g = [&](double y) { return touch_probability(c * std::pow(y, -alpha_), n); };
  // g'(y) = -n (1 - p)^(n-1) alpha p / y.
  const auto dg = [&](double y) {
    const double p = c * std::pow(y, -alpha_);
    return -n * std::exp((n - 1.0) * std::log1p(-p)) * alpha_ * p / y;
  };
  const double ta = std::log(ya);
  const double tb = std::log(yb);
  const double width = kPanelWidth / std::max(alpha_, 0.5);
  const int panels = std::max(1, static_cast<int>(std::ceil((tb - ta) / width)));
  const double h = (tb - ta) / panels;
  const GaussLegendre& gl = gauss_legendre();
  double integral = 0.0;
  for (int i = 0; i < panels; ++i) {
    const double mid = ta + (i + 0.5) * h;
    double panel = 0.0;
    for (int j = 0; j < kGaussPoints; ++j) {
      const double t = mid + 0.5 * h * gl.node[j];
      const double y = std::exp(t);
      panel += gl.weight[j] * g(y) * y;
    }
    integral += 0.5 * h * panel;
  }
  return integral + 0.5 * (g(ya) + g(yb)) + (dg(yb) - dg(ya)) / 12.0;
}

// 1 - (1 - p)^n = Σ_{j>=1} (-1)^(j+1) C(n, j) p^j, so the sum over k is
// Σ_j w_j S_{j·alpha}(first, last) with w_j = (-1)^(j+1) C(n, j) c^j and S_beta = power_sum.
double PowerLawProfile::series_distinct(std::uint64_t first, std::uint64_t last, double n) const {
  const double c = tail_scale_;
  double w = n * c;
  double sum = 0.0;
  for (int j = 1; j <= kMaxSeriesTerms && w != 0.0; ++j) {
    const double term = w * power_sum(j * alpha_, q_, first, last);
    sum += term;
    if (std::abs(term) <= 1e-17 * std::abs(sum)) break;
    w *= -(n - j) / (j + 1.0) * c;
  }
  return sum;
}

std::size_t PowerLawProfile::memory_bytes(const EmbeddingTable& table, HotRowLayout layout,
                                          PowerLawOptions options) {
  std::size_t bytes =
      sizeof(PowerLawProfile) + (2 * table.heavy_hitters.size() + 1) * sizeof(double);
  if (layout == HotRowLayout::scattered) {
    // HeadIndex: ids, p, log1m_p (H each) and cum (H + 1).
    const std::uint64_t h = std::min(table.rows, options.head_ranks);
    bytes += sizeof(HeadIndex) + static_cast<std::size_t>(h) * 32 + sizeof(double);
  }
  return bytes;
}

const PowerLawProfile::HeadIndex& PowerLawProfile::head_index() const {
  std::call_once(head_once_, [this] {
    auto head = std::make_unique<HeadIndex>();
    const std::uint64_t h = std::min(rows_, options_.head_ranks);
    head->size = h;
    std::vector<std::pair<std::uint64_t, double>> entries(h);
    for (std::uint64_t r = 0; r < h; ++r) entries[r] = {layout_.row_of_rank(r), probability(r)};
    sort_by_row_id(entries, rows_);
    head->ids.resize(h);
    head->p.resize(h);
    head->log1m_p.resize(h);
    head->cum.assign(h + 1, 0.0);
    for (std::uint64_t i = 0; i < h; ++i) {
      head->ids[i] = entries[i].first;
      head->p[i] = entries[i].second;
      head->log1m_p[i] = std::log1p(-std::min(entries[i].second, 1.0));
      head->cum[i + 1] = head->cum[i] + entries[i].second;
    }
    head->beyond_mass = rank_mass(h, rows_);
    head_ = std::move(head);
  });
  return *head_;
}

// The whole table is the same set of rows in either space: its row ids are every rank's, so a
// query over all of it needs no head index (whole-table shards, table-wise plans).
bool PowerLawProfile::rank_space_will_do(RowRange rows, RowSpace space) const {
  return space == RowSpace::rank || layout_.kind() == HotRowLayout::clustered ||
         (rows.begin == 0 && rows.end == rows_);
}

double PowerLawProfile::mass(RowRange rows, RowSpace space) const {
  check_range(rows);
  if (rank_space_will_do(rows, space)) return rank_mass(rows.begin, rows.end);
  // Scattered row ids: the head exactly through the hash, the rest by its share of the rows.
  const HeadIndex& head = head_index();
  const auto i0 = std::lower_bound(head.ids.begin(), head.ids.end(), rows.begin) - head.ids.begin();
  const auto i1 = std::lower_bound(head.ids.begin(), head.ids.end(), rows.end) - head.ids.begin();
  double mass = head.cum[i1] - head.cum[i0];
  if (rows_ > head.size) {
    const auto tail_rows = static_cast<double>(rows.size() - static_cast<std::uint64_t>(i1 - i0));
    mass += head.beyond_mass * tail_rows / static_cast<double>(rows_ - head.size);
  }
  return mass;
}

// The expected distinct rows of the ranks past the head, for `lookups`: the same for every
// row-id range of one draw (a block split queries it once per block), so the last value is kept.
double PowerLawProfile::beyond_head_distinct(double lookups) const {
  {
    std::lock_guard lock(cache_mutex_);
    if (cached_lookups_ == lookups) return cached_beyond_head_;
  }
  const double d = rank_distinct(head_index().size, rows_, lookups);
  std::lock_guard lock(cache_mutex_);
  cached_lookups_ = lookups;
  cached_beyond_head_ = d;
  return d;
}

double PowerLawProfile::expected_distinct(RowRange rows, RowSpace space, double lookups) const {
  check_range(rows);
  if (!(lookups > 0)) return 0.0;
  if (rank_space_will_do(rows, space)) return rank_distinct(rows.begin, rows.end, lookups);
  const HeadIndex& head = head_index();
  const auto i0 = std::lower_bound(head.ids.begin(), head.ids.end(), rows.begin) - head.ids.begin();
  const auto i1 = std::lower_bound(head.ids.begin(), head.ids.end(), rows.end) - head.ids.begin();
  double distinct = 0.0;
  for (auto i = i0; i < i1; ++i) distinct += -std::expm1(lookups * head.log1m_p[i]);
  if (rows_ > head.size) {
    const auto tail_rows = static_cast<double>(rows.size() - static_cast<std::uint64_t>(i1 - i0));
    distinct += beyond_head_distinct(lookups) * tail_rows / static_cast<double>(rows_ - head.size);
  }
  return distinct;
}

std::unique_ptr<AccessProfile> make_power_law_profile(const EmbeddingTable& table,
                                                      HotRowLayout layout, std::uint64_t seed) {
  return std::make_unique<PowerLawProfile>(table, layout, seed);
}

}  // namespace shardsim
