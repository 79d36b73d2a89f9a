#include "shardsim/trace/trace_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "shardsim/trace/bag_generator.hpp"

namespace shardsim::trace_stats_test {
namespace {

std::unique_ptr<EmpiricalProfile> profile_of(std::uint64_t rows,
                                             const std::vector<std::uint64_t>& ids) {
  return build_empirical_profile(
      rows, [&](const auto& sink) { sink(std::span<const std::uint64_t>(ids)); });
}

std::vector<std::uint64_t> zipf_ids(std::uint64_t rows, double alpha, std::uint32_t n,
                                    std::uint64_t seed) {
  EmbeddingTable t{.name = std::string("t"),
                   .rows = rows,
                   .dim = 16,
                   .pooling = {},
                   .alpha = alpha,
                   .q = 0,
                   .heavy_hitters = {},
                   .pruning = {}};
  Workload w;
  w.seed = seed;
  w.trace.layout = HotRowLayout::clustered;
  const BagGenerator gen(t, 0, w);  // pooling: fixed 1
  Bags b;
  gen.append(0, 0, n, RowSpace::row_id, b);
  return b.rows;
}

TEST(TraceStats, HandCountedTable) {
  // 4 samples, 12 lookups over a 200-row table: row 0 x5, row 1 x3, row 2 x2, rows 3, 4 x1.
  const auto p = profile_of(200, {0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4});
  const EmpiricalProfile* ps[] = {p.get()};
  const std::string names[] = {"items"};
  const TraceStats s = compute_trace_stats(ps, names, 4);
  ASSERT_EQ(s.tables.size(), 1u);
  const TraceTableStats& t = s.tables[0];
  EXPECT_EQ(t.name, "items");
  EXPECT_EQ(t.lookups, 12u);
  EXPECT_EQ(t.distinct_rows, 5.0);
  EXPECT_TRUE(t.distinct_exact);
  EXPECT_DOUBLE_EQ(t.mean_pooling, 3.0);
  // The top 1% of 200 rows is 2 rows: (5 + 3) / 12.
  EXPECT_DOUBLE_EQ(t.top1pct_share, 8.0 / 12);
  // Bins (0,1], (1,2], (2,4], (4,8]: rows {3, 4}, {2}, {1}, {0}.
  EXPECT_EQ(t.hist_distinct_by_count, (std::vector<double>{2, 1, 1, 1}));
  ASSERT_EQ(t.hist_lookups_by_count.size(), 4u);
  EXPECT_DOUBLE_EQ(t.hist_lookups_by_count[0], 2.0 / 12);
  EXPECT_DOUBLE_EQ(t.hist_lookups_by_count[1], 2.0 / 12);
  EXPECT_DOUBLE_EQ(t.hist_lookups_by_count[2], 3.0 / 12);
  EXPECT_DOUBLE_EQ(t.hist_lookups_by_count[3], 5.0 / 12);
  // alpha: the maximum of l(a) = -a Σ c_k ln k - M ln Σ_{k=1}^{200} k^-a, by brute force on a
  // grid of 10^-4.
  const std::vector<double> c = {5, 3, 2, 1, 1};
  const auto loglik = [&](double a) {
    double s1 = 0, z = 0;
    for (std::size_t k = 0; k < c.size(); ++k) s1 += c[k] * std::log(k + 1.0);
    for (int k = 1; k <= 200; ++k) z += std::pow(k, -a);
    return -a * s1 - 12 * std::log(z);
  };
  double best = 0, best_value = loglik(0);
  for (double a = 1e-4; a <= 3; a += 1e-4)
    if (const double v = loglik(a); v > best_value) best = a, best_value = v;
  ASSERT_TRUE(t.alpha_fit.has_value());
  EXPECT_NEAR(*t.alpha_fit, best, 2e-4);
  // One table: overall is the same.
  EXPECT_EQ(s.overall.lookups, 12u);
  EXPECT_DOUBLE_EQ(s.overall.top1pct_share, t.top1pct_share);
  EXPECT_NEAR(*s.overall.alpha_fit, *t.alpha_fit, 1e-6);
}

TEST(TraceStats, AlphaFitRecoversTheExponent) {
  // 2·10^6 draws over 10^4 rows: the maximum-likelihood exponent within 0.03 of the law's.
  for (double alpha : {0.8, 1.05, 1.3}) {
    const auto p = profile_of(10'000, zipf_ids(10'000, alpha, 2'000'000, 5));
    const auto fit = fit_zipf_alpha(p->count_groups(), 10'000);
    ASSERT_TRUE(fit.has_value());
    EXPECT_NEAR(*fit, alpha, 0.03) << alpha;
  }
}

TEST(TraceStats, OverallSumsTablesAndSharesOneExponent) {
  const auto a = profile_of(10'000, zipf_ids(10'000, 0.9, 300'000, 1));
  const auto b = profile_of(5'000, zipf_ids(5'000, 1.2, 100'000, 2));
  const EmpiricalProfile* ps[] = {a.get(), b.get()};
  const std::string names[] = {"a", "b"};
  const TraceStats s = compute_trace_stats(ps, names, 100'000);
  EXPECT_EQ(s.overall.lookups, 400'000u);
  EXPECT_EQ(s.overall.distinct_rows, a->distinct_rows() + b->distinct_rows());
  EXPECT_DOUBLE_EQ(s.overall.mean_pooling, 2.0);  // 400000 lookups / (2 tables x 100000 bags)
  double rows = 0, share = 0;
  for (std::size_t j = 0; j < s.overall.hist_distinct_by_count.size(); ++j) {
    rows += s.overall.hist_distinct_by_count[j];
    share += s.overall.hist_lookups_by_count[j];
  }
  EXPECT_EQ(rows, s.overall.distinct_rows);
  EXPECT_NEAR(share, 1.0, 1e-12);
  const double lo = std::min(*s.tables[0].alpha_fit, *s.tables[1].alpha_fit);
  const double hi = std::max(*s.tables[0].alpha_fit, *s.tables[1].alpha_fit);
  EXPECT_GT(*s.overall.alpha_fit, lo);
  EXPECT_LT(*s.overall.alpha_fit, hi);
  // No lookups: no exponent.
  EXPECT_FALSE(fit_zipf_alpha({}, 10).has_value());
}

}  // namespace
}  // namespace shardsim::trace_stats_test
