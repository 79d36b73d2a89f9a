// Each planner on a case small enough to follow by hand.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "plan/packing.hpp"
#include "plan/plan_fixture.hpp"
#include "plan/shard_estimate.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/plan/serving.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::per_gpu;
using testing::PlanFixture;

std::vector<int> gpus_of_table(const Plan& p, std::size_t table) {
  std::vector<int> g;
  for (const Shard& s : p.shards) {
    if (s.table == table) g.push_back(s.gpu);
  }
  return g;
}

// A preset whose GPUs hold `capacity_bytes` of HBM.
HardwarePreset small_gpus(int gpus_per_node, double capacity_bytes) {
  HardwarePreset p = testing::hand_preset(gpus_per_node);
  p.gpu.hbm_capacity_bytes = capacity_bytes;
  return p;
}

// --- random

TEST(RandomPlanner, SeededAndEveryTableOnOneGpu) {
  std::vector<testing::TableSpec> specs(20, {100, 16});
  const PlanFixture f(testing::hand_preset(4), 1, model_of(specs));
  const Plan a = f.valid_plan("random", {{"seed", 1}});
  const Plan b = f.valid_plan("random", {{"seed", 1}});
  const Plan c = f.valid_plan("random", {{"seed", 2}});
  ASSERT_EQ(a.shards.size(), 20u);
  std::vector<int> ga, gb, gc;
  for (std::size_t t = 0; t < 20; ++t) {
    ga.push_back(a.shards[t].gpu);
    gb.push_back(b.shards[t].gpu);
    gc.push_back(c.shards[t].gpu);
  }
  EXPECT_EQ(ga, gb);
  EXPECT_NE(ga, gc);  // 20 draws over 4 GPUs: equal by chance with probability 4^-20
  // Without a seed option the workload's seed is used.
  EXPECT_EQ(f.valid_plan("random").shards.size(), 20u);
}

TEST(RandomPlanner, DrawsOnlyAmongGpusWithRoom) {
  // 2 GPUs; each table is 4000 x 16 x 4 B = 256 KB weights + 16 KB row-wise AdaGrad state,
  // about 272 KB with its activations; 400 KB GPUs take one table each, never two.
  const PlanFixture f(small_gpus(2, 400e3), 1, model_of({{4000, 16}, {4000, 16}}), 1);
  for (int seed = 0; seed < 10; ++seed) {
    const Plan p = f.valid_plan("random", {{"seed", seed}});
    EXPECT_NE(p.shards[0].gpu, p.shards[1].gpu);
  }
  const PlanFixture three(small_gpus(2, 400e3), 1, model_of({{4000, 16}, {4000, 16}, {4000, 16}}),
                          1);
  EXPECT_THROW(three.plan("random"), DoesNotFitError);
}

// --- round_robin

TEST(RoundRobinPlanner, TablesInTurnSkippingFullGpus) {
  const PlanFixture f(testing::hand_preset(2), 1, model_of({{100, 8}, {100, 8}, {100, 8}}));
  const Plan p = f.valid_plan("round_robin");
  EXPECT_EQ(gpus_of_table(p, 0), std::vector<int>{0});
  EXPECT_EQ(gpus_of_table(p, 1), std::vector<int>{1});
  EXPECT_EQ(gpus_of_table(p, 2), std::vector<int>{0});
  // 400 KB GPUs: t0 and t1 (4000 x 16: ~272 KB each) take GPU 0 and GPU 1; t2 (100 x 16,
  // ~7 KB) comes next in turn on GPU 0, which still has ~125 KB free.
  const PlanFixture g(small_gpus(2, 400e3), 1, model_of({{4000, 16}, {4000, 16}, {100, 16}}), 1);
  const Plan q = g.valid_plan("round_robin");
  EXPECT_EQ(gpus_of_table(q, 0), std::vector<int>{0});
  EXPECT_EQ(gpus_of_table(q, 1), std::vector<int>{1});
  EXPECT_EQ(gpus_of_table(q, 2), std::vector<int>{0});
  // Three big tables: the third fits nowhere.
  const PlanFixture h(small_gpus(2, 400e3), 1, model_of({{4000, 16}, {4000, 16}, {4000, 16}}), 1);
  EXPECT_THROW(h.plan("round_robin"), DoesNotFitError);
}

