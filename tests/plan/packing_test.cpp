// Packing with two loads (plan/packing.hpp, pack_two_shares): the dominant-share greedy by hand,
// its equivalence to the one-load greedy when the second load is zero (by hand and on random
// integer costs, ties included), every item placed once, and its memory check; and
// pack_with_replica_sync's one sync time per item.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "plan/packing.hpp"
#include "plan/plan_fixture.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/plan/memory.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::PlanFixture;

// One host of 2 GPUs; four equal tables, so bytes never break a tie.
PlanFixture two_gpu_fixture() {
  return PlanFixture(testing::hand_preset(2), 1,
                     model_of(std::vector<testing::TableSpec>(4, testing::TableSpec{1000, 8, 1})));
}

std::vector<PackItem> pack_items_with_costs(const PlanFixture& f,
                                            const std::vector<double>& costs) {
  std::vector<PackItem> items;
  for (std::size_t t = 0; t < costs.size(); ++t) {
    items.push_back(PackItem{whole_table_shard(t, f.model.tables[t].rows, f.model.tables[t].dim),
                             costs[t], 2.0, "table " + std::to_string(t)});
  }
  return items;
}

std::vector<int> packed_gpu_of_table(const Plan& p, std::size_t tables) {
  std::vector<int> gpu(tables, -1);
  for (const Shard& s : p.shards) gpu[s.table] = s.gpu;
  return gpu;
}

// MemoryBudget with the scenario's bottom MLP on one GPU starts each GPU where plan_memory puts
// a plan without shards whose bottom MLP runs there: more on that GPU (the global batch's bottom
// layers), less on the others (no bottom MLP); the rooms follow.
TEST(MemoryBudget, StartsWhereTheBottomMlpOnOneGpuLeavesEachGpu) {
  testing::TableSpec spec{1000, 8, 1};
  DlrmModel model = model_of({spec, spec});
  model.bottom_mlp = {512, 256};
  const PlanFixture f(testing::hand_preset(4), 1, model, 256);
  PlanningContext ctx = f.ctx();
  const MemoryBudget data_parallel(ctx, 0.1);
  ctx.bottom_mlp_gpu = 2;
  const MemoryBudget on_two(ctx, 0.1);
  Plan empty;
  empty.bottom_mlp_gpu = 2;
  const std::vector<double> expected = f.memory_bytes(empty);
  for (int g = 0; g < 4; ++g) {
    EXPECT_DOUBLE_EQ(data_parallel.start_bytes(g), data_parallel.base_bytes());
    EXPECT_NEAR(on_two.start_bytes(g), expected[static_cast<std::size_t>(g)], 1e-6);
    EXPECT_DOUBLE_EQ(on_two.used_bytes(g), on_two.start_bytes(g));
    EXPECT_DOUBLE_EQ(on_two.room_bytes(g), on_two.capacity_bytes() - on_two.start_bytes(g));
  }
  EXPECT_GT(on_two.start_bytes(2), on_two.base_bytes());
  EXPECT_LT(on_two.start_bytes(0), on_two.base_bytes());
  EXPECT_DOUBLE_EQ(on_two.smallest_room_bytes(), on_two.room_bytes(2));
  EXPECT_DOUBLE_EQ(on_two.largest_room_bytes(), on_two.room_bytes(0));
  EXPECT_DOUBLE_EQ(data_parallel.largest_room_bytes(), data_parallel.smallest_room_bytes());
}

TEST(PackTwoShares, BalancesTheDominantShareByHand) {
  const PlanFixture f = two_gpu_fixture();
  const PlanningContext ctx = f.ctx();
  // (first, second) loads: t0 (4, 0), t1 (2, 1), t2 (2, 1), t3 (0, 2); totals 8 and 4, so the
  // shares are t0 (.5, 0), t1 (.25, .25), t2 (.25, .25), t3 (0, .5). Order: t0, t3 (dominant .5;
  // equal bytes, lower table first), t1, t2.
  //   t0 -> GPU 0 (both empty; lower id): GPU 0 (.5, 0).
  //   t3 -> after .5 on either GPU; GPU 0's dominant share does not rise (.5 before): GPU 0.
  //   t1 -> GPU 1 (.25 after, against .75 on GPU 0); t2 -> GPU 1 (.5 against .75).
  // Both GPUs end at (.5, .5). One load alone would give GPU 0 {t0, t3} too, but by the tie rule
  // for t3 on loads 4 / 4, not by its second load.
  MemoryBudget budget(ctx, 0);
  Plan p;
  const std::vector<double> second = {0, 1, 1, 2};
  pack_two_shares(pack_items_with_costs(f, {4, 2, 2, 0}), second, budget, p);
  EXPECT_EQ(packed_gpu_of_table(p, 4), (std::vector<int>{0, 1, 1, 0}));

  // The second load decides where the first is silent: t0 and t1 carry all the first load
  // (.5 each), t2 and t3 all the second (.75, .25). t2 (.75) -> GPU 0; t0 (.5) -> GPU 1 (.5
  // against .75); t1 (.5) -> GPU 0 (.75, its dominant share unchanged, against 1.0 on GPU 1);
  // t3 (.25) -> GPU 1 (.5 against 1.0).
  MemoryBudget budget2(ctx, 0);
  Plan q;
  const std::vector<double> second2 = {0, 0, 3, 1};
  pack_two_shares(pack_items_with_costs(f, {1, 1, 0, 0}), second2, budget2, q);
  EXPECT_EQ(packed_gpu_of_table(q, 4), (std::vector<int>{1, 0, 0, 1}));
}

