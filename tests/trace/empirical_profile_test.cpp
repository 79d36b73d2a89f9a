#include "shardsim/trace/empirical_profile.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <unordered_map>
#include <vector>

#include "shardsim/core/rng.hpp"
#include "shardsim/trace/bag_generator.hpp"
#include "shardsim/trace/power_law_profile.hpp"

namespace shardsim::empirical_profile_test {
namespace {

std::unique_ptr<EmpiricalProfile> profile_of(std::uint64_t rows,
                                             const std::vector<std::uint64_t>& ids,
                                             EmpiricalProfileOptions options = {}) {
  return build_empirical_profile(
      rows, [&](const auto& sink) { sink(std::span<const std::uint64_t>(ids)); }, options);
}

EmbeddingTable zipf(std::uint64_t rows, double alpha) {
  return EmbeddingTable{.name = std::string("t"),
                        .rows = rows,
                        .dim = 16,
                        .pooling = {},
                        .alpha = alpha,
                        .q = 0,
                        .heavy_hitters = {},
                        .pruning = {}};
}

// Row ids of n draws from a Zipf table under the scattered layout.
std::vector<std::uint64_t> zipf_trace(std::uint64_t rows, double alpha, std::size_t n,
                                      std::uint64_t seed) {
  Workload w;
  w.seed = seed;
  EmbeddingTable t = zipf(rows, alpha);
  t.pooling.kind = PoolingSpec::Kind::fixed;
  t.pooling.value = 1;
  const BagGenerator gen(t, 0, w);
  Bags b;
  gen.append(0, 0, static_cast<std::uint32_t>(n), RowSpace::row_id, b);
  return b.rows;
}

TEST(EmpiricalProfile, HandCountedTrace) {
  // Rows 3, 3, 3, 1, 1, 7 of a 10-row table: counts 3 (row 3), 2 (row 1), 1 (row 7); M = 6.
  const auto p = profile_of(10, {3, 1, 3, 7, 3, 1});
  EXPECT_TRUE(p->exact());
  EXPECT_EQ(p->lookups(), 6u);
  EXPECT_EQ(p->distinct_rows(), 3.0);
  EXPECT_EQ(p->row_of_rank(0), 3u);
  EXPECT_EQ(p->row_of_rank(1), 1u);
  EXPECT_EQ(p->row_of_rank(2), 7u);
  EXPECT_EQ(p->rank_of_row(7), 2u);
  EXPECT_DOUBLE_EQ(p->mass({0, 1}, RowSpace::rank), 0.5);
  EXPECT_DOUBLE_EQ(p->mass({0, 2}, RowSpace::rank), 5.0 / 6);
  EXPECT_DOUBLE_EQ(p->mass({3, 10}, RowSpace::rank), 0.0);  // never accessed
  EXPECT_DOUBLE_EQ(p->mass({0, 10}, RowSpace::row_id), 1.0);
  EXPECT_DOUBLE_EQ(p->mass({0, 2}, RowSpace::row_id), 2.0 / 6);  // row 1
  EXPECT_DOUBLE_EQ(p->mass({3, 4}, RowSpace::row_id), 0.5);
  EXPECT_DOUBLE_EQ(p->mass({4, 7}, RowSpace::row_id), 0.0);
  // Two lookups: Σ 1 - (1 - p)^2 = (1 - 1/4) + (1 - 4/9) + (1 - 25/36) = 0.75 + 5/9 + 11/36.
  const double d2 = 0.75 + 5.0 / 9 + 11.0 / 36;
  EXPECT_NEAR(p->expected_distinct({0, 10}, RowSpace::rank, 2), d2, 1e-12);
  EXPECT_NEAR(p->expected_distinct({0, 10}, RowSpace::row_id, 2), d2, 1e-12);
  EXPECT_NEAR(p->expected_distinct({0, 2}, RowSpace::row_id, 2), 5.0 / 9, 1e-12);
  // Groups: one row each of counts 3, 2, 1.
  const auto g = p->count_groups();
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].count(), 3.0);
  EXPECT_EQ(g[2].rows, 1.0);
  EXPECT_THROW(p->mass({0, 11}, RowSpace::rank), std::invalid_argument);
}

