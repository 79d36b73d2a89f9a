#include "shardsim/trace/cache_hit_rate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "shardsim/core/rng.hpp"
#include "shardsim/trace/power_law_profile.hpp"
#include "shardsim/trace/zipf_sampler.hpp"
#include "trace/cache_simulation.hpp"

namespace shardsim::cache_hit_rate_test {
namespace {

// A profile with explicit probabilities, rank order = row order, for hand calculations.
class ExplicitProfile final : public AccessProfile {
 public:
  explicit ExplicitProfile(std::vector<double> p) : p_(std::move(p)) {}
  std::uint64_t num_rows() const override { return p_.size(); }
  double mass(RowRange rows, RowSpace) const override {
    double m = 0;
    for (auto k = rows.begin; k < rows.end; ++k) m += p_.at(k);
    return m;
  }
  double expected_distinct(RowRange rows, RowSpace, double lookups) const override {
    double d = 0;
    for (auto k = rows.begin; k < rows.end; ++k) d += 1 - std::pow(1 - p_.at(k), lookups);
    return d;
  }

 private:
  std::vector<double> p_;
};

EmbeddingTable zipf_table(std::uint64_t rows, double alpha, double q = 0,
                          std::vector<double> heavy = {}) {
  return EmbeddingTable{.name = std::string("cache"),
                        .rows = rows,
                        .dim = 16,
                        .pooling = {},
                        .alpha = alpha,
                        .q = q,
                        .heavy_hitters = std::move(heavy),
                        .pruning = {}};
}

// Che by hand: T from Σ_k 1 - (1 - p_k)^T = c by plain bisection, hit = 1 - Σ p_k (1 - p_k)^T / m.
double che_by_hand(const std::vector<double>& p, double cache_rows) {
  const auto d = [&](double t) {
    double s = 0;
    for (const double x : p) s += 1 - std::pow(1 - x, t);
    return s;
  };
  double lo = 0, hi = 1;
  while (d(hi) < cache_rows) hi *= 2;
  for (int i = 0; i < 200; ++i) (d(0.5 * (lo + hi)) < cache_rows ? lo : hi) = 0.5 * (lo + hi);
  double miss = 0, m = 0;
  for (const double x : p) {
    miss += x * std::pow(1 - x, lo);
    m += x;
  }
  return 1 - miss / m;
}

TEST(CacheHitRate, HandCalculationsOnTinyTables) {
  // Cache of one row over the whole table: Che's T is exactly 1 (D(1) = Σ p = 1) and the hit
  // rate Σ p², which is also the exact LRU (the cache holds the last row looked up).
  const ExplicitProfile two({0.75, 0.25});
  const auto lru1 = cache_hit_rate(two, {0, 2}, RowSpace::rank, 1.0, CachePolicy::lru);
  EXPECT_NEAR(lru1.characteristic_table_lookups, 1.0, 1e-9);
  EXPECT_NEAR(lru1.hit_rate, 0.75 * 0.75 + 0.25 * 0.25, 1e-9);
  EXPECT_DOUBLE_EQ(lru1.shard_lookup_share, 1.0);
  EXPECT_NEAR(cache_hit_rate(two, {0, 2}, RowSpace::rank, 1.0, CachePolicy::lfu).hit_rate, 0.75,
              1e-12);

  // p = (0.5, 0.3, 0.2), cache of 2: T solves 0.5^T + 0.7^T + 0.8^T = 1 (T ≈ 2.95).
  const std::vector<double> p3 = {0.5, 0.3, 0.2};
  const ExplicitProfile three(p3);
  const auto lru2 = cache_hit_rate(three, {0, 3}, RowSpace::rank, 2.0, CachePolicy::lru);
  const double t = lru2.characteristic_table_lookups;
  EXPECT_NEAR(std::pow(0.5, t) + std::pow(0.7, t) + std::pow(0.8, t), 1.0, 1e-9);
  EXPECT_GT(t, 2.9);
  EXPECT_LT(t, 3.0);
  EXPECT_NEAR(lru2.hit_rate, che_by_hand(p3, 2.0), 1e-9);
  EXPECT_NEAR(lru2.hit_rate,
              1 - (0.5 * std::pow(0.5, t) + 0.3 * std::pow(0.7, t) + 0.2 * std::pow(0.8, t)), 1e-9);
  // LFU: the two hottest rows; 1.5 rows interpolate.
  EXPECT_NEAR(cache_hit_rate(three, {0, 3}, RowSpace::rank, 2.0, CachePolicy::lfu).hit_rate, 0.8,
              1e-12);
  EXPECT_NEAR(cache_hit_rate(three, {0, 3}, RowSpace::rank, 1.5, CachePolicy::lfu).hit_rate, 0.65,
              1e-12);

  // A shard of ranks [1, 3) (mass 0.5), cache of 1: LFU 0.3 / 0.5; LRU T solves
  // 0.7^T + 0.8^T = 1, hit = 1 - (0.3 · 0.7^T + 0.2 · 0.8^T) / 0.5.
  const auto sub_lfu = cache_hit_rate(three, {1, 3}, RowSpace::rank, 1.0, CachePolicy::lfu);
  EXPECT_NEAR(sub_lfu.hit_rate, 0.6, 1e-12);
  EXPECT_NEAR(sub_lfu.shard_lookup_share, 0.5, 1e-12);
  const auto sub_lru = cache_hit_rate(three, {1, 3}, RowSpace::rank, 1.0, CachePolicy::lru);
  const double ts = sub_lru.characteristic_table_lookups;
  EXPECT_NEAR(std::pow(0.7, ts) + std::pow(0.8, ts), 1.0, 1e-9);
  EXPECT_NEAR(sub_lru.hit_rate, 1 - (0.3 * std::pow(0.7, ts) + 0.2 * std::pow(0.8, ts)) / 0.5,
              1e-9);

  // Four rows, fractional LRU cache, against the bisection by hand.
  const std::vector<double> p4 = {0.4, 0.3, 0.2, 0.1};
  const ExplicitProfile four(p4);
  for (const double c : {0.5, 1.0, 1.7, 2.5, 3.2})
    EXPECT_NEAR(cache_hit_rate(four, {0, 4}, RowSpace::rank, c, CachePolicy::lru).hit_rate,
                che_by_hand(p4, c), 1e-9)
        << c;
}

TEST(CacheHitRate, Edges) {
  const ExplicitProfile prof({0.6, 0.4, 0.0, 0.0});
  for (const auto policy : {CachePolicy::lru, CachePolicy::lfu}) {
    EXPECT_EQ(cache_hit_rate(prof, {0, 4}, RowSpace::rank, 0.0, policy).hit_rate, 0.0);
    EXPECT_EQ(cache_hit_rate(prof, {0, 4}, RowSpace::rank, 4.0, policy).hit_rate, 1.0);
    EXPECT_EQ(cache_hit_rate(prof, {0, 4}, RowSpace::rank, 9.0, policy).hit_rate, 1.0);
    // A shard nobody looks up: no lookups, no hits.
    const auto none = cache_hit_rate(prof, {2, 4}, RowSpace::rank, 1.0, policy);
    EXPECT_EQ(none.hit_rate, 0.0);
    EXPECT_EQ(none.shard_lookup_share, 0.0);
    // Two rows that can be looked up, a cache of 3: all of them fit.
    EXPECT_NEAR(cache_hit_rate(prof, {0, 4}, RowSpace::rank, 3.0, policy).hit_rate, 1.0, 1e-12);
    EXPECT_THROW(cache_hit_rate(prof, {0, 4}, RowSpace::rank, -1.0, policy), std::invalid_argument);
    EXPECT_THROW(cache_hit_rate(prof, {0, 4}, RowSpace::rank, std::nan(""), policy),
                 std::invalid_argument);
  }
  EXPECT_TRUE(std::isinf(cache_hit_rate(prof, {0, 4}, RowSpace::rank, 3.0, CachePolicy::lru)
                             .characteristic_table_lookups));
  EXPECT_EQ(to_string(CachePolicy::lru), "lru");
  EXPECT_EQ(to_string(CachePolicy::lfu), "lfu");
  EXPECT_EQ(parse_cache_policy("lfu"), CachePolicy::lfu);
  EXPECT_EQ(parse_cache_policy("lru"), CachePolicy::lru);
  EXPECT_FALSE(parse_cache_policy("fifo").has_value());
}

TEST(CacheSimulation, TinyTracesByHand) {
  const std::vector<std::uint64_t> trace = {1, 2, 1, 3, 2, 1, 1, 3};
  // LRU, 2 rows: 1m 2m 1h 3m(evicts 2) 2m(evicts 1) 1m(evicts 3) 1h 3m -> 2 hits of 8.
  const auto lru = simulate_cache(trace, 2, CachePolicy::lru, 0);
  EXPECT_EQ(lru.counted_lookups, 8u);
  EXPECT_EQ(lru.hits, 2u);
  // Perfect LFU, 2 rows: 1m{1:1} 2m{2:1} 1h{1:2} 3m(count 1, not above 2's 1: not admitted)
  // 2h{2:2} 1h 1h 3m(count 2, not above 2's 2) -> 4 hits.
  const auto lfu = simulate_cache(trace, 2, CachePolicy::lfu, 0);
  EXPECT_EQ(lfu.hits, 4u);
  // Warm-up: the first 4 lookups are not counted (LRU: 2m 1m 1h 3m -> 1 hit of 4).
  const auto warm = simulate_cache(trace, 2, CachePolicy::lru, 4);
  EXPECT_EQ(warm.counted_lookups, 4u);
  EXPECT_EQ(warm.hits, 1u);
  EXPECT_EQ(simulate_cache(trace, 0, CachePolicy::lru, 0).hits, 0u);
  EXPECT_EQ(simulate_cache(trace, 3, CachePolicy::lfu, 0).hits, 5u);  // 3 compulsory misses
  EXPECT_EQ(simulate_cache(trace, 3, CachePolicy::lru, 0).hits, 5u);
}

// Ranks drawn from the table's law (the clustered layout: rank = row id).
std::vector<std::uint64_t> draw_ranks(const EmbeddingTable& t, std::size_t lookups,
                                      std::uint64_t seed) {
  const ZipfMandelbrotSampler sampler(t);
  Rng rng(seed);
  std::vector<std::uint64_t> ranks(lookups);
  sampler.fill(rng, ranks);
  return ranks;
}

struct Agreement {
  double worst_lru_pp = 0;
  double worst_lfu_pp = 0;
};

// Analytic against simulated hit rates of the shard `rows` (the shard's lookups: `shard_trace`)
// for caches of 1%, 5%, 20% and 50% of its rows; the first half of the trace warms up (the
// simulated LFU's counts sharpen as the trace grows: its gap to the top-k limit is 2.9 pp with a
// quarter of 1.5e6 lookups as warm-up, 2.0 pp here, 1.1 pp with a quarter of 6e6).
void expect_agreement(const AccessProfile& prof, RowRange rows, RowSpace space,
                      const std::vector<std::uint64_t>& shard_trace, const std::string& label,
                      Agreement& worst) {
  for (const double fraction : {0.01, 0.05, 0.20, 0.50}) {
    const auto cache = static_cast<std::uint64_t>(fraction * static_cast<double>(rows.size()));
    for (const auto policy : {CachePolicy::lru, CachePolicy::lfu}) {
      const double analytic =
          cache_hit_rate(prof, rows, space, static_cast<double>(cache), policy).hit_rate;
      const double simulated =
          simulate_cache(shard_trace, cache, policy, shard_trace.size() / 2).hit_rate();
      const double error_pp = 100 * std::abs(analytic - simulated);
      double& w = policy == CachePolicy::lru ? worst.worst_lru_pp : worst.worst_lfu_pp;
      w = std::max(w, error_pp);
      EXPECT_LT(error_pp, 3.0) << label << " cache " << fraction << " " << to_string(policy)
                               << ": analytic " << analytic << ", simulated " << simulated;
    }
  }
}

constexpr std::uint64_t kAcceptanceRows = 100000;
constexpr std::size_t kAcceptanceLookups = 2000000;

TEST(CacheHitRate, AgreesWithExactSimulationOnSampledTraces) {
  Agreement worst;
  for (const double alpha : {0.6, 0.8, 1.0, 1.2, 1.4}) {
    const auto t = zipf_table(kAcceptanceRows, alpha);
    const PowerLawProfile prof(t, HotRowLayout::clustered, 1);
    const auto trace = draw_ranks(t, kAcceptanceLookups, stream_seed(7, {1, 0}));
    expect_agreement(prof, {0, kAcceptanceRows}, RowSpace::rank, trace,
                     "alpha " + std::to_string(alpha), worst);
  }
  std::printf("[ cache ] whole tables, worst |analytic - simulated|: LRU %.2f pp, LFU %.2f pp\n",
              worst.worst_lru_pp, worst.worst_lfu_pp);
}

TEST(CacheHitRate, AgreesOnASubRangeShardAndHeavyHitters) {
  Agreement worst;
  {
    // Ranks [2000, 32000) of a Zipf(1.0) table: the shard sees only its own lookups.
    const auto t = zipf_table(kAcceptanceRows, 1.0);
    const PowerLawProfile prof(t, HotRowLayout::clustered, 1);
    const RowRange shard{2000, 32000};
    std::vector<std::uint64_t> shard_trace;
    for (const auto r : draw_ranks(t, 2 * kAcceptanceLookups, stream_seed(7, {2, 0})))
      if (r >= shard.begin && r < shard.end) shard_trace.push_back(r);
    expect_agreement(prof, shard, RowSpace::rank, shard_trace, "ranks [2000, 32000)", worst);
  }
  {
    // Heavy hitters and a Mandelbrot offset.
    const auto t = zipf_table(kAcceptanceRows, 0.9, 20.0, {0.05, 0.02, 0.01});
    const PowerLawProfile prof(t, HotRowLayout::clustered, 1);
    const auto trace = draw_ranks(t, kAcceptanceLookups, stream_seed(7, {3, 0}));
    expect_agreement(prof, {0, kAcceptanceRows}, RowSpace::rank, trace, "heavy hitters, q = 20",
                     worst);
  }
  {
    // A row-id shard under the scattered layout: LFU walks the hottest ranks, then thins.
    const auto t = zipf_table(kAcceptanceRows, 1.1);
    const PowerLawProfile prof(t, HotRowLayout::scattered, 5);
    const RowRange shard{20000, 45000};
    std::vector<std::uint64_t> shard_trace;
    for (const auto r : draw_ranks(t, 2 * kAcceptanceLookups, stream_seed(7, {4, 0}))) {
      const auto row = prof.row_of_rank(r);
      if (row >= shard.begin && row < shard.end) shard_trace.push_back(row);
    }
    expect_agreement(prof, shard, RowSpace::row_id, shard_trace, "scattered row ids", worst);
  }
  std::printf("[ cache ] shards, worst |analytic - simulated|: LRU %.2f pp, LFU %.2f pp\n",
              worst.worst_lru_pp, worst.worst_lfu_pp);
}

TEST(CacheHitRate, MonotoneBoundedAndLfuAtLeastLru) {
  const std::vector<std::pair<EmbeddingTable, HotRowLayout>> cases = {
      {zipf_table(100000, 0.8), HotRowLayout::clustered},
      {zipf_table(1000000, 1.2, 3.0, {0.1}), HotRowLayout::clustered},
      {zipf_table(200000, 1.0), HotRowLayout::scattered}};
  for (const auto& [t, layout] : cases) {
    const PowerLawProfile prof(t, layout, 3);
    const RowSpace space = layout == HotRowLayout::clustered ? RowSpace::rank : RowSpace::row_id;
    for (const RowRange shard : {RowRange{0, t.rows}, RowRange{t.rows / 10, t.rows / 2}}) {
      const double rows = static_cast<double>(shard.size());
      double last_lru = 0, last_lfu = 0;
      for (double c = 0; c <= rows; c += std::max(0.37, rows / 97)) {
        const double lru = cache_hit_rate(prof, shard, space, c, CachePolicy::lru).hit_rate;
        const double lfu = cache_hit_rate(prof, shard, space, c, CachePolicy::lfu).hit_rate;
        EXPECT_GE(lru, 0.0);
        EXPECT_LE(lru, 1.0);
        EXPECT_GE(lfu, 0.0);
        EXPECT_LE(lfu, 1.0);
        EXPECT_GE(lru, last_lru - 1e-9) << c;
        EXPECT_GE(lfu, last_lfu - 1e-9) << c;
        EXPECT_GE(lfu, lru - 1e-9) << c;
        last_lru = lru;
        last_lfu = lfu;
      }
    }
  }
}

// Microseconds per call for a 1e9-row table (printed; the bound is loose for slow builds).
double seconds_per_call(const AccessProfile& prof, RowRange rows, RowSpace space,
                        CachePolicy policy) {
  int calls = 0;
  double last = -1;
  const auto start = std::chrono::steady_clock::now();
  for (const double fraction : {1e-4, 1e-3, 1e-2, 1e-1}) {
    const double hit =
        cache_hit_rate(prof, rows, space, fraction * static_cast<double>(rows.size()), policy)
            .hit_rate;
    EXPECT_GT(hit, last) << fraction;
    last = hit;
    ++calls;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

TEST(CacheHitRate, BillionRowTableTakesWellUnderAMillisecond) {
  const auto t = zipf_table(1000000000, 1.05);
  const PowerLawProfile clustered(t, HotRowLayout::clustered, 1);
  const PowerLawProfile scattered(t, HotRowLayout::scattered, 1);
  // First calls build the profiles' lazy state (power-sum tables, the scattered head index).
  clustered.expected_distinct({0, t.rows}, RowSpace::rank, 1e6);
  scattered.expected_distinct({0, t.rows / 4}, RowSpace::row_id, 1e6);
  const RowRange whole{0, t.rows};
  const RowRange quarter{t.rows / 4, t.rows / 2};
  const double lru_s = seconds_per_call(clustered, whole, RowSpace::rank, CachePolicy::lru);
  const double lfu_s = seconds_per_call(clustered, whole, RowSpace::rank, CachePolicy::lfu);
  const double lru_ids_s = seconds_per_call(scattered, quarter, RowSpace::row_id, CachePolicy::lru);
  const double lfu_ids_s = seconds_per_call(scattered, quarter, RowSpace::row_id, CachePolicy::lfu);
  std::printf(
      "[ cache ] 1e9 rows, us per call: LRU %.1f, LFU %.1f (ranks); row-id quarter, scattered: "
      "LRU %.1f, LFU %.1f\n",
      lru_s * 1e6, lfu_s * 1e6, lru_ids_s * 1e6, lfu_ids_s * 1e6);
  for (const double s : {lru_s, lfu_s, lru_ids_s, lfu_ids_s}) EXPECT_LT(s, 0.05);
}

TEST(CacheHitRate, TenTrillionRowTable) {
  const auto t = zipf_table(10000000000000ULL, 0.9);
  const PowerLawProfile prof(t, HotRowLayout::clustered, 1);
  const auto lru = cache_hit_rate(prof, {0, t.rows}, RowSpace::rank, 1e9, CachePolicy::lru);
  const auto lfu = cache_hit_rate(prof, {0, t.rows}, RowSpace::rank, 1e9, CachePolicy::lfu);
  EXPECT_GT(lru.hit_rate, 0.0);
  EXPECT_LT(lru.hit_rate, lfu.hit_rate);
  EXPECT_LT(lfu.hit_rate, 1.0);
  EXPECT_GT(lru.characteristic_table_lookups, 1e9);
}

}  // namespace
}  // namespace shardsim::cache_hit_rate_test