// --- table_wise cost functions (NeuroShard App. E)

TEST(TableWisePlanner, CostFunctionsDecideTheOrderAndTheBalance) {
  // (rows, dim, pooling):   size=rows*dim  dim  lookup=dim*pool  size_lookup=dim*pool*log10(rows)
  //   t0 (1000, 16, 1)         16000        16        16              48
  //   t1 ( 100, 16, 4)          1600        16        64             128
  //   t2 (10^5,  8, 1)        800000         8         8              40
  //   t3 (  10,  8, 8)            80         8        64              64
  const PlanFixture f(testing::hand_preset(2), 1,
                      model_of({{1000, 16, 1}, {100, 16, 4}, {100000, 8, 1}, {10, 8, 8}}));
  // lookup: 64 (t1; tie with t3 broken by bytes: t1 is larger) -> g0; 64 (t3) -> g1;
  // 16 (t0) -> g0 (tie 64/64 -> lower id); 8 (t2) -> g1. Loads 80 / 72.
  Plan p = f.valid_plan("table_wise", {{"cost", "lookup"}});
  EXPECT_EQ(gpus_of_table(p, 1), std::vector<int>{0});
  EXPECT_EQ(gpus_of_table(p, 3), std::vector<int>{1});
  EXPECT_EQ(gpus_of_table(p, 0), std::vector<int>{0});
  EXPECT_EQ(gpus_of_table(p, 2), std::vector<int>{1});
  // size: t2 (800000) -> g0; t0 (16000) -> g1; t1 (1600) -> g1; t3 (80) -> g1.
  p = f.valid_plan("table_wise", {{"cost", "size"}});
  EXPECT_EQ(gpus_of_table(p, 2), std::vector<int>{0});
  for (std::size_t t : {0u, 1u, 3u}) EXPECT_EQ(gpus_of_table(p, t), std::vector<int>{1});
  // size_lookup: t1 (128) -> g0; t3 (64) -> g1; t0 (48) -> g1 (64 < 128); t2 (40) -> g0?
  // loads g0 128, g1 112 -> g1. Final: g0 {t1}, g1 {t3, t0, t2}.
  p = f.valid_plan("table_wise", {{"cost", "size_lookup"}});
  EXPECT_EQ(gpus_of_table(p, 1), std::vector<int>{0});
  for (std::size_t t : {0u, 2u, 3u}) EXPECT_EQ(gpus_of_table(p, t), std::vector<int>{1});
  // dim: 16, 16 (t0 first: more bytes), 8, 8 -> t0 g0, t1 g1, t2 (more bytes) g0, t3 g1.
  p = f.valid_plan("table_wise", {{"cost", "dim"}});
  EXPECT_EQ(gpus_of_table(p, 0), std::vector<int>{0});
  EXPECT_EQ(gpus_of_table(p, 1), std::vector<int>{1});
  EXPECT_EQ(gpus_of_table(p, 2), std::vector<int>{0});
  EXPECT_EQ(gpus_of_table(p, 3), std::vector<int>{1});
  // estimated: the cost model; every table placed, deterministic.
  EXPECT_EQ(f.valid_plan("table_wise", {{"cost", "estimated"}}).shards.size(), 4u);
}

