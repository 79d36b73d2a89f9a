#include "shardsim/trace/expected_count_histograms.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "shardsim/trace/bag_generator.hpp"
#include "shardsim/trace/power_law_profile.hpp"
#include "shardsim/trace/trace_stats.hpp"

namespace shardsim {
namespace {

EmbeddingTable hist_table(std::uint64_t rows, double alpha, double q, std::vector<double> hh = {}) {
  EmbeddingTable t;
  t.name = "t";
  t.rows = rows;
  t.dim = 16;
  t.alpha = alpha;
  t.q = q;
  t.heavy_hitters = std::move(hh);
  return t;
}

TEST(ExpectedCountHistograms, Bins) {
  EXPECT_EQ(count_bin(1), 0u);
  EXPECT_EQ(count_bin(2), 1u);
  EXPECT_EQ(count_bin(3), 2u);
  EXPECT_EQ(count_bin(4), 2u);
  EXPECT_EQ(count_bin(5), 3u);
  EXPECT_EQ(count_bin(1024), 10u);
  EXPECT_EQ(count_bin(1025), 11u);
}

TEST(ExpectedCountHistograms, HandCalculatedTwoRows) {
  // Two equally likely rows, 3 lookups: counts (3,0) or (0,3) with probability 1/4, else (2,1).
  // Rows: bin 0 (count 1): 2 * P(Bin(3, 1/2) = 1) = 3/4; bin 1 (count 2): 3/4; bin 2 (3): 1/4.
  // Lookups: bin 0: 3/4 * 1, bin 1: 3/4 * 2, bin 2: 1/4 * 3.
  const PowerLawProfile p(hist_table(2, 0.0, 0.0), HotRowLayout::clustered, 1);
  const CountHistograms h = expected_count_histograms(p, 3.0);
  ASSERT_EQ(h.rows.size(), 3u);
  EXPECT_NEAR(h.rows[0], 0.75, 1e-12);
  EXPECT_NEAR(h.rows[1], 0.75, 1e-12);
  EXPECT_NEAR(h.rows[2], 0.25, 1e-12);
  ASSERT_EQ(h.lookups.size(), 3u);
  EXPECT_NEAR(h.lookups[0], 0.75, 1e-12);
  EXPECT_NEAR(h.lookups[1], 1.5, 1e-12);
  EXPECT_NEAR(h.lookups[2], 0.75, 1e-12);
}

TEST(ExpectedCountHistograms, SumsAreDistinctRowsAndLookups) {
  const PowerLawProfile p(hist_table(100'000'000, 1.05, 3.0, {0.02}), HotRowLayout::clustered, 1);
  const double n = 5e6;
  const CountHistograms h = expected_count_histograms(p, n);
  double rows = 0, lookups = 0;
  for (double x : h.rows) rows += x;
  for (double x : h.lookups) lookups += x;
  EXPECT_NEAR(lookups / n, 1.0, 1e-6);
  const double distinct = p.expected_distinct(RowRange{0, 100'000'000}, RowSpace::rank, n);
  EXPECT_NEAR(rows / distinct, 1.0, 2e-3);
}

TEST(ExpectedCountHistograms, FoldsAnOpenLastBin) {
  const std::vector<double> bins{1, 1, 1, 1};
  EXPECT_EQ(bin_shares(bins, 2), (std::vector<double>{0.25, 0.25, 0.5}));
  EXPECT_EQ(bin_shares(bins, 5), (std::vector<double>{0.25, 0.25, 0.25, 0.25, 0, 0}));
  EXPECT_DOUBLE_EQ(l1_distance(std::vector<double>{0.5, 0.5}, std::vector<double>{1.0}), 1.0);
}

// The closed form against `trace stats` of sampled lookups: within 0.02 L1 on both histograms
// (shares), over profiles from almost all rows seen once to almost all seen hundreds of times.
TEST(ExpectedCountHistograms, AgreesWithSampledTraceStats) {
  struct Case {
    EmbeddingTable t;
    std::uint32_t lookups;
  };
  const std::vector<Case> cases{
      {hist_table(100'000, 1.05, 0.0), 200'000},
      {hist_table(1'000'000, 0.8, 0.0), 1'000'000},
      {hist_table(10'000, 1.3, 10.0, {0.05}), 500'000},
      {hist_table(10'000'000, 0.5, 0.0), 500'000},
      {hist_table(1'000, 0.0, 0.0), 200'000},
      {hist_table(1'000'000'000, 1.2, 50.0), 1'000'000},
      {hist_table(50'000, 0.9, 1000.0), 1'000'000},
  };
  // A histogram of one sample moves by whole rows: a hot row whose count sits near a bin edge
  // carries its lookups to one bin or the other (a 5% row flips 0.1 of L1). The closed form is
  // the expectation, so it is compared with the mean of kSeeds samples.
  constexpr int kSeeds = 4;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const EmbeddingTable& t = cases[c].t;
    std::vector<double> rows_mean, lookups_mean;
    for (int seed = 0; seed < kSeeds; ++seed) {
      Workload w;
      w.seed = 7 + 100 * c + static_cast<std::uint64_t>(seed);
      w.trace.layout = HotRowLayout::clustered;
      const BagGenerator gen(t, 0, w);  // pooling: fixed 1, so `lookups` bags of one row
      Bags bags;
      gen.append(0, 0, cases[c].lookups, RowSpace::row_id, bags);
      const auto sampled = build_empirical_profile(
          t.rows, [&](const auto& sink) { sink(std::span<const std::uint64_t>(bags.rows)); });
      const EmpiricalProfile* ps[] = {sampled.get()};
      const std::string names[] = {"t"};
      const TraceStats st = compute_trace_stats(ps, names, cases[c].lookups);
      const auto add = [](std::vector<double>& sum, const std::vector<double>& x) {
        sum.resize(std::max(sum.size(), x.size()), 0.0);
        for (std::size_t j = 0; j < x.size(); ++j) sum[j] += x[j] / kSeeds;
      };
      add(rows_mean, st.tables[0].hist_distinct_by_count);
      add(lookups_mean, st.tables[0].hist_lookups_by_count);
    }
    const PowerLawProfile p(t, HotRowLayout::clustered, 1);
    const CountHistograms h = expected_count_histograms(p, cases[c].lookups);
    const double d_rows = l1_distance(bin_shares(h.rows), bin_shares(rows_mean));
    const double d_lookups = l1_distance(bin_shares(h.lookups), bin_shares(lookups_mean));
    EXPECT_LE(d_rows, 0.02) << "case " << c;
    EXPECT_LE(d_lookups, 0.02) << "case " << c;
    RecordProperty("case" + std::to_string(c),
                   std::to_string(d_rows) + " " + std::to_string(d_lookups));
    std::printf("case %zu: L1 rows %.4f lookups %.4f\n", c, d_rows, d_lookups);
  }
}

}  // namespace
}  // namespace shardsim
