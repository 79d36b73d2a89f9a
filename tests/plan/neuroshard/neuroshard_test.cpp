// The neuroshard planner (NeuroShard §3.3, Algorithms 1-2): column halvings, the computation
// cost cache, the greedy placement under a max device dimension, the grid, the beam search step
// by step, the memory filter, the backends, the time budget and determinism.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "plan/neuroshard/neuroshard_planner.hpp"
#include "plan/plan_fixture.hpp"
#include "shardsim/core/error.hpp"

namespace shardsim::neuroshard {
namespace {

using shardsim::testing::hand_preset;
using shardsim::testing::model_of;
using shardsim::testing::PlanFixture;
using shardsim::testing::TableSpec;

// Two GPUs with the same room for sub-tables.
std::vector<double> two_gpus(double room_bytes) {
  return {room_bytes, room_bytes};
}

SubTableSet by_hand(std::vector<std::uint32_t> dims, std::vector<double> bytes,
                    std::vector<double> cost_s) {
  SubTableSet s;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    s.subs.push_back(SubTable{i, ColRange{0, dims[i]}});
    s.total_dim += dims[i];
  }
  s.bytes = std::move(bytes);
  s.single_compute_s = std::move(cost_s);
  return s;
}

TEST(NeuroShardSubTables, HalvesOnlyToMultiplesOfFour) {
  EXPECT_TRUE(can_halve(SubTable{0, {0, 16}}));
  EXPECT_TRUE(can_halve(SubTable{0, {0, 8}}));    // 4 + 4
  EXPECT_FALSE(can_halve(SubTable{0, {0, 4}}));   // 2 + 2
  EXPECT_FALSE(can_halve(SubTable{0, {0, 12}}));  // 6 + 6
  EXPECT_TRUE(can_halve(SubTable{0, {8, 32}}));   // 24 -> 12 + 12
  EXPECT_FALSE(can_halve(SubTable{0, {0, 0}}));
}

TEST(NeuroShardSubTables, HalvingKeepsTheFirstHalfInPlaceAndAppendsTheSecond) {
  PlanFixture f(hand_preset(2), 1, model_of({{1000, 64}, {500, 16}}));
  const auto ctx = f.ctx();
  const MemoryBudget budget(ctx, 0);
  ComputeCost compute(ctx, true);
  const SubTableSet root = initial_sub_tables(ctx, budget, compute);
  ASSERT_EQ(root.size(), 2u);
  EXPECT_EQ(root.total_dim, 80u);
  const SubTableSet h = halved(root, 0, budget, compute);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h.subs[0].cols, (ColRange{0, 32}));
  EXPECT_EQ(h.subs[2].cols, (ColRange{32, 64}));
  EXPECT_EQ(h.subs[2].table, 0u);
  EXPECT_EQ(h.subs[1].cols, (ColRange{0, 16}));  // untouched
  EXPECT_EQ(h.total_dim, root.total_dim);
  // Weights and optimizer state split by columns; row-wise AdaGrad's per-row state stays whole
  // on each half, so the halves together hold a little more than the table.
  EXPECT_EQ(h.bytes[0], h.bytes[2]);
  EXPECT_GE(h.bytes[0] + h.bytes[2], root.bytes[0]);
  EXPECT_LT(h.bytes[0], root.bytes[0]);
  EXPECT_LT(h.single_compute_s[0], root.single_compute_s[0]);
  EXPECT_EQ(h.single_compute_s[0], h.single_compute_s[2]);
}

