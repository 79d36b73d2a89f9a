// The two_d planner (2D paper §3.1): the inner plan repeated in every group, the groups and the
// sync settings, the memory it implies (§5's replica overhead, §2.2's lookup activations),
// M = 1 as plain model parallelism, the touched-rows sync volume, and bad options.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "plan/plan_fixture.hpp"
#include "plan/sparse_groups.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/cost/replica_sync_cost.hpp"
#include "shardsim/plan/peer_sync.hpp"
#include "shardsim/plan/replica_sync.hpp"
#include "shardsim/plan/serving.hpp"

namespace shardsim::two_d_planner_test {
namespace {

using testing::model_of;
using testing::PlanFixture;

auto key(const Shard& s) {
  return std::make_tuple(s.table, s.rows.begin, s.rows.end, static_cast<int>(s.row_space),
                         s.cols.begin, s.cols.end, s.gpu, s.replica, static_cast<int>(s.kind));
}

// 2 hosts x 4 GPUs; 8 tables of 1e5 x 32 (12.8 MB + 0.4 MB row-wise AdaGrad state each).
PlanFixture fixture(std::uint32_t batch = 64) {
  return PlanFixture(
      testing::hand_preset(4), 2,
      model_of(std::vector<testing::TableSpec>(8, testing::TableSpec{100000, 32, 4})), batch);
}

double table_bytes(const PlanFixture& f) {
  double s = 0;
  for (const auto& t : f.model.tables) {
    const Shard whole{0, {0, t.rows}, RowSpace::row_id,      {0, t.dim},
                      0, 0,           ShardKind::table_wise, {}};
    s += shard_weight_bytes(whole, f.model) + shard_optimizer_bytes(whole, f.model, Mode::training);
  }
  return s;
}

TEST(TwoDPlanner, RepeatsTheInnerPlanInEveryGroup) {
  const PlanFixture f = fixture();
  const Plan p = f.valid_plan("two_d", {{"groups", 2}, {"inner", "table_wise"}});
  EXPECT_EQ(p.planner, "two_d");
  // Default layout peers_in_host: M = 2 divides 4 GPUs per host, so group 0 is GPUs 0, 1 of
  // each host and group 1 GPUs 2, 3.
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0], (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(p.groups[1], (std::vector<int>{2, 3, 6, 7}));
  EXPECT_EQ(p.peer_sync, (PeerSync{PeerSyncMode::dense, 1}));
  // The inner planner saw one group: 4 GPUs on 2 hosts of 2.
  const Cluster view = SparseGroups(f.cluster, 2, GroupLayout::peers_in_host).view_cluster();
  const PlanFixture inner_f(view.preset(), view.num_nodes(), f.model, 64);
  const Plan inner = inner_f.valid_plan("table_wise");
  ASSERT_EQ(p.shards.size(), 2 * inner.shards.size());
  for (std::size_t i = 0; i < inner.shards.size(); ++i) {
    for (int m = 0; m < 2; ++m) {
      Shard want = inner.shards[i];
      want.gpu = p.groups[m][static_cast<std::size_t>(inner.shards[i].gpu)];
      want.replica = m;
      EXPECT_EQ(key(p.shards[m * inner.shards.size() + i]), key(want));
    }
  }
  // Each block has one replica per group, and each group's replica serves its own GPUs.
  const ServingMap serving = build_serving_map(p, f.cluster);
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    ASSERT_EQ(serving.sets[k].shards.size(), 2u);
    EXPECT_TRUE(is_peer_set(p, serving, k));
    for (int g = 0; g < 8; ++g) {
      EXPECT_EQ(serving.group_of[p.shards[serving.server(k, g)].gpu], serving.group_of[g]);
    }
  }
}

TEST(TwoDPlanner, OneGroupIsExactlyTheInnerPlanner) {
  const PlanFixture f = fixture();
  for (const char* inner : {"table_wise", "row_wise", "hybrid", "data_parallel"}) {
    SCOPED_TRACE(inner);
    const Plan a = f.valid_plan(inner);
    const Plan b = f.valid_plan("two_d", {{"groups", 1}, {"inner", inner}});
    EXPECT_TRUE(b.groups.empty());
    ASSERT_EQ(a.shards.size(), b.shards.size());
    for (std::size_t i = 0; i < a.shards.size(); ++i) EXPECT_EQ(key(a.shards[i]), key(b.shards[i]));
    EXPECT_EQ(f.memory_bytes(a), f.memory_bytes(b));
  }
  // group_size: the number of GPUs instead.
  const Plan c = f.valid_plan("two_d", {{"group_size", 8}, {"inner", "table_wise"}});
  EXPECT_TRUE(c.groups.empty());
}

TEST(TwoDPlanner, ReplicaMemoryOverheadIsSTimesMMinusOneOverT) {
  // 2D §5: each GPU holds S/N = S·M/T of table bytes instead of S/T.
  const PlanFixture f = fixture();
  const double s = table_bytes(f);  // 8 x (1e5 x 32 x 4 + 1e5 x 4) = 105.6 MB
  EXPECT_DOUBLE_EQ(s, 8 * (100000.0 * 32 * 4 + 100000.0 * 4));
  auto mean_table_bytes = [&](const Plan& p) {
    double sum = 0;
    for (const GpuMemory& m : plan_memory(p, f.cluster, f.model, f.workload)) {
      sum += m.weights_bytes + m.optimizer_bytes;
    }
    return sum / 8;
  };
  const double mp = mean_table_bytes(f.valid_plan("table_wise"));
  EXPECT_DOUBLE_EQ(mp, s / 8);
  for (int m : {2, 4, 8}) {
    const Plan p = f.valid_plan("two_d", {{"groups", m}, {"inner", "table_wise"}});
    EXPECT_NEAR(mean_table_bytes(p) - mp, replica_memory_overhead_bytes(s, m, 8), 1e-3)
        << m << " groups";
  }
}

TEST(TwoDPlanner, LookupActivationsGrowWithTheGpusUnderModelParallelismAndWithTheGroupIn2D) {
  // 2D §2.2: a row-wise shard serves every GPU of its group, so its pooled outputs, their
  // gradients and the indices it receives are for N·B samples: T·B under model parallelism.
  // Per GPU (8 row-wise shards, dim 32, pooling 4, batch 64, fp32):
  //   N·64 · (32·4 + 32·4 + 4·8) = N·64·288 bytes per table, x 8 tables.
  const PlanFixture f = fixture();
  const double base = base_gpu_memory(f.cluster, f.model, f.workload).activation_bytes;
  auto table_activations = [&](const Plan& p) {
    return plan_memory(p, f.cluster, f.model, f.workload)[0].activation_bytes - base;
  };
  EXPECT_DOUBLE_EQ(table_activations(f.valid_plan("row_wise")), 8.0 * 8 * 64 * 288);
  for (int m : {2, 4}) {
    const Plan p = f.valid_plan("two_d", {{"groups", m}, {"inner", "row_wise"}});
    EXPECT_DOUBLE_EQ(table_activations(p), 8.0 * (8 / m) * 64 * 288) << m << " groups";
  }
}

TEST(TwoDPlanner, TouchedRowsSyncMovesTheExpectedDistinctRows) {
  // Uniform access, 1e5 rows, pooling 4, 8 GPUs x 64 samples: 2048 lookups per table and
  // iteration; E[distinct] = 1e5 · (1 - (1 - 1e-5)^2048) = 1e5 · (1 - e^-0.02048) = 2027.18... Each
  // touched row moves its weights (32 x 4 B), its row-wise AdaGrad moment (4 B) and its index (8
  // B): 140 B.
  const PlanFixture f = fixture();
  const double distinct = 1e5 * -std::expm1(2048 * std::log1p(-1e-5));
  EXPECT_NEAR(distinct, 2027.18, 0.01);
  for (int k : {1, 3}) {
    const Plan p = f.valid_plan(
        "two_d",
        {{"groups", 2}, {"inner", "table_wise"}, {"sync", "touched_rows"}, {"sync_interval", k}});
    const PeerSyncs s =
        plan_peer_syncs(p, build_serving_map(p, f.cluster), f.model, f.workload, *f.trace, 8);
    EXPECT_EQ(s.sync.interval, k);
    // Peer replicas synchronise weights after the update, not gradients before it.
    EXPECT_TRUE(replica_sync_buckets(p, build_serving_map(p, f.cluster), f.cluster, f.model,
                                     f.workload, *f.trace, CostParams{})
                    .empty());
    double bytes = 0;
    for (const PeerSyncBucket& b : s.peer) {
      EXPECT_EQ(b.gpus.size(), 2u);
      bytes += b.bytes;
    }
    // k iterations between syncs: the rows touched by k·2048 lookups.
    const double rows = 1e5 * -std::expm1(k * 2048 * std::log1p(-1e-5));
    EXPECT_NEAR(bytes, 8 * rows * 140, 1e-6 * bytes) << k;
  }
  // Dense: every row, weights and moment (132 B), whatever the interval.
  const Plan d =
      f.valid_plan("two_d", {{"groups", 2}, {"inner", "table_wise"}, {"sync_interval", 5}});
  const PeerSyncs s =
      plan_peer_syncs(d, build_serving_map(d, f.cluster), f.model, f.workload, *f.trace, 8);
  double bytes = 0;
  for (const PeerSyncBucket& b : s.peer) bytes += b.bytes;
  EXPECT_DOUBLE_EQ(bytes, 8 * 1e5 * 132);
  EXPECT_TRUE(s.syncs_after(4));
  EXPECT_FALSE(s.syncs_after(3));
  EXPECT_TRUE(s.syncs_after(9));
}

TEST(TwoDPlanner, DataParallelInnerTablesSyncGradientsOverEveryReplica) {
  // Replicas inside a group are data-parallel: their gradients are AllReduced over all of
  // their GPUs before the update (no 2D peer sync for them).
  const PlanFixture f = fixture();
  const Plan p = f.valid_plan("two_d", {{"groups", 2}, {"inner", "data_parallel"}});
  const ServingMap serving = build_serving_map(p, f.cluster);
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    EXPECT_EQ(serving.sets[k].shards.size(), 8u);
    EXPECT_FALSE(is_peer_set(p, serving, k));
  }
  const PeerSyncs s = plan_peer_syncs(p, serving, f.model, f.workload, *f.trace, 8);
  EXPECT_TRUE(s.peer.empty());
  const auto gradient =
      replica_sync_buckets(p, serving, f.cluster, f.model, f.workload, *f.trace, CostParams{});
  ASSERT_EQ(gradient.size(), 1u);
  EXPECT_EQ(gradient[0].gpus.size(), 8u);
  // Replicas are numbered 0..7 per block, whatever the group.
  std::map<std::size_t, std::set<int>> replicas;
  for (const Shard& sh : p.shards) replicas[sh.table].insert(sh.replica);
  for (const auto& [t, r] : replicas) EXPECT_EQ(r, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(TwoDPlanner, DoesNotFitNamesAGroupGpu) {
  // Each GPU has 40 GB; 8 tables of 15.2 GB (1.15e8 x 32 x 4 B + 4 B per row) fit 8 GPUs one
  // each (model parallelism) but not 2 GPUs per group (4 groups): every group holds all 8.
  PlanFixture f(testing::hand_preset(4), 2,
                model_of(std::vector<testing::TableSpec>(8, testing::TableSpec{115000000, 32, 1})),
                16);
  EXPECT_NO_THROW(f.valid_plan("two_d", {{"groups", 1}, {"inner", "table_wise"}}));
  try {
    f.plan("two_d", {{"groups", 4}, {"inner", "table_wise"}});
    FAIL();
  } catch (const DoesNotFitError& e) {
    EXPECT_GE(e.gpu(), 0);
    EXPECT_LT(e.gpu(), 8);
    EXPECT_NE(std::string(e.what()).find("4 groups of 2 GPUs"), std::string::npos) << e.what();
  }
}

// What only the planner can check (the schema's checks, with the errors a user sees:
// tests/io/planner_options_reader_test.cpp).
TEST(TwoDPlanner, BadOptionsAreInputErrors) {
  const PlanFixture f = fixture();
  auto error = [&](const OptionValues& options) -> std::string {
    try {
      f.plan("two_d", options);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  auto has = [](const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(error({}), "needs `groups` or `group_size`"));
  EXPECT_TRUE(has(error({{"groups", 3}}), "8 GPUs cannot be split into 3 groups"));
  EXPECT_TRUE(has(error({{"groups", 3}}), "1, 2, 4, 8"));
  EXPECT_TRUE(has(error({{"group_size", 3}}), "does not divide"));
  EXPECT_TRUE(has(error({{"groups", 2}, {"group_size", 4}}), "not both"));
  EXPECT_TRUE(has(error({{"groups", 2}, {"inner", "two_d"}}), "its own inner planner"));
  EXPECT_TRUE(has(error({{"groups", 2}, {"inner", "table_wsie"}}), "did you mean 'table_wise'"));
  EXPECT_TRUE(has(error({{"groups", 2}, {"sync_interval", 2000000}}), "at most 1000000"));
  EXPECT_TRUE(has(error({{"groups", 2},
                         {"headroom", 0.1},
                         {"inner_options", planner_options_of("hybrid", {{"headroom", 0.2}})}}),
                  "given twice"));
  EXPECT_THROW(f.plan("two_d", {{"groups", 2}, {"sync", "sparse"}}), std::invalid_argument);
  EXPECT_THROW(f.plan("two_d", {{"groups", 2}, {"sync_interval", 0}}), std::invalid_argument);
  EXPECT_THROW(f.plan("two_d", {{"groups", 2}, {"grups", 2}}), std::invalid_argument);
  // headroom beside the groups goes to the inner planner.
  EXPECT_NO_THROW(f.plan("two_d", {{"groups", 2}, {"headroom", 0.2}, {"inner", "table_wise"}}));
}

}  // namespace
}  // namespace shardsim::two_d_planner_test
