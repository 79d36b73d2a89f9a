#include "shardsim/trace/bag_generator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "shardsim/trace/power_law_profile.hpp"
#include "support/power_law_table.hpp"

namespace shardsim {
namespace {

EmbeddingTable table(std::uint64_t rows, double alpha, PoolingSpec pooling) {
  return testing::power_law_table(rows, alpha, std::move(pooling));
}

PoolingSpec fixed(double v) {
  return PoolingSpec::fixed_at(v);
}
PoolingSpec uniform(double lo, double hi) {
  return PoolingSpec::uniform_between(lo, hi);
}
Workload workload(HotRowLayout layout, bool unique = false, double reuse = 0,
                  std::uint64_t seed = 42) {
  Workload w;
  w.seed = seed;
  w.trace.layout = layout;
  w.trace.unique_in_bag = unique;
  w.trace.reuse = reuse;
  return w;
}

Bags bags_of(const BagGenerator& g, int iteration, int gpu, std::uint32_t samples,
             RowSpace space = RowSpace::row_id) {
  Bags b;
  g.append(iteration, gpu, samples, space, b);
  return b;
}

TEST(BagGenerator, LengthsFollowThePoolingAndRowsStayInTheTable) {
  const BagGenerator fixed_gen(table(1000, 1.0, fixed(7)), 0, workload(HotRowLayout::clustered));
  const Bags f = bags_of(fixed_gen, 0, 0, 100);
  ASSERT_EQ(f.lengths.size(), 100u);
  for (std::uint32_t l : f.lengths) EXPECT_EQ(l, 7u);
  EXPECT_EQ(f.rows.size(), 700u);

  // Uniform 1..9: mean 5; 20000 samples, sd of the mean sqrt((81 - 1)/12 / 20000) = 0.018.
  const BagGenerator gen(table(1000, 1.0, uniform(1, 9)), 0, workload(HotRowLayout::scattered));
  const Bags u = bags_of(gen, 3, 1, 20000);
  double sum = 0;
  for (std::uint32_t l : u.lengths) {
    EXPECT_GE(l, 1u);
    EXPECT_LE(l, 9u);
    sum += l;
  }
  EXPECT_NEAR(sum / 20000, 5.0, 5 * 0.018);
  EXPECT_EQ(u.rows.size(), static_cast<std::size_t>(sum));
  for (std::uint64_t r : u.rows) EXPECT_LT(r, 1000u);
  EXPECT_EQ(gen.lengths(3, 1, 20000), u.lengths);
}

TEST(BagGenerator, ABadTableIsRefusedAtConstructionThoughTheSamplerWaits) {
  // The sampler is built on the first bag; the table is still checked at once, with the
  // sampler's message.
  const auto bad = table(1000, -1.0, fixed(1));
  try {
    const BagGenerator gen(bad, 0, workload(HotRowLayout::clustered));
    FAIL() << "a negative alpha was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("table '" + bad.name + "': alpha"), std::string::npos)
        << e.what();
  }
  // No rows: the table's message too, not the row layout's.
  try {
    const BagGenerator gen(table(0, 1.0, fixed(1)), 0, workload(HotRowLayout::scattered));
    FAIL() << "a table without rows was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("table '" + bad.name + "': rows"), std::string::npos)
        << e.what();
  }
  const auto good = table(1000, 1.0, fixed(3));
  const BagGenerator gen(good, 0, workload(HotRowLayout::clustered));
  const ZipfMandelbrotSampler& first = gen.sampler();
  EXPECT_EQ(&first, &gen.sampler());  // built once
  EXPECT_EQ(bags_of(gen, 0, 0, 4).rows.size(), 12u);
}

TEST(BagGenerator, ScatteredRowIdsAreTheLayoutOfTheRanks) {
  const BagGenerator gen(table(100'000, 1.05, fixed(5)), 2, workload(HotRowLayout::scattered));
  const Bags ranks = bags_of(gen, 1, 0, 300, RowSpace::rank);
  const Bags rows = bags_of(gen, 1, 0, 300, RowSpace::row_id);
  ASSERT_EQ(ranks.rows.size(), rows.rows.size());
  for (std::size_t i = 0; i < ranks.rows.size(); ++i)
    EXPECT_EQ(rows.rows[i], gen.layout().row_of_rank(ranks.rows[i]));
}

TEST(BagGenerator, DeterministicWhateverTheThreadsAndOrder) {
  // Every (iteration, gpu) batch drawn serially, then again from 4 threads in reverse order:
  // identical bags.
  const BagGenerator gen(table(50'000, 1.1, uniform(1, 20)), 5,
                         workload(HotRowLayout::scattered, true, 0.4, 7));
  std::vector<Bags> serial;
  for (int it = 0; it < 4; ++it)
    for (int g = 0; g < 4; ++g) serial.push_back(bags_of(gen, it, g, 500));
  std::vector<Bags> parallel(serial.size());
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; ++th)
    threads.emplace_back([&, th] {
      for (int k = static_cast<int>(serial.size()) - 1 - th; k >= 0; k -= 4)
        parallel[k] = bags_of(gen, k / 4, k % 4, 500);
    });
  for (auto& t : threads) t.join();
  for (std::size_t k = 0; k < serial.size(); ++k) {
    EXPECT_EQ(serial[k].lengths, parallel[k].lengths) << k;
    EXPECT_EQ(serial[k].rows, parallel[k].rows) << k;
  }
  // Another seed gives other bags.
  const BagGenerator other(table(50'000, 1.1, uniform(1, 20)), 5,
                           workload(HotRowLayout::scattered, true, 0.4, 8));
  EXPECT_NE(bags_of(other, 0, 0, 500).rows, serial[0].rows);
}

TEST(BagGenerator, UniqueBagsHoldDistinctRows) {
  // alpha 1.5 over 200 rows with bags of 30: without uniqueness the hottest row (p ~ 0.4)
  // repeats in almost every bag.
  const auto t = table(200, 1.5, fixed(30));
  const BagGenerator unique(t, 0, workload(HotRowLayout::scattered, true));
  const BagGenerator plain(t, 0, workload(HotRowLayout::scattered, false));
  const auto count_repeats = [](const Bags& b) {
    int bags_with_repeats = 0;
    std::size_t at = 0;
    for (std::uint32_t l : b.lengths) {
      std::set<std::uint64_t> seen(b.rows.begin() + at, b.rows.begin() + at + l);
      bags_with_repeats += seen.size() < l;
      at += l;
    }
    return bags_with_repeats;
  };
  EXPECT_EQ(count_repeats(bags_of(unique, 0, 0, 2000)), 0);
  EXPECT_GT(count_repeats(bags_of(plain, 0, 0, 2000)), 1900);

  // Bags longer than the table are capped at its rows: every bag is the whole table.
  const BagGenerator whole(table(6, 2.0, fixed(10)), 0, workload(HotRowLayout::clustered, true));
  const Bags w = bags_of(whole, 0, 0, 50);
  std::size_t at = 0;
  for (std::uint32_t l : w.lengths) {
    ASSERT_EQ(l, 6u);
    std::set<std::uint64_t> seen(w.rows.begin() + at, w.rows.begin() + at + l);
    EXPECT_EQ(seen.size(), 6u);
    at += l;
  }
}

TEST(BagGenerator, UniqueBagsFollowSuccessiveSampling) {
  // 3 rows with p = (0.5, 0.3, 0.2), bags of 2 distinct rows. Successive sampling: the first
  // draw from p, the second from p without the first, renormalised, so
  //   P(row 2 in the bag) = 0.2 + 0.5·0.2/0.5 + 0.3·0.2/0.7 = 0.2 + 0.2 + 0.0857 = 0.4857.
  EmbeddingTable t = table(3, 0, fixed(2));
  t.heavy_hitters = {0.5, 0.3, 0.2};
  const BagGenerator gen(t, 0, workload(HotRowLayout::clustered, true));
  const Bags b = bags_of(gen, 0, 0, 40000);
  double with_row2 = 0;
  for (std::uint64_t r : b.rows) with_row2 += r == 2;
  const double p = 0.2 + 0.2 + 0.3 * 0.2 / 0.7;
  EXPECT_NEAR(with_row2 / 40000, p, 5 * std::sqrt(p * (1 - p) / 40000));
}

TEST(BagGenerator, ReuseRepeatsTheShareOfPositionsAndKeepsTheLaw) {
  // Uniform law over 10^9 rows (chance repeats ~1e-9): a position equals the same position of
  // the previous iteration exactly when it was reused.
  const double reuse = 0.3;
  const auto t = table(1'000'000'000, 0.0, fixed(8));
  const BagGenerator with(t, 0, workload(HotRowLayout::clustered, false, reuse));
  const BagGenerator without(t, 0, workload(HotRowLayout::clustered, false, 0.0));
  const Bags prev = bags_of(with, 4, 1, 5000);
  const Bags cur = bags_of(with, 5, 1, 5000);
  const Bags fresh = bags_of(without, 5, 1, 5000);
  ASSERT_EQ(prev.rows.size(), cur.rows.size());
  double repeated = 0;
  for (std::size_t i = 0; i < cur.rows.size(); ++i) {
    const bool same_as_prev = cur.rows[i] == prev.rows[i];
    repeated += same_as_prev;
    // Every position is either repeated or the fresh draw of this iteration.
    EXPECT_TRUE(same_as_prev || cur.rows[i] == fresh.rows[i]) << i;
  }
  const double n = static_cast<double>(cur.rows.size());
  EXPECT_NEAR(repeated / n, reuse, 5 * std::sqrt(reuse * (1 - reuse) / n));
  // Iteration 0 has nothing to repeat.
  EXPECT_EQ(bags_of(with, 0, 1, 5000).rows, bags_of(without, 0, 1, 5000).rows);

  // The law of one iteration is unchanged by reuse: chi-square over 20 ranks of a skewed table.
  const auto small = table(20, 1.2, fixed(4));
  const BagGenerator reusing(small, 0, workload(HotRowLayout::clustered, false, 0.6));
  const PowerLawProfile prof(small, HotRowLayout::clustered, 1);
  const Bags late = bags_of(reusing, 9, 0, 50000);
  std::vector<double> counts(20, 0);
  for (std::uint64_t r : late.rows) counts[r] += 1;
  double chi2 = 0;
  const double draws = static_cast<double>(late.rows.size());
  for (std::size_t r = 0; r < 20; ++r) {
    const double e = draws * prof.probability(r);
    chi2 += (counts[r] - e) * (counts[r] - e) / e;
  }
  EXPECT_LT(chi2, 55.0);  // 19 degrees of freedom: the 1e-5 quantile is ~55
}

TEST(BagGenerator, ReuseFollowsVaryingBagLengths) {
  // With random pooling a slot repeats only when the previous iteration's bag had that slot.
  const auto t = table(1'000'000'000, 0.0, uniform(1, 6));
  const BagGenerator gen(t, 3, workload(HotRowLayout::clustered, false, 0.9));
  const Bags prev = bags_of(gen, 1, 0, 3000);
  const Bags cur = bags_of(gen, 2, 0, 3000);
  std::size_t at_prev = 0, at_cur = 0;
  int repeated = 0;
  for (std::size_t s = 0; s < cur.lengths.size(); ++s) {
    for (std::uint32_t j = 0; j < cur.lengths[s]; ++j) {
      if (j >= prev.lengths[s]) {
        // No slot j last iteration: some earlier one may still have had it, but never this bag's
        // previous rows at other slots.
        for (std::uint32_t k = 0; k < prev.lengths[s]; ++k)
          EXPECT_NE(cur.rows[at_cur + j], prev.rows[at_prev + k]);
      } else {
        repeated += cur.rows[at_cur + j] == prev.rows[at_prev + j];
      }
    }
    at_prev += prev.lengths[s];
    at_cur += cur.lengths[s];
  }
  EXPECT_GT(repeated, 0);
}

}  // namespace
}  // namespace shardsim