TEST(PackTwoShares, WithoutASecondLoadIsTheLeastLoadedGreedy) {
  const PlanFixture f = two_gpu_fixture();
  const PlanningContext ctx = f.ctx();
  const std::vector<double> costs = {5, 3, 3, 2};
  MemoryBudget b1(ctx, 0), b2(ctx, 0);
  Plan two, one;
  pack_two_shares(pack_items_with_costs(f, costs), std::vector<double>(4, 0.0), b1, two);
  std::vector<PackItem> items = pack_items_with_costs(f, costs);
  sort_largest_first(items, b2);
  LoadTracker loads(2);
  pack_least_loaded(items, b2, loads, one);
  EXPECT_EQ(packed_gpu_of_table(two, 4), packed_gpu_of_table(one, 4));
  EXPECT_EQ(packed_gpu_of_table(two, 4), (std::vector<int>{0, 1, 1, 0}));
}

TEST(PackTwoShares, SkipsFullGpusAndFailsClearlyWhenNoneHasRoom) {
  HardwarePreset preset = testing::hand_preset(2);
  const PlanFixture probe(preset, 1, model_of(std::vector<testing::TableSpec>(4, {1000, 8, 1})));
  const PlanningContext probe_ctx = probe.ctx();  // MemoryBudget keeps a reference to it
  MemoryBudget sizing(probe_ctx, 0);
  const double table_bytes = sizing.shard_bytes(whole_table_shard(0, 1000, 8), 2.0);
  // Room for the base memory and a table and a half per GPU. t0 carries all the first load and
  // t1 all the second (dominant shares 1 and 1, t0 first): t0 -> GPU 0; t1 would join it (its
  // dominant share stays 1 there, and is 1 on GPU 1 too; the tie goes to the fuller GPU) but
  // GPU 0 is full: GPU 1. A third table then fits nowhere.
  preset.gpu.hbm_capacity_bytes = sizing.base_bytes() + 1.5 * table_bytes;
  const PlanFixture f(preset, 1, model_of(std::vector<testing::TableSpec>(4, {1000, 8, 1})));
  const PlanningContext ctx = f.ctx();
  MemoryBudget budget(ctx, 0);
  Plan p;
  pack_two_shares(pack_items_with_costs(f, {1, 0}), std::vector<double>{0, 1}, budget, p);
  EXPECT_EQ(packed_gpu_of_table(p, 2), (std::vector<int>{0, 1}));
  MemoryBudget roomy(probe_ctx, 0);
  Plan q;
  pack_two_shares(pack_items_with_costs(probe, {1, 0}), std::vector<double>{0, 1}, roomy, q);
  EXPECT_EQ(packed_gpu_of_table(q, 2), (std::vector<int>{0, 0}));
  MemoryBudget full(ctx, 0);
  Plan r;
  try {
    pack_two_shares(pack_items_with_costs(f, {1, 0, 1}), std::vector<double>{0, 1, 0}, full, r);
    FAIL() << "expected DoesNotFitError";
  } catch (const DoesNotFitError& e) {
    EXPECT_NE(std::string(e.what()).find("table 2"), std::string::npos) << e.what();
  }
}