TEST(NeuroShardComputeCost, OneFusedKernelLaunchesOnceAndTheCacheHitsRepeats) {
  HardwarePreset preset = hand_preset(2);
  preset.gpu.kernel_launch_s = 5e-6;
  PlanFixture f(preset, 1, model_of({{1000, 64, 2}, {500, 16, 1}}));
  const auto ctx = f.ctx();
  ComputeCost cached(ctx, true);
  const SubTable a{0, {0, 64}}, b{1, {0, 16}};
  const double sa = cached.single_s(a);
  const double sb = cached.single_s(b);
  std::vector<std::uint64_t> both{a.cost_key(), b.cost_key()};
  const double sab = cached.set_s(both);
  // Forward 1 launch + backward 20 launches (kernels_per_embedding_backward) counted once.
  const double launches_s = 5e-6 * (1 + ctx.cost->kernels_per_embedding_backward);
  EXPECT_NEAR(sab, sa + sb - launches_s, 1e-15);
  EXPECT_EQ(cached.queries(), 3u);
  EXPECT_EQ(cached.hits(), 0u);
  EXPECT_EQ(cached.set_s(both), sab);
  EXPECT_EQ(cached.single_s(a), sa);
  EXPECT_EQ(cached.hits(), 2u);
  ComputeCost uncached(ctx, false);
  EXPECT_EQ(uncached.set_s(both), sab);
  EXPECT_EQ(uncached.set_s(both), sab);
  EXPECT_EQ(uncached.hits(), 0u);
  EXPECT_EQ(uncached.queries(), 2u);
}

TEST(NeuroShardGrid, ScalesFromTheMeanToOneAndAHalfTimesIt) {
  const std::vector<double> s = grid_scales(GridOptions{});
  ASSERT_EQ(s.size(), 11u);
  for (int i = 0; i < 11; ++i) EXPECT_NEAR(s[static_cast<std::size_t>(i)], 1.0 + 0.05 * i, 1e-12);
  EXPECT_EQ(grid_scales(GridOptions{1, 1.2, 1.5}), std::vector<double>{1.2});
  const std::vector<double> none = grid_scales(GridOptions{0, 1.0, 1.5});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(std::isinf(none[0]));
}

// Four tables of one size, dims 64, 32, 32, 16 (pooling 1) on 2 GPUs. Order by cost: t0, then
// the 32s (equal costs: the later one, t2, first), then t3.
class GreedyPlace : public ::testing::Test {
 protected:
  GreedyPlace()
      : f(hand_preset(2), 1, model_of({{1000, 64}, {1000, 32}, {1000, 32}, {1000, 16}})) {}
  PlanFixture f;
};

TEST_F(GreedyPlace, TheCostliestGoesToTheGpuWithTheLowestComputationCost) {
  const auto ctx = f.ctx();
  const MemoryBudget budget(ctx, 0);
  ComputeCost compute(ctx, true);
  const SubTableSet set = initial_sub_tables(ctx, budget, compute);
  const double inf = std::numeric_limits<double>::infinity();
  const Placement p = greedy_place(set, two_gpus(1e12), inf, compute);
  ASSERT_TRUE(p.found());
  // t0 -> GPU 0 (tie: lower id); t2 -> GPU 1 (0 < cost(t0)); t1 -> GPU 1 (cost(t2) < cost(t0));
  // t3 -> GPU 0: two 32-dim tables read twice the indices of one 64-dim table, so GPU 1 costs
  // more.
  EXPECT_EQ(p.gpu_of, (std::vector<int>{0, 1, 1, 0}));
  const std::vector<std::uint64_t> g1{set.subs[1].cost_key(), set.subs[2].cost_key()};
  EXPECT_EQ(p.compute_s[1], compute.set_s(g1));
  EXPECT_GT(p.compute_s[1], set.single_compute_s[0]);
}

