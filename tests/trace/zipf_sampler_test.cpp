#include "shardsim/trace/zipf_sampler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "shardsim/core/rng.hpp"
#include "shardsim/trace/power_law_profile.hpp"

namespace shardsim::zipf_sampler_test {
namespace {

EmbeddingTable table(std::uint64_t rows, double alpha, double q = 0,
                     std::vector<double> heavy = {}) {
  return EmbeddingTable{.name = std::string("t"),
                        .rows = rows,
                        .dim = 16,
                        .pooling = {},
                        .alpha = alpha,
                        .q = q,
                        .heavy_hitters = std::move(heavy),
                        .pruning = {}};
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

TEST(ZipfSampler, MidSizedTableMatchesEveryRank) {
  // 3000 ranks span single-rank categories and multi-rank cells (where the within-cell rejection
  // step decides the rank). 3 M draws; chi-square with 2999 degrees of freedom has mean 2999 and
  // sd sqrt(2·2999) ~ 77; 6 sd above the mean is a 1e-8 false alarm. Ranks are pooled so that
  // every expected count is >= 20 (the chi-square approximation needs that).
  for (const double alpha : {0.7, 1.05, 2.0}) {
    const auto t = table(3000, alpha, 0.5, {0.05});
    const ZipfMandelbrotSampler sampler(t);
    const PowerLawProfile prof(t, HotRowLayout::clustered, 1);
    const int draws = 3'000'000;
    std::vector<double> counts(t.rows, 0);
    Rng rng(99);
    for (int i = 0; i < draws; ++i) counts[sampler(rng)] += 1;
    double chi2 = 0, observed = 0, expected = 0;
    int bins = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      observed += counts[r];
      expected += draws * prof.probability(r);
      if (expected >= 20 || r + 1 == counts.size()) {
        chi2 += (observed - expected) * (observed - expected) / expected;
        observed = expected = 0;
        ++bins;
      }
    }
    const double df = bins - 1;
    EXPECT_LT(chi2, df + 6 * std::sqrt(2 * df)) << "alpha " << alpha << ", " << bins << " bins";
    // Most ranks sit in multi-rank cells, so the rejection step is what this checks.
    EXPECT_LT(sampler.num_categories(), 1000u);
  }
}

TEST(ZipfSampler, KolmogorovSmirnovOnABillionRows) {
  // The empirical CDF of 10^6 draws over 10^9 ranks against the analytic CDF (profile mass of
  // [0, r)) at 400 log-spaced ranks. By the Dvoretzky–Kiefer–Wolfowitz inequality,
  // P(sup |F_n - F| > eps) <= 2 exp(-2 n eps^2): eps = sqrt(ln(2/1e-9) / (2n)) = 0.0033 for a
  // 1e-9 false alarm (a sup over a subset of points is no larger).
  for (const double alpha : {0.0, 0.5, 1.05, 1.3}) {
    const auto t = table(1'000'000'000, alpha, alpha == 1.3 ? 3.0 : 0.0);
    const ZipfMandelbrotSampler sampler(t);
    const PowerLawProfile prof(t, HotRowLayout::clustered, 1);
    const int n = 1'000'000;
    std::vector<std::uint64_t> ranks(n);
    Rng rng(2024);
    sampler.fill(rng, ranks);
    std::sort(ranks.begin(), ranks.end());
    double worst = 0;
    for (int i = 0; i <= 400; ++i) {
      const auto r = static_cast<std::uint64_t>(std::pow(1e9, i / 400.0));
      const double empirical =
          static_cast<double>(std::lower_bound(ranks.begin(), ranks.end(), r) - ranks.begin()) / n;
      worst = std::max(worst, std::abs(empirical - prof.mass({0, r}, RowSpace::rank)));
    }
    EXPECT_LT(worst, std::sqrt(std::log(2 / 1e-9) / (2.0 * n))) << "alpha " << alpha;
  }
}

TEST(ZipfSampler, FillEqualsRepeatedDraws) {
  const ZipfMandelbrotSampler sampler(table(1'000'000, 1.05));
  Rng a(8), b(8);
  std::vector<std::uint64_t> filled(500);
  sampler.fill(a, filled);
  for (std::uint64_t r : filled) ASSERT_EQ(r, sampler(b));
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
}  // namespace shardsim::zipf_sampler_test