TEST(PackTwoShares, MatchesTheOneLoadGreedyOnRandomCostsAndPlacesEveryItemOnce) {
  // 40 tables of random cost on 4 GPUs, 30 seeds: without a second load, the same GPUs as the
  // one-load greedy; with a random second load, every table placed exactly once.
  const PlanFixture f(
      testing::hand_preset(4), 1,
      model_of(std::vector<testing::TableSpec>(40, testing::TableSpec{1000, 8, 1})));
  const PlanningContext ctx = f.ctx();
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(0.0, 10.0);
  for (int seed = 0; seed < 30; ++seed) {
    std::vector<double> costs(40), second(40);
    for (double& c : costs) c = std::floor(u(rng));  // integers: ties happen
    for (double& c : second) c = u(rng);
    MemoryBudget b1(ctx, 0), b2(ctx, 0), b3(ctx, 0);
    Plan two, one, both;
    pack_two_shares(pack_items_with_costs(f, costs), std::vector<double>(40, 0.0), b1, two);
    std::vector<PackItem> items = pack_items_with_costs(f, costs);
    sort_largest_first(items, b2);
    LoadTracker loads(4);
    pack_least_loaded(items, b2, loads, one);
    EXPECT_EQ(packed_gpu_of_table(two, 40), packed_gpu_of_table(one, 40)) << seed;
    pack_two_shares(pack_items_with_costs(f, costs), second, b3, both);
    ASSERT_EQ(both.shards.size(), 40u);
    std::vector<int> seen(40, 0);
    for (const Shard& s : both.shards) {
      ++seen[s.table];
      EXPECT_GE(s.gpu, 0);
      EXPECT_LT(s.gpu, 4);
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 40) << seed;
  }
}

TEST(PackWithReplicaSync, WantsOneSyncTimePerItem) {
  const PlanFixture f = two_gpu_fixture();
  const PlanningContext ctx = f.ctx();
  MemoryBudget budget(ctx, 0);
  Plan p;
  const std::vector<double> three = {0, 0, 0};
  EXPECT_THROW(
      pack_with_replica_sync(pack_items_with_costs(f, {1, 1, 1, 1}), three, false, budget, p),
      std::invalid_argument);
  EXPECT_TRUE(p.shards.empty());
}

// The tournament tree against a plain sorted set of (load, id): 3 hosts x 4 GPUs (12, not a power
// of two), random integer costs (ties, zeros, undos) in one or two loads, GPUs filled at random.
// After every step the least-loaded GPU with room is the first of the set's order that has it.
TEST(LoadTracker, MatchesASortedOrderUnderRandomLoadsAndFullGpus) {
  const PlanFixture f(testing::hand_preset(4), 3,
                      model_of(std::vector<testing::TableSpec>(4, testing::TableSpec{1000, 8, 1})));
  const PlanningContext ctx = f.ctx();
  std::mt19937 rng(7);
  for (const bool two_loads : {false, true}) {
    MemoryBudget budget(ctx, 0);
    const int n = 12;
    LoadTracker loads(n);
    std::vector<double> own(n, 0.0), beside(n, 0.0), expect(n, 0.0);
    const double room = budget.free_bytes(0);
    for (int step = 0; step < 2000; ++step) {
      const int g = static_cast<int>(rng() % n);
      const double cost = static_cast<double>(static_cast<int>(rng() % 7) - 2);
      const double second = two_loads ? static_cast<double>(rng() % 5) : 0.0;
      loads.add(g, cost, second);
      own[g] += cost;
      beside[g] += second;
      expect[g] = two_loads ? std::max(own[g], beside[g]) : own[g];
      if (rng() % 50 == 0) budget.add(static_cast<int>(rng() % n), room / 3);
      std::set<std::pair<double, int>> order;
      for (int k = 0; k < n; ++k) order.emplace(expect[k], k);
      for (const double bytes : {0.0, room / 2}) {
        int want = -1;
        for (const auto& [load, k] : order) {
          if (budget.fits(k, bytes)) {
            want = k;
            break;
          }
        }
        ASSERT_EQ(loads.least_loaded_fitting(budget, bytes), want) << step << " " << bytes;
      }
      for (int k = 0; k < n; ++k) ASSERT_EQ(loads.load(k), expect[k]);
    }
  }
}

TEST(LoadTracker, OneGpuAndNone) {
  const PlanFixture f = two_gpu_fixture();
  const PlanningContext ctx = f.ctx();
  const MemoryBudget budget(ctx, 0);
  LoadTracker one(1);
  one.add(0, 3);
  EXPECT_EQ(one.least_loaded_fitting(budget, 0.0), 0);
  EXPECT_EQ(one.least_loaded_fitting(budget, 1e30), -1);
  const LoadTracker none(0);
  EXPECT_EQ(none.least_loaded_fitting(budget, 0.0), -1);
}

}  // namespace
}  // namespace shardsim