TEST_F(GreedyPlace, TheMaxDeviceDimAndMemoryExcludeGpus) {
  const auto ctx = f.ctx();
  const MemoryBudget budget(ctx, 0);
  ComputeCost compute(ctx, true);
  const SubTableSet set = initial_sub_tables(ctx, budget, compute);
  // Mean device dim 72: at 1.0x, t3 (16) fits on neither GPU (64 + 16 > 72 on both).
  EXPECT_FALSE(greedy_place(set, two_gpus(1e12), 72, compute).found());
  // At 1.15x (82.8) it fits again.
  EXPECT_TRUE(greedy_place(set, two_gpus(1e12), 82.8, compute).found());
  // Memory (bytes by hand, 4 1 1 1): with room for 4 a GPU, t0 fills GPU 0 and t3 goes to
  // GPU 1 although GPU 0 computes less.
  SubTableSet by_bytes = set;
  by_bytes.bytes = {4, 1, 1, 1};
  const double inf = std::numeric_limits<double>::infinity();
  const Placement p = greedy_place(by_bytes, two_gpus(4), inf, compute);
  ASSERT_TRUE(p.found());
  EXPECT_EQ(p.gpu_of, (std::vector<int>{0, 1, 1, 1}));
  // Room for 3.9: t0 fits nowhere, and nothing is placed; the rest is, to measure how far the
  // plan is from fitting: t0's share of the bytes (4 of 7) plus of the dims (64 of 144).
  const Placement none = greedy_place(by_bytes, two_gpus(3.9), inf, compute);
  EXPECT_FALSE(none.found());
  EXPECT_NEAR(none.unplaced, 4.0 / 7 + 64.0 / 144, 1e-12);
  // Each GPU its own room (the bottom MLP on GPU 0 takes some of its room): t0 fits only GPU 1,
  // and the lighter t1-t3 go to GPU 0 by cost, while they fit there (1 + 1 + 1 <= 3.9).
  const Placement uneven = greedy_place(by_bytes, std::vector<double>{3.9, 4}, inf, compute);
  ASSERT_TRUE(uneven.found());
  EXPECT_EQ(uneven.gpu_of[0], 1);
}

TEST_F(GreedyPlace, TheGridKeepsTheCheapestPlacementByTheBackend) {
  const auto ctx = f.ctx();
  const MemoryBudget budget(ctx, 0);
  ComputeCost compute(ctx, true);
  const SubTableSet set = initial_sub_tables(ctx, budget, compute);
  const AnalyticBackend backend(ctx);
  const GridOptions grid{};
  const Placement best = greedy_grid_search(set, two_gpus(1e12), grid, compute, backend);
  ASSERT_TRUE(best.found());
  double lowest = std::numeric_limits<double>::infinity();
  double first_scale = 0;
  for (double scale : grid_scales(grid)) {
    const Placement p = greedy_place(set, two_gpus(1e12), scale * 72, compute);
    if (!p.found()) continue;
    const double c = backend.cost_s(Candidate{set.subs, p.gpu_of, p.compute_s});
    if (c < lowest) {
      lowest = c;
      first_scale = scale;
    }
  }
  EXPECT_EQ(best.cost_s, lowest);
  EXPECT_EQ(best.max_dim_scale, first_scale);
  EXPECT_GE(best.max_dim_scale, 1.15 - 1e-12);  // below that nothing was placed
}

TEST(NeuroShardBackend, AnalyticCostIsTheSlowestComputePlusTheSlowestShareBothWays) {
  PlanFixture f(hand_preset(2), 1, model_of({{1000, 64}, {1000, 16}}), 100);
  const auto ctx = f.ctx();
  const AnalyticBackend backend(ctx);
  // GPU 0 holds 64 dims, GPU 1 16: fp32 pooled outputs of a 100-sample batch. GPU 0 sends
  // 64 x 100 x 4 = 25.6 KB to its one peer (and receives 6.4 KB) over 100 GB/s scale-up.
  const std::vector<double> comm = backend.comm_s(std::vector<std::uint64_t>{64, 16});
  EXPECT_NEAR(comm[0], 25600 / 100e9, 1e-18);
  EXPECT_NEAR(comm[1], 25600 / 100e9, 1e-18);  // it receives the same bytes
  const std::vector<SubTable> subs{{0, {0, 64}}, {1, {0, 16}}};
  const std::vector<int> gpu_of{0, 1};
  const std::vector<double> compute{3e-6, 1e-6};
  EXPECT_NEAR(backend.cost_s(Candidate{subs, gpu_of, compute}), 3e-6 + 2 * 25600 / 100e9, 1e-18);
  f.workload.mode = Mode::inference;  // no backward communication
  EXPECT_NEAR(AnalyticBackend(f.ctx()).cost_s(Candidate{subs, gpu_of, compute}),
              3e-6 + 25600 / 100e9, 1e-18);
}

