#include "shardsim/trace/zipf_sampler.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "shardsim/core/rng.hpp"
#include "shardsim/trace/power_law_profile.hpp"

namespace shardsim {
namespace {

EmbeddingTable table(std::uint64_t rows, double alpha, double q = 0,
                     std::vector<double> heavy = {}) {
  return EmbeddingTable{.name = std::string("t"),
                        .rows = rows,
                        .dim = 16,
                        .pooling = {},
                        .alpha = alpha,
                        .q = q,
                        .heavy_hitters = std::move(heavy)};
}

// Pearson's chi-square of the observed rank counts against the profile's probabilities.
double chi_square(const std::vector<double>& counts, const PowerLawProfile& prof, double draws) {
  double chi2 = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const double e = draws * prof.probability(r);
    chi2 += (counts[r] - e) * (counts[r] - e) / e;
  }
  return chi2;
}

TEST(ZipfSampler, SmallTablesMatchTheLawExactly) {
  // 40 ranks, 200k draws: chi-square with 39 degrees of freedom has mean 39, sd ~8.8; 99.99%
  // quantile ~ 80. A sampler with a wrong hat or squeeze fails this.
  struct Case {
    double alpha;
    double q;
    std::vector<double> heavy;
  };
  const std::vector<Case> cases = {{0.0, 0, {}},  {0.5, 0, {}},           {1.0, 0, {}},
                                   {1.05, 0, {}}, {1.5, 0, {}},           {2.5, 0, {}},
                                   {1.0, 50, {}}, {0.9, 3.5, {0.2, 0.1}}, {1.2, 0, {0.3}}};
  const std::uint64_t n = 40;
  const int draws = 200000;
  for (const auto& c : cases) {
    const auto t = table(n, c.alpha, c.q, c.heavy);
    const ZipfMandelbrotSampler sampler(t);
    const PowerLawProfile prof(t, HotRowLayout::clustered, 1);
    std::vector<double> counts(n, 0);
    Rng rng(17);
    for (int i = 0; i < draws; ++i) {
      const auto r = sampler(rng);
      ASSERT_LT(r, n);
      counts[r] += 1;
    }
    EXPECT_LT(chi_square(counts, prof, draws), 80.0)
        << "alpha " << c.alpha << " q " << c.q << " heavy " << c.heavy.size();
  }
}

TEST(ZipfSampler, HugeTablesMatchRangeMasses) {
  // 10^10 rows: the share of draws in rank ranges within 5 standard errors of the profile's mass.
  for (double alpha : {0.8, 1.05, 1.3}) {
    const auto t = table(10'000'000'000ULL, alpha, 2.0, {0.01});
    const ZipfMandelbrotSampler sampler(t);
    const PowerLawProfile prof(t, HotRowLayout::clustered, 1);
    const std::vector<std::uint64_t> edges = {
        0, 1, 10, 1000, 1'000'000, 100'000'000, 10'000'000'000ULL};
    std::vector<double> counts(edges.size() - 1, 0);
    const int draws = 200000;
    Rng rng(23);
    for (int i = 0; i < draws; ++i) {
      const auto r = sampler(rng);
      std::size_t b = 0;
      while (r >= edges[b + 1]) ++b;
      counts[b] += 1;
    }
    for (std::size_t b = 0; b + 1 < edges.size(); ++b) {
      const double p = prof.mass({edges[b], edges[b + 1]}, RowSpace::rank);
      EXPECT_NEAR(counts[b] / draws, p, 5 * std::sqrt(p * (1 - p) / draws) + 1e-6)
          << "alpha " << alpha << " ranks [" << edges[b] << ", " << edges[b + 1] << ")";
    }
  }
}

TEST(ZipfSampler, HeavyHittersCoveringEverything) {
  // Every row listed: only those ranks, with their probabilities.
  const auto t = table(2, 1.0, 0, {0.75, 0.25});
  const ZipfMandelbrotSampler sampler(t);
  Rng rng(3);
  int zeros = 0;
  for (int i = 0; i < 10000; ++i) zeros += sampler(rng) == 0;
  EXPECT_NEAR(zeros / 10000.0, 0.75, 5 * std::sqrt(0.75 * 0.25 / 10000));
  const auto single = table(1, 1.5);
  const ZipfMandelbrotSampler one(single);
  EXPECT_EQ(one(rng), 0u);
}

TEST(ZipfSampler, Deterministic) {
  const auto t = table(1'000'000, 1.05);
  const ZipfMandelbrotSampler sampler(t);
  Rng a(5), b(5);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(sampler(a), sampler(b));
}

}  // namespace
}  // namespace shardsim
