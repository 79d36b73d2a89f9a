// The 2D replica sync priced for two_d's inner planner (plan/peer_sync_pricing.hpp): Eq. 1's rate
// per synced byte by hand, a shard's share under dense and touched_rows syncs, nothing outside
// two_d, and the sync-aware inner planners (hybrid, torchrec, table_wise) leaving the largest GPU
// fewer synced bytes than the unaware ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "plan/peer_sync_pricing.hpp"
#include "plan/plan_fixture.hpp"
#include "plan/sparse_groups.hpp"
#include "shardsim/plan/peer_sync.hpp"
#include "shardsim/plan/serving.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::PlanFixture;

// 2 hosts x 4 GPUs (scale-up 100 GB/s per GPU, NIC 10 GB/s); 8 tables of 1e5 x 32 (fp32 rows of
// 128 B + 4 B of row-wise AdaGrad state: 132 B a row).
PlanFixture fixture() {
  return PlanFixture(
      testing::hand_preset(4), 2,
      model_of(std::vector<testing::TableSpec>(8, testing::TableSpec{100000, 32, 4})), 64);
}

TEST(PeerSyncPricing, IsEqOnesRatePerByteOverTheSlowestPeerRoute) {
  const PlanFixture f = fixture();
  // M = 2, peers in a host: B_sync = 100 GB/s x efficiency 1 (hand cost params);
  // s = 2(M-1) / (M B k) = 2 / (2 x 1e11) = 1e-11 s per byte.
  const SparseGroups two(f.cluster, 2, GroupLayout::peers_in_host);
  EXPECT_DOUBLE_EQ(price_peer_sync(f.cluster, two, {PeerSyncMode::dense, 1}, f.cost).s_per_byte,
                   1e-11);
  // Every 4 iterations: a quarter of it per iteration.
  EXPECT_DOUBLE_EQ(price_peer_sync(f.cluster, two, {PeerSyncMode::dense, 4}, f.cost).s_per_byte,
                   2.5e-12);
  // M = 4 on hosts of 4: 2 x 3 / (4 x 1e11) = 1.5e-11.
  const SparseGroups four(f.cluster, 4, GroupLayout::peers_in_host);
  EXPECT_DOUBLE_EQ(price_peer_sync(f.cluster, four, {PeerSyncMode::dense, 1}, f.cost).s_per_byte,
                   1.5e-11);
  // Contiguous groups put the peers on different hosts: the NIC's 10 GB/s, 1e-10.
  const SparseGroups apart(f.cluster, 2, GroupLayout::contiguous);
  EXPECT_DOUBLE_EQ(price_peer_sync(f.cluster, apart, {PeerSyncMode::dense, 1}, f.cost).s_per_byte,
                   1e-10);
  // The collective efficiency lowers B_sync as in the report's Eq. 1.
  CostParams half = f.cost;
  half.collective_bandwidth_efficiency = 0.5;
  EXPECT_DOUBLE_EQ(price_peer_sync(f.cluster, two, {PeerSyncMode::dense, 1}, half).s_per_byte,
                   2e-11);
}

TEST(PeerSyncPricing, AShardPaysForTheRowsTheSyncMoves) {
  const PlanFixture f = fixture();
  PlanningContext ctx = f.ctx();
  // Outside two_d: nothing.
  EXPECT_EQ(peer_sync_time_s(ctx, 0, {0, 1000}, RowSpace::row_id, 32), 0.0);
  const SparseGroups two(f.cluster, 2, GroupLayout::peers_in_host);
  const PeerSyncPricing dense = price_peer_sync(f.cluster, two, {PeerSyncMode::dense, 1}, f.cost);
  ctx.peer_sync = &dense;
  // 1000 rows x 132 B x 1e-11 s/B.
  EXPECT_NEAR(peer_sync_time_s(ctx, 0, {0, 1000}, RowSpace::row_id, 32), 1.32e-6, 1e-18);
  // Half the columns: 64 B of weights + the row's 4 B moment.
  EXPECT_NEAR(peer_sync_time_s(ctx, 0, {0, 1000}, RowSpace::row_id, 16), 0.68e-6, 1e-18);
  // touched_rows: the expected distinct rows of 8 GPUs x 64 samples x pooling 4 = 2048 uniform
  // lookups over 1e5 rows, a tenth of them in these 1e4 rows, each with its 8-byte index.
  const PeerSyncPricing touched =
      price_peer_sync(f.cluster, two, {PeerSyncMode::touched_rows, 1}, f.cost);
  ctx.peer_sync = &touched;
  const double rows = 1e5 * -std::expm1(2048 * std::log1p(-1e-5)) / 10;
  EXPECT_NEAR(peer_sync_time_s(ctx, 0, {0, 10000}, RowSpace::row_id, 32), rows * 140 * 1e-11,
              1e-9 * rows * 140 * 1e-11);
  // Inference syncs nothing.
  Workload inference = f.workload;
  inference.mode = Mode::inference;
  PlanningContext infer{f.cluster, f.model, inference, *f.trace, &f.cost};
  infer.peer_sync = &dense;
  EXPECT_EQ(peer_sync_time_s(infer, 0, {0, 1000}, RowSpace::row_id, 32), 0.0);
}