TEST(NeuroShardBeam, CandidatesAreTheCostliestAndTheLargestThatCanBeHalved) {
  // index:        0    1    2    3    4    5
  const SubTableSet set = by_hand({64, 16, 32, 4, 128, 12}, {1, 9, 5, 8, 2, 7}, {6, 1, 5, 7, 4, 2});
  // Top 2 by cost: 3 (7), 0 (6); top 2 by bytes: 1 (9), 3 (8). Merged: 0, 1, 3; 3 (dim 4)
  // cannot be halved.
  EXPECT_EQ(split_candidates(set, 2), (std::vector<std::size_t>{0, 1}));
  // Top 3: cost 3, 0, 2; bytes 1, 3, 5 (12: cannot be halved).
  EXPECT_EQ(split_candidates(set, 3), (std::vector<std::size_t>{0, 1, 2}));
  // N at least the number of sub-tables: every one that can be halved.
  EXPECT_EQ(split_candidates(set, 6), (std::vector<std::size_t>{0, 1, 2, 4}));
}

// A wide, hot table dominates 2 GPUs; two small ones cannot balance it.
class BeamSearch : public ::testing::Test {
 protected:
  BeamSearch()
      : f(hand_preset(2), 1, model_of({{200000, 128, 8}, {1000, 16, 1}, {1000, 16, 1}}), 512) {}
  PlanFixture f;
};

TEST_F(BeamSearch, StepOneTriesEveryCandidateAndKeepsTheCheapest) {
  const auto ctx = f.ctx();
  const MemoryBudget budget(ctx, 0);
  const AnalyticBackend backend(ctx);
  BeamOptions o;
  o.steps = 1;
  ComputeCost compute(ctx, true);
  const SearchResult r = beam_search(ctx, budget, o, compute, backend);

  ComputeCost c2(ctx, true);
  const double room = budget.room_bytes(0);
  const SubTableSet root = initial_sub_tables(ctx, budget, c2);
  const Placement p0 = greedy_grid_search(root, two_gpus(room), o.grid, c2, backend);
  double best = p0.cost_s;
  std::size_t best_i = SIZE_MAX;
  const auto cands = split_candidates(root, o.candidates);
  EXPECT_EQ(cands, (std::vector<std::size_t>{0, 1, 2}));
  for (std::size_t i : cands) {
    const Placement p =
        greedy_grid_search(halved(root, i, budget, c2), two_gpus(room), o.grid, c2, backend);
    if (p.cost_s < best) {
      best = p.cost_s;
      best_i = i;
    }
  }
  EXPECT_EQ(r.inner_searches, 1 + 3);
  EXPECT_EQ(r.steps_done, 1);
  EXPECT_EQ(r.placement.cost_s, best);
  // Halving the wide table is what pays.
  EXPECT_EQ(best_i, 0u);
  ASSERT_EQ(r.column_plan, std::vector<std::size_t>{0});
  EXPECT_LT(r.placement.cost_s, p0.cost_s);
}

TEST_F(BeamSearch, LaterStepsExtendTheBestPlansAndKeepTheBestSeen) {
  const auto ctx = f.ctx();
  const MemoryBudget budget(ctx, 0);
  const AnalyticBackend backend(ctx);
  BeamOptions o;
  o.beam_width = 1;
  o.steps = 1;
  ComputeCost c1(ctx, true);
  const SearchResult one = beam_search(ctx, budget, o, c1, backend);
  o.steps = 2;
  ComputeCost c2(ctx, true);
  const SearchResult two = beam_search(ctx, budget, o, c2, backend);
  // With K = 1 step 2 extends step 1's best: its plan starts with step 1's choice, unless step
  // 2 found nothing better, when the best stays step 1's.
  ASSERT_FALSE(two.column_plan.empty());
  EXPECT_EQ(two.column_plan[0], one.column_plan[0]);
  EXPECT_LE(two.placement.cost_s, one.placement.cost_s);
  EXPECT_EQ(two.steps_done, 2);
  // Step 2's candidates: the four sub-tables after one halving (two 64s, two 16s).
  EXPECT_EQ(two.inner_searches, 1 + 3 + 4);
}

