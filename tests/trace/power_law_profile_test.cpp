#include "shardsim/trace/power_law_profile.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace shardsim {
namespace {

EmbeddingTable table(std::uint64_t rows, double alpha, double q = 0,
                     std::vector<double> heavy = {}) {
  // Designated initialisers: assigning a short literal to `name` trips GCC 12's -Wrestrict
  // false positive (GCC bug 105329) at -O3.
  return EmbeddingTable{.name = std::string("t"),
                        .rows = rows,
                        .dim = 16,
                        .pooling = {},
                        .alpha = alpha,
                        .q = q,
                        .heavy_hitters = std::move(heavy),
                        .pruning = {}};
}

// Every rank's probability by brute force, from the definition (heavy hitters first, then
// (k + q)^-alpha normalised over the remaining ranks).
std::vector<double> brute_probabilities(const EmbeddingTable& t) {
  std::vector<double> p(t.rows);
  const std::size_t m = t.heavy_hitters.size();
  long double heavy = 0, z = 0;
  for (std::size_t r = 0; r < m; ++r) heavy += t.heavy_hitters[r];
  for (std::size_t r = t.rows; r-- > m;) z += std::pow(double(r + 1) + t.q, -t.alpha);
  for (std::size_t r = 0; r < t.rows; ++r)
    p[r] = r < m ? t.heavy_hitters[r]
                 : static_cast<double>((1 - heavy) * std::pow(double(r + 1) + t.q, -t.alpha) / z);
  return p;
}

// Sums of a per-rank quantity over ranges: prefix sums in long double for long ranges, direct
// summation (smallest terms first) for short ones, where a difference of prefixes would lose
// digits.
class RangeSums {
 public:
  explicit RangeSums(std::vector<double> values) : v_(std::move(values)), prefix_(v_.size() + 1) {
    for (std::size_t i = 0; i < v_.size(); ++i) prefix_[i + 1] = prefix_[i] + v_[i];
  }
  double operator()(std::uint64_t b, std::uint64_t e) const {
    if (e - b > 5000) return static_cast<double>(prefix_[e] - prefix_[b]);
    long double s = 0;
    for (std::uint64_t r = e; r-- > b;) s += v_[r];
    return static_cast<double>(s);
  }

