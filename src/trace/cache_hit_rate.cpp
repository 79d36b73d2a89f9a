#include "shardsim/trace/cache_hit_rate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "shardsim/trace/empirical_profile.hpp"

namespace shardsim {

namespace {

// Numerical-method parameters (not model parameters; docs/model.md, "Cache hit rates").
//
// The LRU miss mass Σ p_k (1 - p_k)^T = D(T + 1) - D(T) exactly (D = expected_distinct), but
// D carries a relative error of about 1e-6 (docs/traces.md), i.e. an absolute one of about
// 1e-6 · cache_rows, while the difference is about cache_rows / T: the unit step loses all
// digits once T exceeds ~1e5 lookups. So the difference is taken as a central one around
// T + 1/2 with half-width h = max(1/2, kCheStepFraction · (T + 1/2)):
//   - h = 1/2 is the exact identity (every T below 100 lookups);
//   - otherwise D(T + 1) - D(T) = D'(T + 1/2) up to O(λ²/24) relative (λ = -ln(1 - p) of the
//     rows that matter, those with λT ≲ 30), and the central difference gives D'(T + 1/2) up to
//     h² D'''/6 D' ≲ (λh)²/6 ≤ (30 · kCheStepFraction)²/6 ≈ 4e-3 relative for the hottest rows
//     that still miss, ε²/6 ≈ 4e-6 for the Zipf bulk (D' ~ T^-β), while the rounding error is
//     1e-6 · cache_rows / (2h) ≲ 1e-4 · (miss mass): both far below the model's own error.
constexpr double kCheStepFraction = 0.005;
// The characteristic time is solved to |ln D(T) - ln cache_rows| <= kCheTolerance.
constexpr double kCheTolerance = 1e-10;
constexpr int kCheMaxIterations = 200;
// Beyond this many table lookups every row of any table (p >= 1e-20) is touched for sure: a
// cache that D(kCheMaxLookups) does not reach holds every row that can be looked up.
constexpr double kCheMaxLookups = 1e300;
// LFU under a scattered layout: the hottest ranks located exactly through the layout
// (row_of_rank), and how many leading ranks decide whether the layout is the identity.
constexpr std::uint64_t kLfuExactRanks = 4096;
constexpr std::uint64_t kLfuIdentityProbe = 64;

// ---- LRU: Che's approximation ----------------------------------------------------------------

// T with D(T) = cache_rows, where D(T) = expected_distinct(rows, space, T), the expected number
// of the shard's rows touched by T lookups of the table (Che et al. 2002, Eq. 5, with
// 1 - e^{-p T} replaced by its discrete-time form 1 - (1 - p)^T, as in Fricker et al. 2012 §2).
// D is increasing and concave in T, from 0 to the number of rows that can be looked up. Returns
// +infinity when even kCheMaxLookups lookups touch fewer rows than the cache holds.
double che_characteristic_lookups(const AccessProfile& profile, RowRange rows, RowSpace space,
                                  double cache_rows, double share) {
  const auto distinct = [&](double lookups) {
    return profile.expected_distinct(rows, space, lookups);
  };
  const double log_target = std::log(cache_rows);
  // g(u) = ln D(e^u) - ln cache_rows: close to linear in u for power laws (slope 1 for a small
  // cache, about 1/alpha in the bulk), so regula falsi converges in a few steps.
  const auto g = [&](double u) {
    const double d = distinct(std::exp(u));
    return d > 0 ? std::log(d) - log_target : -std::numeric_limits<double>::infinity();
  };
  // D(T) <= T · share for T >= 1 (Bernoulli), D(T) >= T · share below: start at
  // T = cache_rows / share and widen the bracket by factors of 16 on the side of the root.
  const double u_start = std::log(cache_rows / share);
  const double g_start = g(u_start);
  if (g_start == 0) return std::exp(u_start);
  double lo = u_start, g_lo = g_start, hi = u_start, g_hi = g_start;
  const double u_max = std::log(kCheMaxLookups);
  const double u_min = -u_max;
  while (g_hi < 0) {
    if (hi >= u_max) return std::numeric_limits<double>::infinity();
    lo = hi;
    g_lo = g_hi;
    hi = std::min(hi + std::log(16.0), u_max);
    g_hi = g(hi);
  }
  while (g_lo >= 0) {
    if (lo <= u_min) return 0.0;
    hi = lo;
    g_hi = g_lo;
    lo = std::max(lo - std::log(16.0), u_min);
    g_lo = g(lo);
  }
  if (!std::isfinite(g_lo)) {  // D(lo) == 0: bisect until it is positive
    while (!std::isfinite(g_lo)) {
      const double mid = 0.5 * (lo + hi);
      const double g_mid = g(mid);
      if (g_mid >= 0) {
        hi = mid;
        g_hi = g_mid;
      } else {
        lo = mid;
        g_lo = g_mid;
      }
      if (hi - lo < 1e-12) return std::exp(hi);
    }
  }
  // Illinois-modified regula falsi on the bracket [lo, hi], g(lo) < 0 <= g(hi).
  int side = 0;
  double u = hi;
  for (int i = 0; i < kCheMaxIterations; ++i) {
    u = (lo * g_hi - hi * g_lo) / (g_hi - g_lo);
    if (!(u > lo && u < hi)) u = 0.5 * (lo + hi);
    const double gu = g(u);
    if (std::abs(gu) <= kCheTolerance || hi - lo <= 1e-13 * std::max(1.0, std::abs(u))) break;
    if (gu < 0) {
      lo = u;
      g_lo = gu;
      if (side == -1) g_hi *= 0.5;
      side = -1;
    } else {
      hi = u;
      g_hi = gu;
      if (side == 1) g_lo *= 0.5;
      side = 1;
    }
  }
  return std::exp(u);
}

CacheHitRate lru_hit_rate(const AccessProfile& profile, RowRange rows, RowSpace space,
                          double cache_rows, double share) {
  CacheHitRate result;
  result.shard_lookup_share = share;
  const double t = che_characteristic_lookups(profile, rows, space, cache_rows, share);
  result.characteristic_table_lookups = t;
  if (!std::isfinite(t)) {
    result.hit_rate = 1.0;
    return result;
  }
  // Miss mass Σ_k p_k (1 - p_k)^T = D(T + 1) - D(T) (Che's per-row hit probability
  // 1 - (1 - p_k)^T weighted by p_k), by the central difference of kCheStepFraction.
  const double mid = t + 0.5;
  const double h = std::max(0.5, kCheStepFraction * mid);
  const double miss_mass = (profile.expected_distinct(rows, space, mid + h) -
                            profile.expected_distinct(rows, space, mid - h)) /
                           (2.0 * h);
  result.hit_rate = std::clamp(1.0 - miss_mass / share, 0.0, 1.0);
  return result;
}

// ---- LFU: the static top-k cache ---------------------------------------------------------------

// Mass of the `count` (fractional) leading ranks of [begin, end): the whole ones, plus the
// fraction of the next one (linear interpolation between integer cache sizes).
double rank_prefix_mass(const AccessProfile& profile, std::uint64_t begin, std::uint64_t end,
                        double count) {
  const double width = static_cast<double>(end - begin);
  if (count >= width) return profile.mass({begin, end}, RowSpace::rank);
  const auto whole = static_cast<std::uint64_t>(std::floor(count));
  const double frac = count - static_cast<double>(whole);
  double m = profile.mass({begin, begin + whole}, RowSpace::rank);
  if (frac > 0 && begin + whole < end)
    m += frac * profile.mass({begin + whole, begin + whole + 1}, RowSpace::rank);
  return m;
}

// Mass of the `count` hottest rows of the row-id range `rows` (count < rows.size()).
//   - Row ids equal to ranks on the first kLfuIdentityProbe ranks (the clustered layout; a
//     seeded bijection is never the identity there): the rank formula on the same range.
//   - Otherwise (scattered): the kLfuExactRanks hottest ranks are located exactly through
//     row_of_rank; those inside the range are its hottest rows, exact. Past them, a bijective hash
//     puts each further rank in the range independently with the same probability f = S'/R
//     (S' rows of the range left, R ranks left), so the range's j-th hottest remaining row is
//     about rank W + j/f: the top c' remaining rows carry the range's remaining mass M' times
//     mass(ranks [W, W + c'/f)) / mass(ranks [W, N)) (the thinning of the rank law; exact in
//     expectation over the hash up to the discreteness of j/f, which is what the profile's own
//     mass() assumes past its head). For an empirical profile the walk stops at its head (its
//     tail ranks carry no ids).
double top_rows_mass_by_id(const AccessProfile& profile, RowRange rows, double count) {
  const std::uint64_t n = profile.num_rows();
  const std::uint64_t probe = std::min(n, kLfuIdentityProbe);
  bool identity = true;
  for (std::uint64_t r = 0; r < probe && identity; ++r) identity = profile.row_of_rank(r) == r;
  if (identity) return rank_prefix_mass(profile, rows.begin, rows.end, count);

  std::uint64_t walk = std::min(n, kLfuExactRanks);
  if (const auto* empirical = dynamic_cast<const EmpiricalProfile*>(&profile))
    walk = std::min(walk, empirical->head_size());
  // The range's rows among the `walk` hottest ranks, hottest first, until count + 1 of them.
  const auto needed = static_cast<std::uint64_t>(std::floor(count)) + 1;
  std::vector<double> found_mass;
  for (std::uint64_t r = 0; r < walk && found_mass.size() < needed; ++r) {
    const std::uint64_t row = profile.row_of_rank(r);
    if (row >= rows.begin && row < rows.end)
      found_mass.push_back(profile.mass({r, r + 1}, RowSpace::rank));
  }
  const auto whole = static_cast<std::uint64_t>(std::floor(count));
  const double frac = count - static_cast<double>(whole);
  if (found_mass.size() >= needed) {
    double m = 0;
    for (std::uint64_t i = 0; i < whole; ++i) m += found_mass[i];
    return m + frac * found_mass[whole];
  }
  // Fewer than count + 1 of the range's rows among the walked ranks: all of them, then the
  // thinned rest. (The walk went to its end here.)
  double found = 0;
  for (const double m : found_mass) found += m;
  const double rest_count = count - static_cast<double>(found_mass.size());
  const double rest_rows = static_cast<double>(rows.size() - found_mass.size());
  const double rest_mass = std::max(0.0, profile.mass(rows, RowSpace::row_id) - found);
  if (walk >= n || rest_rows <= 0) return found;  // every rank walked (cannot happen: kept safe)
  const double rest_ranks = static_cast<double>(n - walk);
  const double rank_span = rest_count * rest_ranks / rest_rows;  // c' / f
  const double beyond = profile.mass({walk, n}, RowSpace::rank);
  const double share =
      beyond > 0 ? rank_prefix_mass(profile, walk, n, rank_span) / beyond : rest_count / rest_rows;
  return found + rest_mass * std::clamp(share, 0.0, 1.0);
}

// The static top-k approximation of LFU (Breslau et al. 1999, §4: under the IRM, perfect LFU
// holds the k most popular objects): hit rate = mass of the shard's cache_rows hottest rows /
// mass of the shard. In rank space the hottest rows of [b, e) are ranks b, b + 1, ...
CacheHitRate lfu_hit_rate(const AccessProfile& profile, RowRange rows, RowSpace space,
                          double cache_rows, double share) {
  CacheHitRate result;
  result.shard_lookup_share = share;
  const double top = space == RowSpace::rank
                         ? rank_prefix_mass(profile, rows.begin, rows.end, cache_rows)
                         : top_rows_mass_by_id(profile, rows, cache_rows);
  result.hit_rate = std::clamp(top / share, 0.0, 1.0);
  return result;
}

}  // namespace

std::string to_string(CachePolicy policy) {
  switch (policy) {
    case CachePolicy::lru:
      return "lru";
    case CachePolicy::lfu:
      return "lfu";
  }
  return "unknown";
}

std::optional<CachePolicy> parse_cache_policy(std::string_view name) {
  if (name == "lru") return CachePolicy::lru;
  if (name == "lfu") return CachePolicy::lfu;
  return std::nullopt;
}

CacheHitRate cache_hit_rate(const AccessProfile& profile, RowRange rows, RowSpace space,
                            double cache_rows, CachePolicy policy) {
  if (!(cache_rows >= 0))
    throw std::invalid_argument("cache_hit_rate: cache_rows must be >= 0 (got " +
                                std::to_string(cache_rows) + ")");
  CacheHitRate result;
  result.shard_lookup_share = profile.mass(rows, space);  // also checks the range
  if (!(result.shard_lookup_share > 0) || cache_rows <= 0) return result;
  if (cache_rows >= static_cast<double>(rows.size())) {
    result.hit_rate = 1.0;
    if (policy == CachePolicy::lru)
      result.characteristic_table_lookups = std::numeric_limits<double>::infinity();
    return result;
  }
  return policy == CachePolicy::lru
             ? lru_hit_rate(profile, rows, space, cache_rows, result.shard_lookup_share)
             : lfu_hit_rate(profile, rows, space, cache_rows, result.shard_lookup_share);
}

}  // namespace shardsim