TEST_F(BeamSearch, NoStepsMeansNoColumnShardingAndNoGridMeansNoDimLimit) {
  // The 128-dim table is wider than 1.5 x the mean device dim (80): no grid value places it
  // whole, so without halvings (Table 3's "w/o beam search") the search fails...
  try {
    f.plan("neuroshard", {{"steps", 0}});
    FAIL() << "expected DoesNotFitError";
  } catch (const DoesNotFitError& e) {
    EXPECT_NE(std::string(e.what()).find("wider than"), std::string::npos) << e.what();
  }
  // ... unless the dim limit goes too (Table 3's "w/o greedy grid search").
  const Plan p = f.valid_plan("neuroshard", {{"steps", 0}, {"grid_steps", 0}});
  EXPECT_EQ(p.shards.size(), 3u);
  for (const Shard& s : p.shards) EXPECT_EQ(s.kind, ShardKind::table_wise);
  const auto ctx = f.ctx();
  NeuroShardOptions o;
  o.beam.grid.steps = 0;
  const NeuroShardResult r = neuroshard_plan_detailed(ctx, o);
  EXPECT_TRUE(std::isinf(r.search.placement.max_dim_scale));
}

TEST(NeuroShardPlanner, UnplaceablePlansRankByHowFarTheyOvershootTheLimits) {
  // Dims 32, 64, 16 on 8 GPUs: mean device dim 14, at most 21 under the grid; placing every
  // sub-table needs four halvings (64 -> 32 + 32 -> four 16s, 32 -> 16 + 16). With a beam of
  // one, only the ranking of the unplaceable extensions can steer toward them.
  PlanFixture f(hand_preset(8), 1, model_of({{1000, 32}, {1000, 64}, {1000, 16}}));
  const Plan p = f.valid_plan("neuroshard", {{"beam_width", 1}, {"steps", 4}});
  EXPECT_EQ(p.shards.size(), 7u);
  for (const Shard& s : p.shards) EXPECT_LE(s.cols.size(), 16u);
  // The statistics name each halving; t1 is halved whole once, then each half again.
  ASSERT_GE(p.planner_stats.size(), 2u);
  const std::string& plan_line = p.planner_stats[1];
  for (const char* part :
       {"column plan: ", "'t1' [0, 64) -> [0, 32) + [32, 64)", "'t1' [0, 32) -> [0, 16) + [16, 32)",
        "'t1' [32, 64) -> [32, 48) + [48, 64)", "'t0' [0, 32) -> [0, 16) + [16, 32)"}) {
    EXPECT_NE(plan_line.find(part), std::string::npos) << part << "\n" << plan_line;
  }
}

TEST(NeuroShardPlanner, TooFewStepsToHalveTheWideTablesFailsBeforeTheSearch) {
  // The set-up above needs four halvings; three steps cannot make them, and the planner says so
  // without searching (at 4096 GPUs that search took 17 s to fail).
  PlanFixture f(hand_preset(8), 1, model_of({{1000, 32}, {1000, 64}, {1000, 16}}));
  try {
    f.plan("neuroshard", {{"beam_width", 1}, {"steps", 3}});
    FAIL() << "expected DoesNotFitError";
  } catch (const DoesNotFitError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("need 4 halvings"), std::string::npos) << what;
    EXPECT_NE(what.find("'t1', is 64 columns"), std::string::npos) << what;
    EXPECT_EQ(what.find("GPU -1"), std::string::npos) << what;
    EXPECT_EQ(e.gpu(), -1);
  }
}

TEST(NeuroShardPlanner, SplitsATableNoGpuCanHoldWhole) {
  // 40 GB GPUs; one table of 2e8 rows x 64 fp32 = 51.2 GB of weights: table_wise cannot place
  // it, halving it twice can.
  PlanFixture f(hand_preset(4), 1, model_of({{200000000, 64}, {1000, 16}, {1000, 32}}), 64);
  EXPECT_THROW(f.plan("table_wise"), DoesNotFitError);
  const Plan p = f.valid_plan("neuroshard");
  int parts = 0;
  for (const Shard& s : p.shards) parts += s.table == 0;
  EXPECT_GE(parts, 2);
  for (double bytes : f.memory_bytes(p)) EXPECT_LE(bytes, 40e9);
}