TEST(EmpiricalProfile, TailBeyondTheHead) {
  // Head of 1 row: row 3 (count 3). Tail: rows 1 (count 2) and 7 (count 1), in hashed rank order
  // and exactly in row-id space (each tail row is a step of the CDF).
  EmpiricalProfileOptions o;
  o.head_rows = 1;
  o.max_groups = 64;
  o.exact_rows = 100;
  const auto p = profile_of(10, {3, 1, 3, 7, 3, 1}, o);
  EXPECT_EQ(p->head_size(), 1u);
  EXPECT_EQ(p->tail_rows(), 2u);
  EXPECT_DOUBLE_EQ(p->mass({1, 3}, RowSpace::rank), 0.5);   // the tail's 3 lookups
  EXPECT_DOUBLE_EQ(p->mass({1, 2}, RowSpace::rank), 0.25);  // half the tail by width
  EXPECT_NEAR(p->mass({1, 2}, RowSpace::row_id), 2.0 / 6, 1e-12);
  EXPECT_NEAR(p->mass({7, 8}, RowSpace::row_id), 1.0 / 6, 1e-12);
  EXPECT_NEAR(p->mass({0, 10}, RowSpace::row_id), 1.0, 1e-12);
  const std::uint64_t r1 = p->rank_of_row(1), r7 = p->rank_of_row(7);
  EXPECT_GE(r1, 1u);
  EXPECT_LT(r1, 3u);
  EXPECT_GE(r7, 1u);
  EXPECT_LT(r7, 3u);
  EXPECT_THROW(p->row_of_rank(1), std::logic_error);
  // The tail's expected distinct rows: (1 - (1 - 1/3)^2) + (1 - (1 - 1/6)^2) over both rows.
  const double tail = (1 - 4.0 / 9) + (1 - 25.0 / 36);
  EXPECT_NEAR(p->expected_distinct({1, 3}, RowSpace::rank, 2), tail, 1e-12);
  EXPECT_NEAR(p->expected_distinct({0, 10}, RowSpace::row_id, 2), 0.75 + tail, 1e-12);
}

TEST(EmpiricalProfile, MatchesTheLawItWasSampledFrom) {
  // 10^6 lookups of alpha 1.05 over 10^5 rows (all counted exactly): rank masses of the head
  // within 5 standard errors of the analytic law.
  const std::uint64_t rows = 100'000;
  const auto ids = zipf_trace(rows, 1.05, 1'000'000, 3);
  const auto p = profile_of(rows, ids);
  EXPECT_TRUE(p->exact());
  const PowerLawProfile law(zipf(rows, 1.05), HotRowLayout::scattered, 1);
  for (std::uint64_t r : {1ULL, 10ULL, 100ULL, 1000ULL}) {
    const double m = law.mass({0, r}, RowSpace::rank);
    // The empirical top r are the top r by observed count: at least the law's share, and not
    // much more.
    EXPECT_NEAR(p->mass({0, r}, RowSpace::rank), m, 5 * std::sqrt(m * (1 - m) / 1e6) + 0.003) << r;
  }
}

// Exact per-row counts, for comparison.
std::unordered_map<std::uint64_t, std::uint64_t> exact_counts(
    const std::vector<std::uint64_t>& ids) {
  std::unordered_map<std::uint64_t, std::uint64_t> c;
  for (auto id : ids) ++c[id];
  return c;
}