TEST(TableWisePlanner, HeadroomKeepsMemoryFree) {
  // Two ~272 KB tables on 600 KB GPUs: both fit on one GPU (546 KB) without headroom, so
  // greedy by cost (equal) puts them on separate GPUs anyway; with headroom 0.6 only 240 KB is
  // usable: nothing fits.
  const PlanFixture f(small_gpus(2, 600e3), 1, model_of({{4000, 16}, {4000, 16}}), 1);
  EXPECT_NO_THROW(f.valid_plan("table_wise", {{"headroom", 0.2}}));
  try {
    f.plan("table_wise", {{"headroom", 0.6}});
    FAIL();
  } catch (const DoesNotFitError& e) {
    EXPECT_NEAR(e.available_bytes(), 240e3, 1);
    EXPECT_NE(std::string(e.what()).find("headroom"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("table 't0'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(f.plan("table_wise", {{"headroom", 1.5}}), std::invalid_argument);
  EXPECT_THROW(f.plan("table_wise", {{"headroomm", 0.1}}), std::invalid_argument);
}

// --- row_wise

TEST(RowWisePlanner, RankSplitBalancesAccessesOfASkewedTable) {
  // One table of 10^6 rows, Zipf alpha 1.2, hot rows clustered at low ids, on 4 GPUs.
  const PlanFixture f(testing::hand_preset(4), 1, model_of({{1000000, 16, 10, 1.2}}), 256, true,
                      HotRowLayout::clustered);
  const AccessProfile& profile = f.trace->profile(0);
  const Plan even = f.valid_plan("row_wise");
  const Plan rank = f.valid_plan("row_wise", {{"split", "rank"}});
  ASSERT_EQ(rank.shards.size(), 4u);
  double even_max = 0, rank_max = 0;
  for (const Shard& s : even.shards) {
    EXPECT_EQ(s.row_space, RowSpace::row_id);
    even_max = std::max(even_max, profile.mass(s.rows, s.row_space));
  }
  // Each cut is the first rank where w(r) = (mass of ranks [0, r) + r / rows) / 2 reaches i/4.
  auto w = [&](std::uint64_t r) {
    return 0.5 * (profile.mass({0, r}, RowSpace::rank) + static_cast<double>(r) / 1e6);
  };
  for (std::size_t i = 0; i < rank.shards.size(); ++i) {
    const Shard& s = rank.shards[i];
    EXPECT_EQ(s.row_space, RowSpace::rank);
    EXPECT_EQ(s.gpu, static_cast<int>(i));
    if (i + 1 < rank.shards.size()) {
      const double target = (i + 1) / 4.0;
      EXPECT_LT(w(s.rows.end - 1), target);
      EXPECT_GE(w(s.rows.end), target);
    }
    rank_max = std::max(rank_max, profile.mass(s.rows, s.row_space));
  }
  // Clustered even ranges put the hot head on GPU 0; rank ranges cap any GPU near 2/4 of the
  // mass (up to one row at the cut).
  EXPECT_GT(even_max, 0.7);
  EXPECT_LT(rank_max, 0.51);
  EXPECT_THROW(f.plan("row_wise", {{"split", "ranks"}}), std::invalid_argument);
}

TEST(RowWisePlanner, AShardThatDoesNotFitNamesItsGpu) {
  // 40000 x 16 rows over 2 GPUs: 20000 x 64 B + 4 B = 1.36 MB per shard; 1 MB GPUs.
  const PlanFixture f(small_gpus(2, 1e6), 1, model_of({{40000, 16}}), 1);
  try {
    f.plan("row_wise");
    FAIL();
  } catch (const DoesNotFitError& e) {
    EXPECT_EQ(e.gpu(), 0);
    EXPECT_NE(std::string(e.what()).find("rows [0, 20000)"), std::string::npos) << e.what();
  }
}

// --- column_wise

TEST(ColumnWisePlanner, BlocksOfFourColumnsSpreadOverGpus) {
  // dim 64 on 4 GPUs: 4 blocks of 16 columns with equal cost -> one per GPU. dim 6: one block.
  const PlanFixture f(testing::hand_preset(4), 1, model_of({{100, 64}, {100, 6}}));
  const Plan p = f.valid_plan("column_wise");
  std::vector<std::pair<std::uint32_t, int>> blocks;
  for (const Shard& s : p.shards) {
    if (s.table == 0) {
      blocks.emplace_back(s.cols.begin, s.gpu);
      EXPECT_EQ(s.cols.size(), 16u);
      EXPECT_EQ(s.kind, ShardKind::column_wise);
    } else {
      EXPECT_EQ(s.cols, (ColRange{0, 6}));
      EXPECT_EQ(s.kind, ShardKind::table_wise);
    }
  }
  ASSERT_EQ(blocks.size(), 4u);
  std::set<int> gpus;
  for (auto& b : blocks) gpus.insert(b.second);
  EXPECT_EQ(gpus.size(), 4u);
  // cols_per_shard: 24 -> [0,24), [24,48), [48,64); must be a multiple of 4.
  const Plan q = f.valid_plan("column_wise", {{"cols_per_shard", 24}});
  std::vector<std::uint32_t> sizes;
  for (const Shard& s : q.shards) {
    if (s.table == 0) sizes.push_back(s.cols.size());
  }
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<std::uint32_t>{16, 24, 24}));
  EXPECT_THROW(f.plan("column_wise", {{"cols_per_shard", 10}}), InputError);
}

// --- data_parallel

TEST(DataParallelPlanner, FailsWhenAReplicaDoesNotFit) {
  const PlanFixture f(small_gpus(2, 200e3), 1, model_of({{4000, 16}}), 1);
  try {
    f.plan("data_parallel");
    FAIL();
  } catch (const DoesNotFitError& e) {
    EXPECT_NE(std::string(e.what()).find("replica of table 't0'"), std::string::npos);
    EXPECT_EQ(e.available_bytes(), 200e3);
  }
}

// --- table_row_wise and table_column_wise (2 nodes x 2 GPUs)

TEST(TableRowWisePlanner, TablesToNodesRowsAcrossTheNode) {
  const PlanFixture f(testing::hand_preset(2), 2, model_of({{10, 16, 2}, {10, 16, 1}}));
  const Plan p = f.valid_plan("table_row_wise");
  // Lookup cost 32 (t0) -> node 0: rows [0,5) on GPU 0, [5,10) on GPU 1; t1 -> node 1.
  std::map<std::size_t, std::vector<std::pair<RowRange, int>>> by_table;
  for (const Shard& s : p.shards) by_table[s.table].emplace_back(s.rows, s.gpu);
  EXPECT_EQ(by_table[0], (std::vector<std::pair<RowRange, int>>{{{0, 5}, 0}, {{5, 10}, 1}}));
  EXPECT_EQ(by_table[1], (std::vector<std::pair<RowRange, int>>{{{0, 5}, 2}, {{5, 10}, 3}}));
}

TEST(TableColumnWisePlanner, TablesToNodesColumnsAcrossTheNode) {
  const PlanFixture f(testing::hand_preset(2), 2, model_of({{10, 32, 2}, {10, 32, 1}}));
  const Plan p = f.valid_plan("table_column_wise");
  std::map<std::size_t, std::vector<std::pair<std::uint32_t, int>>> by_table;
  for (const Shard& s : p.shards) by_table[s.table].emplace_back(s.cols.begin, s.gpu);
  EXPECT_EQ(by_table[0], (std::vector<std::pair<std::uint32_t, int>>{{0, 0}, {16, 1}}));
  EXPECT_EQ(by_table[1], (std::vector<std::pair<std::uint32_t, int>>{{0, 2}, {16, 3}}));
}

// --- karmarkar_karp

TEST(KarmarkarKarpPlanner, LargestDifferencingBeatsGreedyOnTheClassicCase) {
  // Costs (dim 8 x pooling) 64, 56, 48, 40, 32 on 2 GPUs.
  //   LDM: {64},{56} -> spread 8; {48},{40} -> 8; then 32 vs 8 vs 8: {32} & {8}: 32+0, 8 ->
  //   {32|x}, ... the final difference is 16: loads 128 / 112.
  //   Greedy largest-first: 64 A, 56 B, 48 B (104), 40 A (104), 32 A (tie -> lower id): 136/104.
  const PlanFixture f(testing::hand_preset(2), 1,
                      model_of({{100, 8, 8}, {100, 8, 7}, {100, 8, 6}, {100, 8, 5}, {100, 8, 4}}));
  auto cost = [&](const Shard& s) { return 8.0 * f.model.tables[s.table].pooling.expected(); };
  const auto kk = per_gpu(f.valid_plan("karmarkar_karp"), 2, cost);
  const auto tw = per_gpu(f.valid_plan("table_wise"), 2, cost);
  EXPECT_EQ(std::max(kk[0], kk[1]), 128);
  EXPECT_EQ(std::max(tw[0], tw[1]), 136);
}

TEST(KarmarkarKarpPlanner, RepairMovesTablesOffOverfullGpus) {
  // Costs 10, 5, 5 (pooling 10, 5, 5; dim 16): LDM puts {t0} and {t1, t2} together. But t1 and
  // t2 hold 4000 rows each (~272 KB), t0 only 10 rows: 500 KB GPUs cannot hold t1 + t2, so the
  // repair pass moves t1 (the largest in bytes; ties to the lower id) next to t0.
  const PlanFixture f(small_gpus(2, 500e3), 1,
                      model_of({{10, 16, 10}, {4000, 16, 5}, {4000, 16, 5}}), 1);
  const Plan p = f.valid_plan("karmarkar_karp");
  EXPECT_NE(gpus_of_table(p, 1), gpus_of_table(p, 2));
  EXPECT_EQ(gpus_of_table(p, 1), gpus_of_table(p, 0));
  for (double m : f.memory_bytes(p)) EXPECT_LE(m, 500e3);
  // Three 272 KB tables on two 400 KB GPUs: no repair can fit them.
  const PlanFixture g(small_gpus(2, 400e3), 1, model_of({{4000, 16}, {4000, 16}, {4000, 16}}), 1);
  EXPECT_THROW(g.plan("karmarkar_karp"), DoesNotFitError);
}

// --- memory_greedy (OPER MG)

TEST(MemoryGreedyPlanner, EqualBytesOnEveryGpu) {
  // Bytes per row: 4 x 4 B weights + 4 B row-wise AdaGrad = 20 B. t0: 100 rows (2000 B),
  // t1: 300 rows (6000 B); 8000 B in all, 4000 B per GPU: GPU 0 = t0 + t1 rows [0, 100),
  // GPU 1 = t1 rows [100, 300).
  const PlanFixture f(testing::hand_preset(2), 1, model_of({{100, 4}, {300, 4}}));
  const Plan p = f.valid_plan("memory_greedy");
  ASSERT_EQ(p.shards.size(), 3u);
  EXPECT_EQ(p.shards[0].rows, (RowRange{0, 100}));
  EXPECT_EQ(p.shards[0].gpu, 0);
  EXPECT_EQ(p.shards[0].kind, ShardKind::table_wise);
  EXPECT_EQ(p.shards[1].rows, (RowRange{0, 100}));
  EXPECT_EQ(p.shards[1].gpu, 0);
  EXPECT_EQ(p.shards[2].rows, (RowRange{100, 300}));
  EXPECT_EQ(p.shards[2].gpu, 1);
}

// --- access_greedy (OPER AG)

TEST(AccessGreedyPlanner, BalancesLookupsOfSkewedTables) {
  // Skewed tables with very different pooling on 4 GPUs: table_wise by lookup cost cannot split
  // the hot table; access_greedy splits its hot ranks across GPUs.
  const PlanFixture f(testing::hand_preset(4), 1,
                      model_of({{100000, 16, 40, 1.1}, {50000, 16, 2, 1.0}, {20000, 16, 1, 0.8}}),
                      64, true);
  auto lookups = [&](const Plan& p) {
    std::vector<double> l(4, 0.0);
    for (const Shard& s : p.shards) {
      l[s.gpu] += 4 * 64 * f.model.tables[s.table].pooling.expected() *
                  f.trace->profile(s.table).mass(s.rows, s.row_space);
    }
    return *std::max_element(l.begin(), l.end()) / ((l[0] + l[1] + l[2] + l[3]) / 4);
  };
  const Plan ag = f.valid_plan("access_greedy");
  for (const Shard& s : ag.shards) EXPECT_EQ(s.row_space, RowSpace::rank);
  EXPECT_LT(lookups(ag), 1.1);
  EXPECT_GT(lookups(f.valid_plan("table_wise")), 2.0);  // the 40-pooling table alone
  EXPECT_THROW(f.plan("access_greedy", {{"chunks_per_gpu", 0}}), std::invalid_argument);
}

// --- hybrid

TEST(HybridPlanner, SplitsWhatDoesNotFitAndKeepsSmallTablesWhole) {
  // 2 nodes x 2 GPUs of 2 MB; t0 = 40000 x 16 (2.7 MB) fits no GPU whole, but half of it does;
  // eight small tables (more than GPUs, so each is below the mean load) stay whole.
  std::vector<testing::TableSpec> specs{{40000, 16}};
  for (int i = 0; i < 8; ++i) specs.push_back({100, 16});
  const PlanFixture f(small_gpus(2, 2e6), 2, model_of(specs), 1);
  const Plan p = f.valid_plan("hybrid", {{"headroom", 0}});
  std::map<std::size_t, int> count;
  for (const Shard& s : p.shards) ++count[s.table];
  EXPECT_GT(count[0], 1);
  for (std::size_t t = 1; t <= 8; ++t) EXPECT_EQ(count[t], 1) << t;
  for (double m : f.memory_bytes(p)) EXPECT_LE(m, 2e6);
}

TEST(HybridPlanner, SchemesOptionLimitsTheChoices) {
  const PlanFixture f(testing::hand_preset(2), 2, model_of({{1000, 16, 4}, {100, 32, 2}}));
  for (const Shard& s : f.valid_plan("hybrid", {{"schemes", OptionList{"table_wise"}}}).shards) {
    EXPECT_EQ(s.kind, ShardKind::table_wise);
  }
  const Plan dp =
      f.valid_plan("hybrid", {{"schemes", OptionList{"data_parallel"}}, {"dp_memory_fraction", 1}});
  EXPECT_EQ(dp.shards.size(), 8u);
  for (const Shard& s : dp.shards) EXPECT_EQ(s.kind, ShardKind::data_parallel);
  for (const Shard& s :
       f.valid_plan("hybrid", {{"schemes", OptionList{"table_row_wise"}}}).shards) {
    EXPECT_EQ(s.kind, ShardKind::row_wise);
  }
  EXPECT_THROW(f.plan("hybrid", {{"schemes", OptionList{"table_wize"}}}), std::invalid_argument);
  EXPECT_THROW(f.plan("hybrid", {{"schemes", OptionList{}}}), std::invalid_argument);
}

TEST(HybridPlanner, RowRangesFollowTheHotRowLayout) {
  // Only row_wise allowed: under the clustered layout the ranges are rank ranges balanced by
  // access; under the scattered one, even row ids.
  const auto model = model_of({{100000, 16, 4, 1.1}});
  const PlanFixture clustered(testing::hand_preset(4), 1, model, 64, true, HotRowLayout::clustered);
  const PlanFixture scattered(testing::hand_preset(4), 1, model, 64, true, HotRowLayout::scattered);
  for (const Shard& s :
       clustered.valid_plan("hybrid", {{"schemes", OptionList{"row_wise"}}}).shards) {
    EXPECT_EQ(s.row_space, RowSpace::rank);
  }
  for (const Shard& s :
       scattered.valid_plan("hybrid", {{"schemes", OptionList{"row_wise"}}}).shards) {
    EXPECT_EQ(s.row_space, RowSpace::row_id);
    EXPECT_EQ(s.rows.size(), 25000u);
  }
}

TEST(HybridPlanner, BalancesTheIndicesItsGpusReceive) {
  // Two nodes of one GPU (NIC 10 GB/s), batch 16, table-wise only. Estimated times: C (dim
  // 64, pooling 4) 0.94 us, D (dim 32) 0.47 us, A and B (dim 4, pooling 200) 0.41 us each; but
  // A and B each receive 3200 indices and 16 offsets from the other GPU, 25.7 KB = 2.57 us at
  // the NIC. By time alone C goes to GPU 0, D to GPU 1, and A and B both to GPU 1 (at 0.88 us
  // after A, still below GPU 0's 0.94); with the indices beside the time, GPU 1 is at
  // max(0.88, 2.57) after A, and B goes to GPU 0.
  const PlanFixture f(testing::hand_preset(1), 2,
                      model_of({{1000, 64, 4}, {1000, 32, 4}, {1000, 4, 200}, {1000, 4, 200}}));
  const Plan with = f.valid_plan("hybrid", {{"schemes", OptionList{"table_wise"}}});
  EXPECT_NE(gpus_of_table(with, 2), gpus_of_table(with, 3));
  PlanFixture off(testing::hand_preset(1), 2,
                  model_of({{1000, 64, 4}, {1000, 32, 4}, {1000, 4, 200}, {1000, 4, 200}}));
  off.input_alltoall = false;  // simulation.pipeline.input_alltoall: none
  const Plan without = off.valid_plan("hybrid", {{"schemes", OptionList{"table_wise"}}});
  EXPECT_EQ(gpus_of_table(without, 0), std::vector<int>{0});
  EXPECT_EQ(gpus_of_table(without, 1), std::vector<int>{1});
  EXPECT_EQ(gpus_of_table(without, 2), std::vector<int>{1});
  EXPECT_EQ(gpus_of_table(without, 3), std::vector<int>{1});
}

// --- shard estimates

TEST(ShardEstimate, InputAlltoAllShareIsTheIndicesThePeersSend) {
  // 2 nodes x 4 GPUs (scale-up 100 GB/s, NIC 10 GB/s per GPU, efficiency 1), batch 16; a
  // table of pooling 10 served to all 8 GPUs: 8 x 16 x 10 = 1280 lookups, 160 from each GPU.
  // Each of the 7 peers sends 160 x 8 B of indices + 16 x 8 B of offsets = 1408 B: 3 peers
  // over NVLink (4224 B / 100 GB/s) and 4 over the NIC (5632 B / 10 GB/s = 0.5632 us).
  PlanFixture f(testing::hand_preset(4), 2, model_of({{1000, 16, 10}}));
  const auto peers = all_gpu_peers(f.cluster);
  const ShardCost on =
      estimate_shard_cost(f.ctx(), 0, {0, 1000}, RowSpace::row_id, {0, 16}, 8, peers, 0);
  EXPECT_DOUBLE_EQ(on.lookups, 1280);
  EXPECT_NEAR(on.input_comm_s, 5632 / 10e9, 1e-18);
  f.input_alltoall = false;
  const ShardCost off =
      estimate_shard_cost(f.ctx(), 0, {0, 1000}, RowSpace::row_id, {0, 16}, 8, peers, 0);
  EXPECT_EQ(off.input_comm_s, 0);
  // Beside the embedding time, not in it.
  EXPECT_EQ(on.total_s(), off.total_s());
  // A replica serving only its own GPU receives nothing.
  f.input_alltoall = true;
  EXPECT_EQ(
      estimate_shard_cost(f.ctx(), 0, {0, 1000}, RowSpace::row_id, {0, 16}, 1, {}, 0).input_comm_s,
      0);
}

TEST(ShardEstimate, TheSortSpansTheRowsExpectedOnTheGpu) {
  // 1000 rows alone: 10 key bits, 2 passes of 8. With the GPU's expected 1e8 rows: 27 bits, 4
  // passes: 2 more passes x 35 B x 1280 lookups at 1e12 B/s.
  PlanFixture f(testing::hand_preset(4), 2, model_of({{1000, 16, 10}}));
  f.cost.backward_sort_pass_bytes_per_lookup = 35;
  const auto peers = all_gpu_peers(f.cluster);
  const ShardCost alone =
      estimate_shard_cost(f.ctx(), 0, {0, 1000}, RowSpace::row_id, {0, 16}, 8, peers, 0);
  const ShardCost among =
      estimate_shard_cost(f.ctx(), 0, {0, 1000}, RowSpace::row_id, {0, 16}, 8, peers, 1e8);
  EXPECT_NEAR(among.bwd_compute_s - alone.bwd_compute_s, 2 * 35 * 1280 / 1e12, 1e-18);
  EXPECT_EQ(among.fwd_compute_s, alone.fwd_compute_s);
  // Fewer expected rows than the shard's own: the shard's own count.
  const ShardCost fewer =
      estimate_shard_cost(f.ctx(), 0, {0, 1000}, RowSpace::row_id, {0, 16}, 8, peers, 10);
  EXPECT_EQ(fewer.bwd_compute_s, alone.bwd_compute_s);
  // The expectation: every table's rows once, over the GPUs.
  EXPECT_DOUBLE_EQ(expected_gpu_rows(f.ctx()), 1000.0 / 8);
}

// --- packing helper

TEST(Packing, ALoadBesideCountsWhereItExceedsTheGpusOwn) {
  const PlanFixture f(small_gpus(2, 1e6), 1, model_of({{10, 4}}), 1);
  const MemoryBudget budget(f.ctx(), 0.0);
  LoadTracker loads(2);
  loads.add(0, 5, 3);  // max(5, 3)
  loads.add(1, 2, 6);  // max(2, 6)
  EXPECT_DOUBLE_EQ(loads.load(0), 5);
  EXPECT_DOUBLE_EQ(loads.load(1), 6);
  EXPECT_EQ(loads.least_loaded_fitting(budget, 1000), 0);
  loads.add(0, 0, 4);  // beside 7 > own 5
  EXPECT_DOUBLE_EQ(loads.load(0), 7);
  EXPECT_EQ(loads.least_loaded_fitting(budget, 1000), 1);
  loads.add(0, 0, -4);  // undone
  EXPECT_DOUBLE_EQ(loads.load(0), 5);
  loads.add(1, 3);  // a plain cost adds to the GPU's own: max(5, 6)
  EXPECT_DOUBLE_EQ(loads.load(1), 6);
  loads.add(1, 2);  // max(7, 6)
  EXPECT_DOUBLE_EQ(loads.load(1), 7);
}

TEST(Packing, LeastLoadedGpuWithRoomTiesToTheLowerId) {
  const PlanFixture f(small_gpus(3, 1e6), 1, model_of({{10, 4}}), 1);
  const MemoryBudget budget(f.ctx(), 0.0);
  LoadTracker loads(3);
  EXPECT_EQ(loads.least_loaded_fitting(budget, 1000), 0);
  loads.add(0, 5);
  loads.add(1, 5);
  EXPECT_EQ(loads.least_loaded_fitting(budget, 1000), 2);
  loads.add(2, 7);
  EXPECT_EQ(loads.least_loaded_fitting(budget, 1000), 0);
  EXPECT_EQ(loads.least_loaded_fitting(budget, 2e6), -1);
  const std::vector<int> some{1, 2};
  EXPECT_EQ(loads.least_loaded_fitting(budget, 1000, some), 1);
}

}  // namespace
}  // namespace shardsim