TEST(NeuroShardPlanner, ThePreShardingFilterRefusesTablesTheGpusCannotHoldTogether) {
  // 4 x 40 GB; 2e8 x 256 fp32 = 204.8 GB.
  PlanFixture f(hand_preset(4), 1, model_of({{200000000, 256}}), 64);
  try {
    f.plan("neuroshard");
    FAIL() << "expected DoesNotFitError";
  } catch (const DoesNotFitError& e) {
    EXPECT_NE(std::string(e.what()).find("no sharding fits"), std::string::npos) << e.what();
  }
}

TEST(NeuroShardPlanner, IsDeterministicAndReportsItsSearch) {
  PlanFixture f(hand_preset(4), 1,
                model_of({{50000, 128, 6, 1.0},
                          {8000, 64, 2, 0.9},
                          {300000, 32, 10, 1.1},
                          {1000, 16, 1, 0.8},
                          {70000, 128, 3, 1.2},
                          {2000, 8, 1, 0.0}}),
                256, true);
  const Plan a = f.valid_plan("neuroshard");
  const Plan b = f.valid_plan("neuroshard");
  ASSERT_EQ(a.shards.size(), b.shards.size());
  for (std::size_t i = 0; i < a.shards.size(); ++i) {
    EXPECT_EQ(a.shards[i].table, b.shards[i].table);
    EXPECT_EQ(a.shards[i].cols, b.shards[i].cols);
    EXPECT_EQ(a.shards[i].gpu, b.shards[i].gpu);
  }
  EXPECT_EQ(a.planner_stats, b.planner_stats);
  ASSERT_EQ(a.planner_stats.size(), 3u + 1 + 4);  // summary, column plan, search; a line a GPU
  EXPECT_NE(a.planner_stats[0].find("analytic backend"), std::string::npos);
  EXPECT_NE(a.planner_stats[2].find("computation cost cache"), std::string::npos);
  // The same search's counts, for the report: the ones the stats line prints.
  EXPECT_EQ(a.planner_counts, b.planner_counts);
  ASSERT_EQ(a.planner_counts.size(), 4u);
  const std::vector<std::string> names = {"greedy_grid_searches", "beam_steps", "cache_queries",
                                          "cache_hits"};
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(a.planner_counts[i].name, names[i]);
  const std::uint64_t searches = a.planner_counts[0].value, steps = a.planner_counts[1].value;
  const std::uint64_t queries = a.planner_counts[2].value, hits = a.planner_counts[3].value;
  EXPECT_GE(steps, 1u);
  EXPECT_GT(searches, steps);  // step 0's search, then at least one a step
  EXPECT_GT(hits, 0u);
  EXPECT_LT(hits, queries);
  EXPECT_NE(a.planner_stats[2].find(
                fmt::format("{} greedy grid searches over {} beam steps", searches, steps)),
            std::string::npos)
      << a.planner_stats[2];
  EXPECT_NE(a.planner_stats[2].find(fmt::format("{} of {} queries hit", hits, queries)),
            std::string::npos)
      << a.planner_stats[2];
  // Without the cache (Table 3's "w/o caching") the same search asks as often and never hits.
  const Plan uncached = f.valid_plan("neuroshard", {{"cache", false}});
  ASSERT_EQ(uncached.planner_counts.size(), 4u);
  EXPECT_EQ(uncached.planner_counts[2].value, queries);
  EXPECT_EQ(uncached.planner_counts[3].value, 0u);
  // Every table's columns are covered exactly once.
  for (std::size_t t = 0; t < f.model.tables.size(); ++t) {
    std::uint32_t cols = 0;
    for (const Shard& s : a.shards) cols += s.table == t ? s.cols.size() : 0;
    EXPECT_EQ(cols, f.model.tables[t].dim);
  }
}