// The largest GPU's synced bytes (weights and optimizer state of its shards) under a plan.
double max_gpu_sync_bytes(const PlanFixture& f, const Plan& p) {
  const PeerSyncs s = plan_peer_syncs(p, build_serving_map(p, f.cluster), f.model, f.workload,
                                      *f.trace, f.cluster.num_gpus());
  std::vector<double> per_gpu(static_cast<std::size_t>(f.cluster.num_gpus()), 0.0);
  for (const PeerSyncBucket& b : s.peer) {
    for (int g : b.gpus) per_gpu[static_cast<std::size_t>(g)] += b.bytes;
  }
  return *std::max_element(per_gpu.begin(), per_gpu.end());
}

TEST(PeerSyncPricing, SyncAwareInnerPlannersBalanceTheSyncedBytes) {
  // Three large cold tables (3e6 rows, pooling 1) and eight smaller hot ones (2e5 rows, pooling
  // 20): balancing lookups alone, the planners leave one GPU 1.28x the even share of synced
  // bytes (4.49e8 of 3.50e8 B); aware of the sync, hybrid 3.96e8, torchrec exactly the even share,
  // table_wise on its `estimated` cost (seconds, so the sync can be added) 3.96e8.
  // 2 groups over 2 hosts x 4 GPUs; peers in a host.
  std::vector<testing::TableSpec> specs(3, testing::TableSpec{3000000, 32, 1});
  specs.insert(specs.end(), 8, testing::TableSpec{200000, 32, 20});
  const PlanFixture f(testing::hand_preset(4), 2, model_of(specs), 64);
  for (const char* inner : {"hybrid", "torchrec", "table_wise"}) {
    OptionValues opts = {{"groups", 2}, {"inner", inner}};
    if (std::string(inner) == "table_wise") {
      opts.emplace_back("inner_options", planner_options_of("table_wise", {{"cost", "estimated"}}));
    }
    const Plan aware = f.valid_plan("two_d", opts);
    opts.emplace_back("sync_aware", false);
    const Plan unaware = f.valid_plan("two_d", opts);
    const double a = max_gpu_sync_bytes(f, aware), u = max_gpu_sync_bytes(f, unaware);
    EXPECT_LT(a, 0.9 * u) << inner;
    // The lower bound: the synced bytes spread evenly over a group's 4 GPUs.
    double total = 0;
    for (const auto& t : f.model.tables) total += t.rows * 132.0;
    EXPECT_GE(a, total / 4 * (1 - 1e-12)) << inner;
  }
}