 private:
  std::vector<double> v_;
  std::vector<long double> prefix_;
};

std::vector<double> touch_probabilities(const std::vector<double>& p, double n) {
  std::vector<double> g(p.size());
  for (std::size_t r = 0; r < p.size(); ++r) g[r] = -std::expm1(n * std::log1p(-p[r]));
  return g;
}

struct Case {
  double alpha;
  double q;
  std::vector<double> heavy;
};
const std::vector<Case> kCases = {
    {0.0, 0, {}},
    {0.5, 0, {}},
    {1.0, 0, {}},
    {1.05, 0, {}},
    {1.5, 0, {}},
    {0.0, 50, {}},
    {0.5, 50, {}},
    {1.0, 50, {}},
    {1.05, 50, {}},
    {1.5, 50, {}},
    {1.05, 0, {0.004, 0.003}},
    {0.9, 50, {0.2, 0.1, 0.1}},
    {1.5, 0, {0.5}},
};

std::vector<RowRange> ranges_of(std::uint64_t n) {
  return {{0, n},
          {0, 1},
          {0, 10},
          {3, 70},
          {0, n / 2},
          {n / 2, n},
          {n / 3, n / 3 + 1000},
          {1000, n - 1000},
          {n - 1, n},
          {n / 7, 2 * n / 7},
          {5, 5}};
}

TEST(PowerLawProfile, MassSumsToOne) {
  for (const auto& c : kCases) {
    for (std::uint64_t n : {1ULL, 3ULL, 1000ULL, 10'000'000'000ULL}) {
      if (c.heavy.size() >= n) continue;
      PowerLawProfile prof(table(n, c.alpha, c.q, c.heavy), HotRowLayout::clustered, 1);
      EXPECT_NEAR(prof.mass({0, n}, RowSpace::rank), 1.0, 1e-12) << c.alpha << " " << n;
    }
  }
}

TEST(PowerLawProfile, MassMatchesBruteForce) {
  const std::uint64_t n = 1'000'000;
  for (const auto& c : kCases) {
    const auto t = table(n, c.alpha, c.q, c.heavy);
    const auto p = brute_probabilities(t);
    PowerLawProfile prof(t, HotRowLayout::clustered, 1);
    for (std::uint64_t r : {0ULL, 1ULL, 2ULL, 999ULL, 999'999ULL})
      EXPECT_NEAR(prof.probability(r), p[r], 1e-9 * p[r]);
    const RangeSums mass(p);
    for (const auto& range : ranges_of(n)) {
      const double want = mass(range.begin, range.end);
      EXPECT_NEAR(prof.mass(range, RowSpace::rank), want, 1e-7 * want + 1e-300)
          << "alpha " << c.alpha << " q " << c.q << " heavy " << c.heavy.size() << " ["
          << range.begin << ", " << range.end << ")";
      // Clustered: row ids are ranks.
      EXPECT_EQ(prof.mass(range, RowSpace::row_id), prof.mass(range, RowSpace::rank));
    }
  }
}

TEST(PowerLawProfile, ExpectedDistinctMatchesBruteForce) {
  const std::uint64_t n = 1'000'000;
  for (const auto& c : kCases) {
    const auto t = table(n, c.alpha, c.q, c.heavy);
    const auto p = brute_probabilities(t);
    PowerLawProfile prof(t, HotRowLayout::clustered, 1);
    for (double lookups : {1.0, 37.5, 1e4, 3e5, 1e7, 1e9}) {
      const RangeSums distinct(touch_probabilities(p, lookups));
      for (const auto& range : ranges_of(n)) {
        const double want = distinct(range.begin, range.end);
        EXPECT_NEAR(prof.expected_distinct(range, RowSpace::rank, lookups), want,
                    1e-7 * want + 1e-300)
            << "alpha " << c.alpha << " q " << c.q << " heavy " << c.heavy.size() << " lookups "
            << lookups << " [" << range.begin << ", " << range.end << ")";
      }
    }
  }
}

TEST(PowerLawProfile, DistinctIsBoundedAndMonotone) {
  PowerLawProfile prof(table(1'000'000, 1.05), HotRowLayout::clustered, 1);
  double prev = 0;
  for (double lookups : {0.0, 1.0, 10.0, 1e3, 1e5, 1e7, 1e9, 1e12}) {
    const double d = prof.expected_distinct({0, 1'000'000}, RowSpace::rank, lookups);
    EXPECT_GE(d, prev);
    EXPECT_LE(d, std::min(lookups, 1e6) + 1e-6);
    prev = d;
  }
  EXPECT_EQ(prof.expected_distinct({0, 1'000'000}, RowSpace::rank, 0.0), 0.0);
  // One lookup touches exactly one row: expected distinct = its mass.
  EXPECT_NEAR(prof.expected_distinct({10, 5000}, RowSpace::rank, 1.0),
              prof.mass({10, 5000}, RowSpace::rank), 1e-12);
}

TEST(PowerLawProfile, ScatteredLayoutIsABijection) {
  for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 17ULL, 1000ULL, 65536ULL, 100'003ULL}) {
    RowLayout layout(HotRowLayout::scattered, n, 42);
    std::vector<bool> seen(n, false);
    for (std::uint64_t r = 0; r < n; ++r) {
      const std::uint64_t id = layout.row_of_rank(r);
      ASSERT_LT(id, n);
      ASSERT_FALSE(seen[id]) << "row " << id << " hit twice, n = " << n;
      seen[id] = true;
      ASSERT_EQ(layout.rank_of_row(id), r);
    }
  }
}

TEST(PowerLawProfile, ScatteredLayoutDependsOnSeedAndMovesHotRows) {
  RowLayout a(HotRowLayout::scattered, 1'000'000, 1);
  RowLayout b(HotRowLayout::scattered, 1'000'000, 2);
  int same = 0, low = 0;
  for (std::uint64_t r = 0; r < 100; ++r) {
    same += a.row_of_rank(r) == b.row_of_rank(r);
    low += a.row_of_rank(r) < 500'000;
  }
  EXPECT_LT(same, 5);
  EXPECT_GT(low, 30);  // about half of the 100 hottest rows land in the lower half
  EXPECT_LT(low, 70);
  RowLayout c(HotRowLayout::clustered, 1000, 1);
  EXPECT_EQ(c.row_of_rank(17), 17u);
}

TEST(PowerLawProfile, ScatteredSpreadsHotRowsOverHalves) {
  const std::uint64_t n = 100'000'000;
  const auto t = table(n, 1.05);
  PowerLawProfile clustered(t, HotRowLayout::clustered, 3);
  PowerLawProfile scattered(t, HotRowLayout::scattered, 3);
  const double lower_clustered = clustered.mass({0, n / 2}, RowSpace::row_id);
  EXPECT_GT(lower_clustered, 0.95);
  const double lower = scattered.mass({0, n / 2}, RowSpace::row_id);
  const double upper = scattered.mass({n / 2, n}, RowSpace::row_id);
  EXPECT_NEAR(lower + upper, 1.0, 1e-12);
  EXPECT_NEAR(lower, 0.5, 0.06);
  // Rank space does not depend on the layout.
  EXPECT_DOUBLE_EQ(scattered.mass({0, 1000}, RowSpace::rank),
                   clustered.mass({0, 1000}, RowSpace::rank));
}

TEST(PowerLawProfile, ScatteredMassIsExactForSmallTables) {
  // N <= head ranks: every rank is located through the hash.
  const std::uint64_t n = 3000;
  const auto t = table(n, 1.2, 5, {0.1});
  PowerLawProfile prof(t, HotRowLayout::scattered, 9);
  const auto p = brute_probabilities(t);
  std::vector<double> by_row(n);
  for (std::uint64_t r = 0; r < n; ++r) by_row[prof.row_of_rank(r)] = p[r];
  const RangeSums mass(by_row);
  const RangeSums distinct(touch_probabilities(by_row, 5000));
  for (const auto& range : ranges_of(n)) {
    const double want = mass(range.begin, range.end);
    EXPECT_NEAR(prof.mass(range, RowSpace::row_id), want, 1e-9 * want + 1e-300);
    const double want_d = distinct(range.begin, range.end);
    EXPECT_NEAR(prof.expected_distinct(range, RowSpace::row_id, 5000), want_d,
                1e-9 * want_d + 1e-300);
  }
}

TEST(PowerLawProfile, ScatteredApproximationErrorIsSmall) {
  // N > head ranks: the ranks past the head H = 4096 are spread by row count. Against the exact
  // sums through the hash, each of 8 equal blocks is within 3 standard deviations of the
  // random-permutation model of docs/traces.md: sd <= sqrt(f (1 - f) p_{H+1} T_H) for the mass
  // (T_H the mass past the head, f ~ 1/8 the block's share of those rows) and likewise with
  // g_k = 1 - (1 - p_k)^n for distinct rows. Here the mass sd is ~7e-4, 0.6% of a block's mass.
  const std::uint64_t n = 1'000'000;
  const std::uint64_t head = 4096;
  const auto t = table(n, 1.05);
  PowerLawProfile prof(t, HotRowLayout::scattered, 11);
  const auto p = brute_probabilities(t);
  const double lookups = 1e6;
  const auto g = touch_probabilities(p, lookups);
  const double mass_past_head = prof.mass({head, n}, RowSpace::rank);
  const double distinct_past_head = prof.expected_distinct({head, n}, RowSpace::rank, lookups);
  const double f = 1.0 / 8;
  const double sd_mass = std::sqrt(f * (1 - f) * p[head] * mass_past_head);
  const double sd_distinct = std::sqrt(f * (1 - f) * g[head] * distinct_past_head);
  EXPECT_LT(sd_mass, 0.01 * 0.125);
  std::vector<double> by_row(n), g_by_row(n);
  for (std::uint64_t r = 0; r < n; ++r) {
    by_row[prof.row_of_rank(r)] = p[r];
    g_by_row[prof.row_of_rank(r)] = g[r];
  }
  const RangeSums mass(by_row);
  const RangeSums distinct(g_by_row);
  const std::uint64_t blocks = 8;
  double total = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const RowRange range{b * n / blocks, (b + 1) * n / blocks};
    const double got = prof.mass(range, RowSpace::row_id);
    EXPECT_NEAR(got, mass(range.begin, range.end), 3 * sd_mass) << "block " << b;
    total += got;
    EXPECT_NEAR(prof.expected_distinct(range, RowSpace::row_id, lookups),
                distinct(range.begin, range.end), 3 * sd_distinct)
        << "block " << b;
  }
  EXPECT_NEAR(total, 1.0, 1e-12);
}

TEST(PowerLawProfile, TheWholeTableInRowIdsIsTheRankSpaceAnswer) {
  // Every row id is some rank's, so the whole table is answered in rank space (no head index):
  // the same number as a rank query, and what the head-and-spread sums give over a partition.
  const std::uint64_t n = 1'000'000;
  PowerLawProfile prof(table(n, 1.05, 2, {0.05}), HotRowLayout::scattered, 11);
  const RowRange all{0, n};
  const double lookups = 3e5;
  EXPECT_EQ(prof.mass(all, RowSpace::row_id), prof.mass(all, RowSpace::rank));
  EXPECT_EQ(prof.expected_distinct(all, RowSpace::row_id, lookups),
            prof.expected_distinct(all, RowSpace::rank, lookups));
  double mass = 0, distinct = 0;
  for (std::uint64_t b = 0; b < 8; ++b) {
    const RowRange block{b * n / 8, (b + 1) * n / 8};
    mass += prof.mass(block, RowSpace::row_id);
    distinct += prof.expected_distinct(block, RowSpace::row_id, lookups);
  }
  EXPECT_NEAR(prof.mass(all, RowSpace::row_id), mass, 1e-12);
  const double whole = prof.expected_distinct(all, RowSpace::row_id, lookups);
  EXPECT_NEAR(whole, distinct, 1e-9 * whole);
}

TEST(PowerLawProfile, RanksCovering) {
  // Uniform over 1000 rows: half the mass needs 500 ranks.
  PowerLawProfile uniform(table(1000, 0.0), HotRowLayout::clustered, 1);
  EXPECT_EQ(uniform.ranks_covering(0.5), 500u);
  EXPECT_EQ(uniform.ranks_covering(0.0), 0u);
  EXPECT_EQ(uniform.ranks_covering(1.0), 1000u);
  PowerLawProfile skewed(table(10'000'000'000ULL, 1.05, 0, {0.3}), HotRowLayout::clustered, 1);
  EXPECT_EQ(skewed.ranks_covering(0.3), 1u);
  const auto r = skewed.ranks_covering(0.8);
  EXPECT_GE(skewed.mass({0, r}, RowSpace::rank), 0.8);
  EXPECT_LT(skewed.mass({0, r - 1}, RowSpace::rank), 0.8);
}

TEST(PowerLawProfile, RanksCoveringIsBisectionsAnswer) {
  // The interpolating search returns exactly what plain bisection over rank prefixes returns,
  // for flat, skewed and very skewed laws, offsets, heavy hitters and tiny to huge tables, and
  // a crossing of the target always.
  const auto bisection = [](const AccessProfile& p, double target) {
    std::uint64_t lo = 1, hi = p.num_rows();
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (p.mass({0, mid}, RowSpace::rank) >= target) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };
  int checked = 0;
  for (std::uint64_t rows : {1ULL, 7ULL, 1000ULL, 3'000'000ULL, 50'000'000'000ULL}) {
    for (double alpha : {0.0, 0.5, 0.95, 1.0, 1.05, 1.3, 2.0}) {
      for (double q : {0.0, 10.0}) {
        const PowerLawProfile p(
            table(rows, alpha, q,
                  q > 0 && rows > 1 ? std::vector<double>{0.05} : std::vector<double>{}),
            HotRowLayout::clustered, 1);
        for (double target : {1e-9, 1e-4, 0.01, 0.05, 0.2, 0.5, 0.77, 0.9, 0.999, 1.0}) {
          const std::uint64_t r = p.ranks_covering(target);
          // Where the prefix mass is within rounding of 1 it is flat and not quite monotone
          // (5e10 rows at alpha 2: the last 2e5 ranks add less than an ulp), and the two
          // searches may stop at different crossings; both are crossings.
          if (target < 1) {
            EXPECT_EQ(r, bisection(p, target))
                << rows << " rows, alpha " << alpha << ", q " << q << ", target " << target;
          }
          if (r < rows) {
            EXPECT_GE(p.mass({0, r}, RowSpace::rank), target);
          }
          EXPECT_LT(p.mass({0, r - 1}, RowSpace::rank), target);
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 5 * 7 * 2 * 10);
}

TEST(PowerLawProfile, CrossingWithinABracketIsTheWholeSearchsAnswer) {
  // Walking a table from its hottest rank in steps of mass, as OPER's partitioning does: each
  // crossing searched within [previous + 1, previous + cap] is ranks_covering()'s rank when that
  // lies in the bracket, and the cap otherwise; the masses returned are mass()'s.
  int checked = 0;
  for (std::uint64_t rows : {7ULL, 1000ULL, 3'000'000ULL}) {
    for (double alpha : {0.0, 0.95, 1.3}) {
      const PowerLawProfile p(table(rows, alpha, 2.0, {0.05}), HotRowLayout::clustered, 1);
      for (std::uint64_t cap : {std::uint64_t{1}, std::uint64_t{3}, rows / 10 + 1, rows}) {
        std::uint64_t begin = 0;
        double before = 0;
        for (int step = 1; step < 60 && begin < rows; ++step) {
          const double target = before + 0.024;
          const std::uint64_t hi = std::min(rows, begin + cap);
          const double at_hi = p.mass({0, hi}, RowSpace::rank);
          if (target >= 1 || at_hi < target) {
            begin = hi;
            before = at_hi;
            continue;
          }
          const AccessProfile::Crossing c = p.crossing_within(target, begin + 1, before, hi, at_hi);
          EXPECT_EQ(c.rank, p.ranks_covering(target)) << rows << " " << alpha << " " << cap;
          EXPECT_EQ(c.mass_at, p.mass({0, c.rank}, RowSpace::rank));
          EXPECT_EQ(c.mass_below, p.mass({0, c.rank - 1}, RowSpace::rank));
          EXPECT_GE(c.mass_at, target);
          EXPECT_LT(c.mass_below, target);
          begin = c.rank;
          before = c.mass_at;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
  const PowerLawProfile p(table(1000, 1.0), HotRowLayout::clustered, 1);
  EXPECT_THROW(p.crossing_within(0.5, 0, 0.0, 10, 1.0), std::invalid_argument);
  EXPECT_THROW(p.crossing_within(0.5, 11, 0.0, 10, 1.0), std::invalid_argument);
  EXPECT_THROW(p.crossing_within(0.5, 1, 0.0, 1001, 1.0), std::invalid_argument);
}

TEST(PowerLawProfile, RejectsBadTablesAndRanges) {
  EXPECT_THROW(PowerLawProfile(table(0, 1.0), HotRowLayout::clustered, 1), std::invalid_argument);
  EXPECT_THROW(PowerLawProfile(table(10, -1.0), HotRowLayout::clustered, 1), std::invalid_argument);
  EXPECT_THROW(PowerLawProfile(table(10, 1.0, 0, {0.7, 0.6}), HotRowLayout::clustered, 1),
               std::invalid_argument);
  PowerLawProfile prof(table(10, 1.0), HotRowLayout::scattered, 1);
  EXPECT_THROW(prof.mass({0, 11}, RowSpace::rank), std::invalid_argument);
  EXPECT_THROW(prof.mass({5, 4}, RowSpace::row_id), std::invalid_argument);
  EXPECT_THROW(prof.expected_distinct({0, 11}, RowSpace::rank, 5), std::invalid_argument);
}

TEST(PowerLawProfile, FactoryBuildsThePowerLaw) {
  const auto t = table(1000, 1.0, 0, {0.25});
  auto prof = make_power_law_profile(t, HotRowLayout::scattered, 5);
  EXPECT_EQ(prof->num_rows(), 1000u);
  EXPECT_DOUBLE_EQ(prof->mass({0, 1}, RowSpace::rank), 0.25);
  const std::uint64_t hottest = prof->row_of_rank(0);
  EXPECT_EQ(prof->rank_of_row(hottest), 0u);
  EXPECT_DOUBLE_EQ(prof->mass({hottest, hottest + 1}, RowSpace::row_id), 0.25);
}

}  // namespace
}  // namespace shardsim