TEST(NeuroShardPlanner, ATimeBudgetReturnsTheBestPlanSoFar) {
  std::vector<TableSpec> specs;
  for (int i = 0; i < 300; ++i) {
    specs.push_back({static_cast<std::uint64_t>(1000 + 37 * i), 128u >> (i % 5), 1.0 + i % 7, 0.0});
  }
  PlanFixture f(hand_preset(8), 1, model_of(specs), 256);
  const auto ctx = f.ctx();
  NeuroShardOptions o;
  o.time_budget_s = 1e-3;  // the search needs far longer (hundreds of grid searches)
  const NeuroShardResult r = neuroshard_plan_detailed(ctx, o);
  EXPECT_TRUE(r.search.stopped_by_deadline);
  EXPECT_LT(r.search.steps_done, 10);
  EXPECT_TRUE(r.search.placement.found());
  validate_plan(r.plan, f.cluster, f.model, "neuroshard under a time budget");
  EXPECT_NE(r.plan.planner_stats[2].find("stopped by the time budget"), std::string::npos);
}

// Counts its calls; judges a plan by the analytic cost of its placement.
class CountingEvaluator final : public PlanEvaluator {
 public:
  explicit CountingEvaluator(const PlanningContext& ctx) : ctx_(ctx) {}
  double iteration_s(const Plan& plan) const override {
    ++calls;
    std::vector<std::uint64_t> dims(static_cast<std::size_t>(ctx_.cluster.num_gpus()), 0);
    for (const Shard& s : plan.shards) dims[static_cast<std::size_t>(s.gpu)] += s.cols.size();
    const auto comm = AnalyticBackend(ctx_).comm_s(dims);
    return *std::max_element(comm.begin(), comm.end()) + 1e-3 * plan.shards.size();
  }
  mutable int calls = 0;

 private:
  const PlanningContext& ctx_;
};

TEST_F(BeamSearch, TheSimulationBackendJudgesEveryPlacedCandidateByTheEvaluator) {
  EXPECT_THROW(f.plan("neuroshard", {{"backend", "simulation"}}), InputError);
  PlanningContext ctx = f.ctx();
  CountingEvaluator evaluator(ctx);
  ctx.evaluator = &evaluator;
  NeuroShardOptions o;
  o.backend = Backend::simulation;
  o.beam.steps = 2;
  const NeuroShardResult r = neuroshard_plan_detailed(ctx, o);
  EXPECT_EQ(r.backend, "simulation");
  EXPECT_GT(evaluator.calls, r.search.inner_searches);  // several grid values per search
  EXPECT_LE(evaluator.calls, r.search.inner_searches * 11);
  // The evaluator charges 1 ms a shard, so the fewest halvings that place every table win: one
  // (the 128-dim table cannot be placed whole under the grid's dim limit).
  EXPECT_EQ(r.search.column_plan, std::vector<std::size_t>{0});
  EXPECT_NE(r.plan.planner_stats[0].find("simulated iteration time"), std::string::npos);
}

// Values the schema refuses (the errors a user sees: tests/io/planner_options_reader_test.cpp),
// and those only the planner can check.
TEST(NeuroShardOptions, BadValuesAreRefused) {
  PlanFixture f(hand_preset(2), 1, model_of({{1000, 16}}));
  const std::vector<OptionValues> refused = {{{"backend", "neural"}},
                                             {{"beam_width", 0}},
                                             {{"time_budget_s", -1}},
                                             {{"cache", "maybe"}},
                                             {{"beam", 3}}};
  for (const OptionValues& bad : refused) {
    EXPECT_THROW(f.plan("neuroshard", bad), std::invalid_argument) << bad.front().first;
  }
  EXPECT_THROW(f.plan("neuroshard", {{"grid_start", 1.4}, {"grid_end", 1.2}}), InputError);
  EXPECT_THROW(f.plan("neuroshard", {{"steps", 5000}}), InputError);
}

}  // namespace
}  // namespace shardsim::neuroshard