TEST(PeerSyncPricing, HeuristicCostPlannersBalanceTheSyncAsASecondShare) {
  // Three hot small tables (2e5 rows, pooling 20: lookup cost 640 each) and four cold large ones
  // (1e6 rows, pooling 1: cost 32 each) on a group of 4 GPUs (2 groups over 2 hosts x 4 GPUs).
  // Unaware, the greedy by cost puts the hot tables on GPUs 0-2 and all four cold ones on GPU 3
  // (its load 32 ... 128 stays below 640): 4 x 1e6 x 132 B = 5.28e8 synced bytes there. Aware,
  // the sync is a second share beside the cost (pack_two_shares): the hot tables (cost share
  // 640 / 2048 = .3125) go first, to GPUs 0-2; the first cold one (sync share .25) to GPU 3; the
  // next three to GPUs 0-2 (dominant share .328 there, .5 on GPU 3). The largest GPU holds one
  // cold and one hot table, 1.32e8 + 2.64e7 B, and the lookup cost is 672 / 512 = 1.31x the mean
  // where it was 640 / 512 = 1.25x: balance bought with a little lookup imbalance.
  std::vector<testing::TableSpec> specs(3, testing::TableSpec{200000, 32, 20});
  specs.insert(specs.end(), 4, testing::TableSpec{1000000, 32, 1});
  const PlanFixture f(testing::hand_preset(4), 2, model_of(specs), 64);
  const Plan aware = f.valid_plan("two_d", {{"groups", 2}, {"inner", "table_wise"}});
  const Plan unaware =
      f.valid_plan("two_d", {{"groups", 2}, {"inner", "table_wise"}, {"sync_aware", false}});
  EXPECT_NEAR(max_gpu_sync_bytes(f, unaware), 4 * 1e6 * 132, 1);
  EXPECT_NEAR(max_gpu_sync_bytes(f, aware), 1e6 * 132 + 2e5 * 132, 1);
  // column_wise places its blocks the same way: blocks of 16 columns (cost 320 hot, 16 cold).
  // Unaware, the six hot blocks take loads 640, 640, 320, 320 and all eight cold blocks go to
  // GPUs 2 and 3 (their loads stay below 640): 4 x 1e6 x 68 B each (64 B of weights and the
  // row's 4 B moment) beside one hot block (2e5 x 68 B). Aware, two cold blocks a GPU, and at
  // most two hot ones.
  const OptionValues cw = {
      {"groups", 2},
      {"inner", "column_wise"},
      {"inner_options", planner_options_of("column_wise", {{"cols_per_shard", 16}})}};
  OptionValues cw_off = cw;
  cw_off.emplace_back("sync_aware", false);
  const double cw_unaware = max_gpu_sync_bytes(f, f.valid_plan("two_d", cw_off));
  const double cw_aware = max_gpu_sync_bytes(f, f.valid_plan("two_d", cw));
  EXPECT_NEAR(cw_unaware, 4 * 1e6 * 68 + 2e5 * 68, 1);
  EXPECT_NEAR(cw_aware, 2 * 1e6 * 68 + 2 * 2e5 * 68, 1);
  // In inference nothing is synced, and the plan is the greedy by cost alone.
  Workload inference = f.workload;
  inference.mode = Mode::inference;
  const auto planner = make_planner("two_d", {{"groups", 2}, {"inner", "table_wise"}});
  PlanningContext infer{f.cluster, f.model, inference, *f.trace, &f.cost};
  const Plan served = planner->plan(infer);
  std::vector<double> cold_on_gpu(8, 0.0);
  for (const Shard& s : served.shards) {
    if (s.table >= 3) cold_on_gpu[static_cast<std::size_t>(s.gpu)] += 1;
  }
  EXPECT_EQ(*std::max_element(cold_on_gpu.begin(), cold_on_gpu.end()), 4);
}

TEST(PeerSyncPricing, HierarchicalPlannersBalanceTheSyncPerNode) {
  // The tables of HeuristicCostPlannersBalanceTheSyncAsASecondShare on 4 hosts x 4 GPUs, 2
  // groups: a group is 4 nodes of 2 GPUs, and table_row_wise splits each table over one node's
  // 2 GPUs. Unaware, the hot tables (cost 640) take nodes 0-2 and all four cold ones (cost 32)
  // node 3, whose GPUs then hold half of each: 4 x 1e6 x 66 B. Aware, the node's larger share after
  // taking a table decides: the first cold table goes to node 3 (sync share 1e6 / 4.6e6 = .217
  // against .328 on a hot node), the next three to nodes 0-2 (.328 < .435): each GPU holds at
  // most half a hot and half a cold table. table_column_wise cuts the same tables into two
  // column blocks a node: the same bytes per GPU, 68 B a row each.
  std::vector<testing::TableSpec> specs(3, testing::TableSpec{200000, 32, 20});
  specs.insert(specs.end(), 4, testing::TableSpec{1000000, 32, 1});
  const PlanFixture f(testing::hand_preset(4), 4, model_of(specs), 64);
  for (const char* inner : {"table_row_wise", "table_column_wise"}) {
    const double row_bytes = std::string(inner) == "table_row_wise" ? 132.0 / 2 : 68.0;
    const Plan aware = f.valid_plan("two_d", {{"groups", 2}, {"inner", inner}});
    const Plan unaware =
        f.valid_plan("two_d", {{"groups", 2}, {"inner", inner}, {"sync_aware", false}});
    EXPECT_NEAR(max_gpu_sync_bytes(f, unaware), 4 * 1e6 * row_bytes, 1) << inner;
    EXPECT_NEAR(max_gpu_sync_bytes(f, aware), (1e6 + 2e5) * row_bytes, 1) << inner;
  }
}

TEST(PeerSyncPricing, SyncAwareIsAnOptionOfTwoD) {
  const PlanFixture f = fixture();
  EXPECT_NO_THROW(f.valid_plan("two_d", {{"groups", 2}, {"sync_aware", false}}));
  EXPECT_THROW(f.valid_plan("two_d", {{"groups", 2}, {"sync_aware", "maybe"}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
