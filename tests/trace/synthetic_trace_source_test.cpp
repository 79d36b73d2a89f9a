#include "shardsim/trace/synthetic_trace_source.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <thread>
#include <vector>

#include "support/power_law_table.hpp"
#include "trace/row_blocks.hpp"

namespace shardsim::synthetic_trace_source_test {
namespace {

EmbeddingTable table(std::uint64_t rows, double alpha, PoolingSpec pooling) {
  return testing::power_law_table(rows, alpha, std::move(pooling));
}

PoolingSpec fixed(double v) {
  return PoolingSpec::fixed_at(v);
}
PoolingSpec lognormal(double mean, double sigma) {
  return PoolingSpec::lognormal_with(mean, sigma);
}
Workload workload(HotRowLayout layout, TraceMode mode, std::uint64_t seed = 42) {
  Workload w;
  w.seed = seed;
  w.trace.layout = layout;
  w.trace.mode = mode;
  return w;
}

std::vector<RowBlock> equal_blocks(std::uint64_t rows, std::uint64_t count,
                                   RowSpace space = RowSpace::row_id) {
  std::vector<RowBlock> blocks;
  for (std::uint64_t b = 0; b < count; ++b)
    blocks.push_back({{b * rows / count, (b + 1) * rows / count}, space});
  return blocks;
}

double block_total(const TableIterationDraw& d, std::size_t block, int num_gpus) {
  double s = 0;
  for (int g = 0; g < num_gpus; ++g) s += d.lookups_by_block_gpu[block * num_gpus + g];
  return s;
}

TEST(SyntheticTrace, FixedPoolingGivesExactLocalLookupsConservedOverBlocks) {
  DlrmModel model;
  model.tables = {table(1'000'000, 1.05, fixed(3))};
  for (TraceMode mode : {TraceMode::expected, TraceMode::sampled}) {
    const auto source = make_synthetic_trace_source(model, workload(HotRowLayout::scattered, mode));
    const auto blocks = equal_blocks(1'000'000, 5);
    const int gpus = 4;
    const auto d = source->draw(0, 0, gpus, 1000, blocks);
    ASSERT_EQ(d.lookups_by_block_gpu.size(), 5u * gpus);
    ASSERT_EQ(d.distinct_by_block.size(), 5u);
    for (int g = 0; g < gpus; ++g) {
      double s = 0;
      for (std::size_t b = 0; b < blocks.size(); ++b) s += d.lookups_by_block_gpu[b * gpus + g];
      EXPECT_EQ(s, 3000.0);  // 1000 samples x pooling 3, exactly
    }
  }
}

TEST(SyntheticTrace, ExpectedModeDrawsExpectationsTheSameEveryIteration) {
  // Lognormal pooling (mean 15): every GPU's local batch of B samples makes B·15 lookups, shared
  // among the blocks in proportion to their masses, in every iteration; sampled mode draws.
  DlrmModel model;
  const auto pool = lognormal(15, 0.5);
  model.tables = {table(100'000, 1.05, pool)};
  const auto blocks = equal_blocks(100'000, 4);
  const SyntheticTraceSource expected(model,
                                      workload(HotRowLayout::clustered, TraceMode::expected));
  EXPECT_TRUE(expected.same_draw_every_iteration());
  EXPECT_TRUE(expected.same_draw_for_every_gpu());
  const auto first = expected.draw(0, 0, 8, 512, blocks);
  const auto& profile = expected.profile(0);
  for (int iteration : {1, 7}) {
    const auto d = expected.draw(0, iteration, 8, 512, blocks);
    EXPECT_EQ(d.lookups_by_block_gpu, first.lookups_by_block_gpu);
    EXPECT_EQ(d.distinct_by_block, first.distinct_by_block);
  }
  for (int g = 0; g < 8; ++g) {
    double local = 0;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const double l = first.lookups_by_block_gpu[b * 8 + g];
      EXPECT_NEAR(l, 512 * pool.expected() * profile.mass(blocks[b].rows, RowSpace::row_id),
                  1e-9 * l);
      local += l;
    }
    EXPECT_NEAR(local, 512 * pool.expected(), 1e-9 * local);
  }
  const SyntheticTraceSource sampled(model, workload(HotRowLayout::clustered, TraceMode::sampled));
  EXPECT_FALSE(sampled.same_draw_every_iteration());
  EXPECT_FALSE(sampled.same_draw_for_every_gpu());
  EXPECT_NE(sampled.draw(0, 0, 8, 512, blocks).lookups_by_block_gpu,
            sampled.draw(0, 1, 8, 512, blocks).lookups_by_block_gpu);
}

TEST(SyntheticTrace, UniformLookupsByBlockAreOneGpusDraw) {
  // What one-sided plans read instead of the blocks x GPUs draw: bit for bit any GPU's column,
  // with and without unique_in_bag, for one block and many; refused when GPUs draw differently.
  DlrmModel model;
  model.tables = {table(100'000, 1.05, lognormal(15, 0.5))};
  for (bool unique : {false, true}) {
    Workload w = workload(HotRowLayout::scattered, TraceMode::expected);
    w.trace.unique_in_bag = unique;
    const SyntheticTraceSource source(model, w);
    for (std::uint64_t count : {1, 7}) {
      const auto blocks = equal_blocks(100'000, count);
      const auto d = source.draw(0, 3, 6, 512, blocks);
      const std::vector<double> by_block = source.uniform_lookups_by_block(0, 3, 6, 512, blocks);
      ASSERT_EQ(by_block.size(), blocks.size());
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        for (int g = 0; g < 6; ++g) EXPECT_EQ(by_block[b], d.lookups_by_block_gpu[b * 6 + g]);
      }
    }
  }
  const SyntheticTraceSource sampled(model, workload(HotRowLayout::scattered, TraceMode::sampled));
  EXPECT_THROW(sampled.uniform_lookups_by_block(0, 0, 6, 512, equal_blocks(100'000, 2)),
               std::logic_error);
}

TEST(SyntheticTrace, CompactDrawIsTheDrawWithoutItsGpuCopies) {
  // Expected mode: one value per block (uniform), bit for bit every GPU's entry of draw(), and
  // the same distinct rows; sampled mode: draw() itself, blocks x GPUs.
  DlrmModel model;
  model.tables = {table(100'000, 1.05, lognormal(15, 0.5))};
  for (bool unique : {false, true}) {
    Workload w = workload(HotRowLayout::scattered, TraceMode::expected);
    w.trace.unique_in_bag = unique;
    const SyntheticTraceSource source(model, w);
    for (std::uint64_t count : {1, 7}) {
      const auto blocks = equal_blocks(100'000, count);
      const auto d = source.draw(0, 2, 6, 512, blocks);
      const auto c = source.compact_draw(0, 2, 6, 512, blocks);
      EXPECT_FALSE(d.uniform);
      ASSERT_TRUE(c.uniform);
      EXPECT_TRUE(c.lookups_by_block_gpu.empty());
      ASSERT_EQ(c.uniform_lookups_by_block.size(), blocks.size());
      EXPECT_EQ(c.distinct_by_block, d.distinct_by_block);
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        for (std::size_t g = 0; g < 6; ++g) {
          EXPECT_EQ(c.lookups(b, g, 6), d.lookups_by_block_gpu[b * 6 + g]);
          EXPECT_EQ(d.lookups(b, g, 6), d.lookups_by_block_gpu[b * 6 + g]);
        }
      }
    }
  }
  const SyntheticTraceSource sampled(model, workload(HotRowLayout::scattered, TraceMode::sampled));
  const auto blocks = equal_blocks(100'000, 3);
  const auto c = sampled.compact_draw(0, 1, 4, 256, blocks);
  EXPECT_FALSE(c.uniform);
  EXPECT_EQ(c.lookups_by_block_gpu, sampled.draw(0, 1, 4, 256, blocks).lookups_by_block_gpu);
  EXPECT_THROW(sampled.compact_draw(0, 1, 0, 256, blocks), std::invalid_argument);
}

TEST(SyntheticTrace, DeterministicAndIndependentOfCallOrder) {
  DlrmModel model;
  model.tables = {table(100'000, 1.05, lognormal(10, 0.5)), table(5000, 0.8, fixed(2))};
  const auto blocks = equal_blocks(100'000, 3);
  for (TraceMode mode : {TraceMode::expected, TraceMode::sampled}) {
    const auto w = workload(HotRowLayout::scattered, mode);
    const SyntheticTraceSource a(model, w);
    const SyntheticTraceSource b(model, w);
    // a: iteration 1 then 2; b: table 1 first, then iteration 2 then 1.
    const auto a1 = a.draw(0, 1, 4, 256, blocks);
    const auto a2 = a.draw(0, 2, 4, 256, blocks);
    (void)b.draw(1, 2, 4, 256, equal_blocks(5000, 2));
    const auto b2 = b.draw(0, 2, 4, 256, blocks);
    const auto b1 = b.draw(0, 1, 4, 256, blocks);
    EXPECT_EQ(a1.lookups_by_block_gpu, b1.lookups_by_block_gpu);
    EXPECT_EQ(a1.distinct_by_block, b1.distinct_by_block);
    EXPECT_EQ(a2.lookups_by_block_gpu, b2.lookups_by_block_gpu);
    // Sampled iterations differ; expected ones are expectations, the same every iteration.
    EXPECT_EQ(a1.lookups_by_block_gpu != a2.lookups_by_block_gpu, mode == TraceMode::sampled);
    const SyntheticTraceSource c(model, workload(HotRowLayout::scattered, mode, 43));
    EXPECT_NE(c.draw(0, 1, 4, 256, blocks).lookups_by_block_gpu, a1.lookups_by_block_gpu);
  }
}

TEST(SyntheticTrace, ExpectedDistinctUsesTheGlobalBatch) {
  DlrmModel model;
  model.tables = {table(200'000, 1.1, fixed(5))};
  const SyntheticTraceSource source(model, workload(HotRowLayout::scattered, TraceMode::expected));
  const auto blocks = equal_blocks(200'000, 4);
  const auto d = source.draw(0, 0, 8, 1024, blocks);
  // 8 GPUs x 1024 samples x 5 = 40960 lookups in all.
  for (std::size_t b = 0; b < blocks.size(); ++b)
    EXPECT_DOUBLE_EQ(d.distinct_by_block[b],
                     source.profile(0).expected_distinct(blocks[b].rows, RowSpace::row_id, 40960));
}

// Expected vs sampled mode on a 10^5-row table, 4 blocks, 8 GPUs x 4096 samples x pooling 4 =
// 131072 lookups an iteration, 8 iterations. Per block, the two modes' lookups summed over the
// iterations differ by less than 3σ of the difference of two independent binomials,
// sqrt(2·8·n·p(1-p)). Distinct rows: the mean over the 8 sampled iterations within 2% of the
// expectation (one iteration of the coldest block touches ~2100 rows, whose own spread is ~2%).
void expect_modes_agree(HotRowLayout layout, RowSpace space) {
  const std::uint64_t rows = 100'000;
  DlrmModel model;
  model.tables = {table(rows, 1.05, fixed(4))};
  const SyntheticTraceSource expected(model, workload(layout, TraceMode::expected));
  const SyntheticTraceSource sampled(model, workload(layout, TraceMode::sampled));
  const auto blocks = equal_blocks(rows, 4, space);
  const int gpus = 8;
  const int iterations = 8;
  const double n = 8 * 4096 * 4;
  std::vector<double> lookups_expected(blocks.size(), 0.0);
  std::vector<double> lookups_sampled(blocks.size(), 0.0);
  std::vector<double> distinct_sampled(blocks.size(), 0.0);
  for (int it = 0; it < iterations; ++it) {
    const auto de = expected.draw(0, it, gpus, 4096, blocks);
    const auto ds = sampled.draw(0, it, gpus, 4096, blocks);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      lookups_expected[b] += block_total(de, b, gpus);
      lookups_sampled[b] += block_total(ds, b, gpus);
      distinct_sampled[b] += ds.distinct_by_block[b] / iterations;
    }
  }
  const auto de = expected.draw(0, 0, gpus, 4096, blocks);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const double p = expected.profile(0).mass(blocks[b].rows, space);
    const double sigma = std::sqrt(2 * iterations * n * p * (1 - p));
    EXPECT_NEAR(lookups_expected[b], lookups_sampled[b], 3 * sigma) << "block " << b;
    EXPECT_NEAR(de.distinct_by_block[b], distinct_sampled[b], 0.02 * distinct_sampled[b])
        << "block " << b;
  }
}

TEST(SyntheticTrace, ModesAgreeClusteredRowIds) {
  expect_modes_agree(HotRowLayout::clustered, RowSpace::row_id);
}
TEST(SyntheticTrace, ModesAgreeScatteredRowIds) {
  expect_modes_agree(HotRowLayout::scattered, RowSpace::row_id);
}
TEST(SyntheticTrace, ModesAgreeRankBlocks) {
  expect_modes_agree(HotRowLayout::scattered, RowSpace::rank);
}

// The agreement test: over 100 seeds, per block, the lookups summed over the seeds differ
// between the modes by less than 3σ of the difference of two independent binomial sums,
// sqrt(2·100·n·p(1-p)), and the mean distinct rows agree within 2%. One iteration of
// 8 GPUs x 512 samples on a 10^5-row table with alpha 1.05, in 4 blocks.
struct Variant {
  HotRowLayout layout;
  RowSpace space;
  double pooling;
  bool unique;
  double reuse;
  int iteration;
};

void expect_modes_agree_over_seeds(const Variant& v) {
  const std::uint64_t rows = 100'000;
  DlrmModel model;
  model.tables = {table(rows, 1.05, fixed(v.pooling))};
  const auto blocks = equal_blocks(rows, 4, v.space);
  const int gpus = 8;
  const std::uint32_t samples = 512;
  const int seeds = 100;
  std::vector<double> lookups_e(4, 0), lookups_s(4, 0), distinct_e(4, 0), distinct_s(4, 0);
  std::vector<double> share(4, 0);
  double n = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    Workload w = workload(v.layout, TraceMode::expected, static_cast<std::uint64_t>(seed));
    w.trace.unique_in_bag = v.unique;
    w.trace.reuse = v.reuse;
    const SyntheticTraceSource expected(model, w);
    w.trace.mode = TraceMode::sampled;
    const SyntheticTraceSource sampled(model, w);
    const auto de = expected.draw(0, v.iteration, gpus, samples, blocks);
    const auto ds = sampled.draw(0, v.iteration, gpus, samples, blocks);
    for (std::size_t b = 0; b < 4; ++b) {
      lookups_e[b] += block_total(de, b, gpus);
      lookups_s[b] += block_total(ds, b, gpus);
      distinct_e[b] += de.distinct_by_block[b] / seeds;
      distinct_s[b] += ds.distinct_by_block[b] / seeds;
    }
    n = gpus * samples * v.pooling;
  }
  double total = 0;
  for (double l : lookups_e) total += l;
  for (std::size_t b = 0; b < 4; ++b) {
    const double p = lookups_e[b] / total;
    const double sigma = std::sqrt(2 * seeds * n * p * (1 - p));
    EXPECT_NEAR(lookups_e[b], lookups_s[b], 3 * sigma) << "block " << b;
    EXPECT_NEAR(distinct_e[b], distinct_s[b], 0.02 * distinct_s[b]) << "block " << b;
  }
}

TEST(SyntheticTrace, ModesAgreeOver100SeedsClustered) {
  expect_modes_agree_over_seeds({HotRowLayout::clustered, RowSpace::row_id, 4, false, 0, 0});
}
TEST(SyntheticTrace, ModesAgreeOver100SeedsScattered) {
  expect_modes_agree_over_seeds({HotRowLayout::scattered, RowSpace::row_id, 4, false, 0, 0});
}
TEST(SyntheticTrace, ModesAgreeOver100SeedsRankBlocks) {
  expect_modes_agree_over_seeds({HotRowLayout::scattered, RowSpace::rank, 4, false, 0, 0});
}
TEST(SyntheticTrace, ModesAgreeOver100SeedsWithReuse) {
  expect_modes_agree_over_seeds({HotRowLayout::scattered, RowSpace::row_id, 4, false, 0.5, 3});
}
TEST(SyntheticTrace, ModesAgreeOver100SeedsUniqueInBag) {
  expect_modes_agree_over_seeds({HotRowLayout::clustered, RowSpace::row_id, 4, true, 0, 0});
}
TEST(SyntheticTrace, ModesAgreeOver100SeedsUniqueInLongBags) {
  // Bags of 20 distinct rows: the hottest row (p ~ 0.1) would appear twice in a bag of 20
  // independent draws about 60% of the time, so uniqueness moves lookups to colder blocks.
  expect_modes_agree_over_seeds({HotRowLayout::clustered, RowSpace::row_id, 20, true, 0, 0});
}

TEST(SyntheticTrace, UniqueInBagMovesLookupsAwayFromHotRows) {
  // Expected mode: the hottest 10 ranks get fewer lookups per bag when bags are unique.
  DlrmModel model;
  model.tables = {table(100'000, 1.05, fixed(20))};
  const std::vector<RowBlock> blocks = {{{0, 10}, RowSpace::rank}, {{10, 100'000}, RowSpace::rank}};
  Workload w = workload(HotRowLayout::clustered, TraceMode::expected);
  const auto plain = SyntheticTraceSource(model, w).draw(0, 0, 1, 100'000, blocks);
  w.trace.unique_in_bag = true;
  const SyntheticTraceSource unique(model, w);
  const auto u = unique.draw(0, 0, 1, 100'000, blocks);
  EXPECT_LT(u.lookups_by_block_gpu[0], 0.9 * plain.lookups_by_block_gpu[0]);
  EXPECT_EQ(u.lookups_by_block_gpu[0] + u.lookups_by_block_gpu[1], 2'000'000.0);
  // nu: 20 distinct rows in expectation among nu independent draws.
  EXPECT_GT(unique.draws_per_bag(0), 20.0);
  EXPECT_NEAR(
      unique.profile(0).expected_distinct({0, 100'000}, RowSpace::rank, unique.draws_per_bag(0)),
      20.0, 1e-6);
}

TEST(SyntheticTrace, SameDrawsWhateverTheThreadCount) {
  // Draws of 3 tables x 4 iterations in both modes, serially and from 4 threads at once.
  DlrmModel model;
  model.tables = {table(100'000, 1.05, lognormal(10, 0.5)), table(5000, 0.8, fixed(2)),
                  table(1'000'000, 1.2, fixed(3))};
  for (TraceMode mode : {TraceMode::expected, TraceMode::sampled}) {
    Workload w = workload(HotRowLayout::scattered, mode);
    w.trace.reuse = 0.2;
    w.trace.unique_in_bag = true;
    const SyntheticTraceSource source(model, w);
    const auto blocks_of = [&](std::size_t t) { return equal_blocks(model.tables[t].rows, 3); };
    std::vector<TableIterationDraw> serial, parallel(12);
    for (int k = 0; k < 12; ++k)
      serial.push_back(source.draw(k % 3, k / 3, 4, 256, blocks_of(k % 3)));
    std::vector<std::thread> threads;
    for (int th = 0; th < 4; ++th)
      threads.emplace_back([&, th] {
        for (int k = th; k < 12; k += 4)
          parallel[k] = source.draw(k % 3, k / 3, 4, 256, blocks_of(k % 3));
      });
    for (auto& t : threads) t.join();
    for (int k = 0; k < 12; ++k) {
      EXPECT_EQ(serial[k].lookups_by_block_gpu, parallel[k].lookups_by_block_gpu) << k;
      EXPECT_EQ(serial[k].distinct_by_block, parallel[k].distinct_by_block) << k;
    }
  }
}

TEST(SyntheticTrace, SampledScatteredFollowsTheHash) {
  // Sampled lookups per row-id block against the exact block masses summed through the layout's
  // hash rank by rank: within 3σ of the binomial.
  const std::uint64_t rows = 100'000;
  DlrmModel model;
  model.tables = {table(rows, 1.05, fixed(4))};
  const SyntheticTraceSource sampled(model, workload(HotRowLayout::scattered, TraceMode::sampled));
  const auto& prof = dynamic_cast<const PowerLawProfile&>(sampled.profile(0));
  const auto blocks = equal_blocks(rows, 4);
  std::vector<double> exact(4, 0.0);
  for (std::uint64_t r = 0; r < rows; ++r)
    exact[prof.row_of_rank(r) * 4 / rows] += prof.probability(r);
  const auto d = sampled.draw(0, 0, 8, 4096, blocks);
  const double n = 8 * 4096 * 4;
  for (std::size_t b = 0; b < 4; ++b)
    EXPECT_NEAR(block_total(d, b, 8), n * exact[b], 3 * std::sqrt(n * exact[b] * (1 - exact[b])));
}

TEST(SyntheticTrace, ClusteredConcentratesScatteredSpreads) {
  // Two row-id halves of a 10^8-row table: clustered puts most lookups in the first half,
  // scattered about half in each.
  DlrmModel model;
  model.tables = {table(100'000'000, 1.05, fixed(10))};
  const auto blocks = equal_blocks(100'000'000, 2);
  const auto c = SyntheticTraceSource(model, workload(HotRowLayout::clustered, TraceMode::expected))
                     .draw(0, 0, 2, 4096, blocks);
  const auto s = SyntheticTraceSource(model, workload(HotRowLayout::scattered, TraceMode::expected))
                     .draw(0, 0, 2, 4096, blocks);
  const double n = 2 * 4096 * 10;
  EXPECT_GT(block_total(c, 0, 2) / n, 0.9);
  EXPECT_NEAR(block_total(s, 0, 2) / n, 0.5, 0.07);
}

TEST(SyntheticTrace, RejectsBlocksThatDoNotPartition) {
  DlrmModel model;
  model.tables = {table(100, 1.0, fixed(1))};
  const SyntheticTraceSource source(model, workload(HotRowLayout::scattered, TraceMode::expected));
  const auto draw = [&](std::vector<RowBlock> blocks) { return source.draw(0, 0, 2, 8, blocks); };
  const RowSpace id = RowSpace::row_id;
  EXPECT_THROW(draw({}), std::invalid_argument);
  EXPECT_THROW(draw({{{0, 50}, id}, {{60, 100}, id}}), std::invalid_argument);  // gap
  EXPECT_THROW(draw({{{0, 50}, id}, {{40, 100}, id}}), std::invalid_argument);  // overlap
  EXPECT_THROW(draw({{{0, 50}, id}}), std::invalid_argument);                   // short
  EXPECT_THROW(draw({{{0, 101}, id}}), std::invalid_argument);                  // past the end
  EXPECT_THROW(draw({{{0, 50}, id}, {{50, 100}, RowSpace::rank}}), std::invalid_argument);
  EXPECT_THROW(draw({{{50, 40}, id}, {{0, 100}, id}}), std::invalid_argument);  // reversed
  // Out of order and with an empty block is still a partition.
  const auto d = draw({{{50, 100}, id}, {{7, 7}, id}, {{0, 50}, id}});
  EXPECT_EQ(d.lookups_by_block_gpu[2] + d.lookups_by_block_gpu[3], 0.0);  // the empty block
  EXPECT_NEAR(std::accumulate(d.lookups_by_block_gpu.begin(), d.lookups_by_block_gpu.end(), 0.0),
              16.0, 1e-12);
  EXPECT_THROW(source.draw(1, 0, 2, 8, equal_blocks(100, 1)), std::out_of_range);
  EXPECT_THROW(source.draw(0, 0, 0, 8, equal_blocks(100, 1)), std::invalid_argument);
}

TEST(SyntheticTrace, BlockIndexFindsRows) {
  const std::vector<RowBlock> blocks = {
      {{30, 100}, RowSpace::rank}, {{0, 10}, RowSpace::rank}, {{10, 30}, RowSpace::rank}};
  const BlockIndex index(blocks, 100);
  EXPECT_EQ(index.space(), RowSpace::rank);
  EXPECT_EQ(index.block_of(0), 1u);
  EXPECT_EQ(index.block_of(9), 1u);
  EXPECT_EQ(index.block_of(10), 2u);
  EXPECT_EQ(index.block_of(29), 2u);
  EXPECT_EQ(index.block_of(30), 0u);
  EXPECT_EQ(index.block_of(99), 0u);
}

TEST(SyntheticTrace, RejectsInvalidTables) {
  DlrmModel model;
  model.tables = {table(100, -1.0, fixed(1))};
  EXPECT_THROW(SyntheticTraceSource(model, workload(HotRowLayout::clustered, TraceMode::expected)),
               std::invalid_argument);
}

}  // namespace
}  // namespace shardsim::synthetic_trace_source_test