TEST(EmpiricalProfile, BoundedSummaryOfALargeTrace) {
  // 10^6 lookups over 4·10^6 rows (alpha 0.9: ~4·10^5 distinct rows) with room for only 2^13
  // exact rows: the head comes from Space-Saving and a second pass; the tail from a 2^-s sample.
  const std::uint64_t rows = 4'000'000;
  const double m = 1e6;
  const auto ids = zipf_trace(rows, 0.9, 1'000'000, 11);
  EmpiricalProfileOptions o;
  o.head_rows = 256;
  o.exact_rows = 1 << 13;
  o.hot_candidates = 1 << 14;
  const auto p = profile_of(rows, ids, o);
  EXPECT_FALSE(p->exact());
  const auto truth = exact_counts(ids);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sorted(truth.begin(), truth.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  // The head is the true top H, with exact counts: every row counted more than
  // 10^6 / 2^14 = 61 times, but at most 256.
  ASSERT_EQ(p->head_size(), 256u);
  for (std::uint64_t r = 0; r < p->head_size(); ++r) {
    EXPECT_EQ(p->head_count(r), sorted[r].second) << r;
    EXPECT_EQ(p->head_row(r), sorted[r].first) << r;
  }
  // Distinct rows estimated within 3% (the sample keeps ~2^13 of ~4·10^5 rows: sd ~1%).
  EXPECT_NEAR(p->distinct_rows(), static_cast<double>(truth.size()), 0.03 * truth.size());
  // Mass and distinct rows of 8 row-id blocks against exact sums, within 4 standard deviations
  // of the row sampling. Rows counted more than M / hot_candidates = 61 times are all known
  // exactly; the others are a sample of share f: a block's sampled lookups have an sd of
  // sqrt((1/f - 1) Σ c²) / M over its sampled-stratum rows, and its distinct rows (the tail's
  // share of rows) a relative sd of about sqrt((1/f - 1)(1/R_b + 1/R)), R_b and R the
  // sampled-stratum rows in the block and in all.
  const double inv = 1 / p->row_sample_share() - 1;
  EXPECT_GT(inv, 1.0);
  const double bound = m / static_cast<double>(o.hot_candidates);
  const double n = 1e5;
  std::vector<double> mass(8), distinct(8), c2(8), strat_rows(8);
  double all_strat_rows = 0;
  for (const auto& [id, c] : truth) {
    const std::size_t b = id * 8 / rows;
    mass[b] += static_cast<double>(c) / m;
    distinct[b] += -std::expm1(n * std::log1p(-static_cast<double>(c) / m));
    if (static_cast<double>(c) <= bound) {
      c2[b] += static_cast<double>(c) * static_cast<double>(c);
      strat_rows[b] += 1;
      all_strat_rows += 1;
    }
  }
  for (std::uint64_t b = 0; b < 8; ++b) {
    const RowRange range{b * rows / 8, (b + 1) * rows / 8};
    const double mass_sd = std::sqrt(inv * c2[b]) / m;
    const double distinct_sd =
        distinct[b] * std::sqrt(inv * (1 / strat_rows[b] + 1 / all_strat_rows));
    EXPECT_NEAR(p->mass(range, RowSpace::row_id), mass[b], 4 * mass_sd) << b;
    EXPECT_NEAR(p->expected_distinct(range, RowSpace::row_id, n), distinct[b], 4 * distinct_sd)
        << b;
    EXPECT_LT(mass_sd, 0.08 * mass[b]);  // the bound itself is informative (~5% here)
  }
  // Groups cover every lookup.
  double lookups = 0;
  for (const CountGroup& g : p->count_groups()) lookups += g.lookups;
  EXPECT_NEAR(lookups, m, 1e-6 * m);
  EXPECT_NEAR(p->mass({0, rows}, RowSpace::rank), 1.0, 1e-12);
}

TEST(EmpiricalProfile, RejectsRowsOutsideTheTable) {
  EmpiricalProfileBuilder b(10);
  const std::vector<std::uint64_t> ids = {3, 10};
  EXPECT_THROW(b.add(ids), std::out_of_range);
  EXPECT_THROW(EmpiricalProfileBuilder(0), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim::empirical_profile_test
