// The work of a one-sided plan (plan/one_sided_traffic.hpp): a GPU's shards of one table are one
// table of its fused update kernel, whatever ranges the planner cut them into.
#include "shardsim/plan/one_sided_traffic.hpp"

#include <gtest/gtest.h>

#include "shardsim/cost/kernel_cost.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

Plan one_sided(std::vector<Shard> shards) {
  Plan p;
  p.planner = "test";
  p.lookup_comm = LookupComm::one_sided;
  p.shards = std::move(shards);
  return p;
}

Shard rows_on(std::uint64_t begin, std::uint64_t end, int gpu) {
  return Shard{0, {begin, end}, RowSpace::rank, {0, 32}, gpu, 0, ShardKind::fine_grained, {}};
}

// The hand cases' workload: 256 samples a GPU, training.
Workload training_batch() {
  Workload wl;
  wl.batch_per_gpu = 256;
  wl.mode = Mode::training;
  return wl;
}

// The traffic of `plan` from the expected lookups, through the serving map and row blocks as the
// analysis builds them.
OneSidedTraffic expected_traffic(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                                 const Workload& wl, const TraceSource& trace) {
  const ServingMap serving = build_serving_map(plan, cluster);
  const PlanRowBlocks blocks = plan_row_blocks(serving, model.tables.size());
  const IterationLookups lookups = expected_lookups(serving, blocks, cluster, model, wl, trace);
  return one_sided_traffic(plan, serving, cluster, model, wl, trace, lookups,
                           testing::hand_cost_params());
}

TEST(OneSidedTraffic, AGpusShardsOfOneTableAreOneUpdate) {
  // 2 GPUs, one table of 1000 rows held by GPU 0: whole, or cut into three ranges. GPU 0 serves
  // its own 256 x 4 lookups and GPU 1's; the update reads GPU 0's 256 bags once and each of the
  // rows GPU 1 sends back once, whatever the cut.
  const Cluster cluster(testing::hand_preset(2), 1);
  const DlrmModel model = testing::hand_model(1, 1000, 32, 4);
  const Workload wl = training_batch();
  const testing::UniformTrace trace({1000}, {4});
  const auto work = [&](const Plan& plan) {
    return expected_traffic(plan, cluster, model, wl, trace);
  };
  const OneSidedTraffic whole = work(one_sided({rows_on(0, 1000, 0)}));
  const OneSidedTraffic cut =
      work(one_sided({rows_on(0, 10, 0), rows_on(10, 300, 0), rows_on(300, 1000, 0)}));
  ASSERT_EQ(whole.bwd_works.count(0), 1u);
  ASSERT_EQ(cut.bwd_works.count(0), 1u);
  const EmbeddingWork& w = cut.bwd_works.at(0, 0);
  EXPECT_NEAR(w.lookups, whole.bwd_works.at(0, 0).lookups, 1e-9);
  EXPECT_NEAR(w.distinct_rows, whole.bwd_works.at(0, 0).distinct_rows, 1e-9);
  EXPECT_NEAR(w.pooled_outputs, whole.bwd_works.at(0, 0).pooled_outputs, 1e-9);
  // 256 bags + the distinct rows of GPU 1's 1024 lookups, returned as gradients.
  const double returned = 1000 * -std::expm1(1024 * std::log1p(-1e-3));
  EXPECT_NEAR(w.pooled_outputs, 256 + returned, 1e-6);
  EXPECT_NEAR(w.lookups, 1024 + returned, 1e-6);
  const GpuSpec& gpu = cluster.gpu();
  const CostParams cost = testing::hand_cost_params();
  std::vector<EmbeddingWork> scratch_cut, scratch_whole;
  EXPECT_NEAR(
      embedding_backward_s(gpu, cut.bwd_works.of(0, scratch_cut), model.optimizer, cost),
      embedding_backward_s(gpu, whole.bwd_works.of(0, scratch_whole), model.optimizer, cost),
      1e-15);
  EXPECT_TRUE(cut.bwd_works.empty(1));  // GPU 1 holds nothing
}

TEST(OneSidedTraffic, ColumnsInterleavedWithRowsAreStillOneUpdateEach) {
  // One table of 1000 rows x 32 columns on GPU 0, cut into two row ranges x two column halves.
  // Listed column half by column half, or interleaved (row range by row range), GPU 0's update
  // kernel has one table per column half with the same work.
  const Cluster cluster(testing::hand_preset(2), 1);
  const DlrmModel model = testing::hand_model(1, 1000, 32, 4);
  const Workload wl = training_batch();
  const testing::UniformTrace trace({1000}, {4});
  const auto block = [](std::uint64_t begin, std::uint64_t end, std::uint32_t col) {
    return Shard{0, {begin, end}, RowSpace::rank, {col, col + 16}, 0, 0, ShardKind::fine_grained,
                 {}};
  };
  const auto work = [&](const Plan& plan) {
    return expected_traffic(plan, cluster, model, wl, trace);
  };
  const OneSidedTraffic by_columns = work(
      one_sided({block(0, 400, 0), block(400, 1000, 0), block(0, 400, 16), block(400, 1000, 16)}));
  const OneSidedTraffic interleaved = work(
      one_sided({block(0, 400, 0), block(0, 400, 16), block(400, 1000, 0), block(400, 1000, 16)}));
  ASSERT_EQ(by_columns.bwd_works.count(0), 2u);
  ASSERT_EQ(interleaved.bwd_works.count(0), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const EmbeddingWork& a = by_columns.bwd_works.at(0, i);
    const EmbeddingWork& b = interleaved.bwd_works.at(0, i);
    EXPECT_EQ(a.cols, 16u);
    EXPECT_EQ(b.cols, 16u);
    EXPECT_NEAR(a.lookups, b.lookups, 1e-9);
    EXPECT_NEAR(a.distinct_rows, b.distinct_rows, 1e-9);
    EXPECT_NEAR(a.pooled_outputs, b.pooled_outputs, 1e-9);
    EXPECT_GT(a.pooled_outputs, 256);  // GPU 0's bags once, plus GPU 1's returned rows
  }
  EXPECT_NEAR(by_columns.bwd_works.at(0, 0).pooled_outputs,
              by_columns.bwd_works.at(0, 1).pooled_outputs, 1e-9);
}

TEST(OneSidedTraffic, UniformLookupsGiveWhatEveryGpusOwnRowGives) {
  // 2 nodes x 2 GPUs, two tables cut into ranges held by different GPUs, one range copied to
  // every GPU: the same traffic and works from the expected lookups kept one value per set
  // (uniform) and from the same values spelled out per GPU.
  const Cluster cluster(testing::hand_preset(2), 2);
  const DlrmModel model = testing::hand_model(2, 1000, 32, 4);
  const Workload wl = training_batch();
  const testing::UniformTrace trace({1000, 1000}, {4, 4});
  const CostParams cost = testing::hand_cost_params();
  Plan plan = one_sided({rows_on(0, 300, 0), rows_on(300, 1000, 3)});
  plan.shards.push_back(
      Shard{1, {0, 1000}, RowSpace::rank, {0, 32}, 1, 0, ShardKind::fine_grained, {}});
  int replica = 1;
  for (int g : {0, 2, 3}) {
    plan.shards.push_back(
        Shard{1, {0, 1000}, RowSpace::rank, {0, 32}, g, replica++, ShardKind::fine_grained, {}});
  }
  const ServingMap serving = build_serving_map(plan, cluster);
  const PlanRowBlocks blocks = plan_row_blocks(serving, model.tables.size());
  const IterationLookups uniform = expected_lookups(serving, blocks, cluster, model, wl, trace);
  ASSERT_TRUE(uniform.uniform);
  IterationLookups dense;
  dense.num_gpus = 4;
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    for (int g = 0; g < 4; ++g) dense.set_lookups.push_back(uniform.set(k, g));
  }
  for (std::size_t t = 0; t < 2; ++t) {
    for (int g = 0; g < 4; ++g) dense.table_lookups.push_back(uniform.table(t, g));
  }
  const OneSidedTraffic a =
      one_sided_traffic(plan, serving, cluster, model, wl, trace, uniform, cost);
  const OneSidedTraffic b =
      one_sided_traffic(plan, serving, cluster, model, wl, trace, dense, cost);
  for (int h = 0; h < 4; ++h) {
    EXPECT_NEAR(a.lookups_served[h], b.lookups_served[h], 1e-9);
    for (int g = 0; g < 4; ++g) {
      EXPECT_NEAR(a.get_rows.at(h, g), b.get_rows.at(h, g), 1e-9) << h << " " << g;
      EXPECT_NEAR(a.get_bytes.at(h, g), b.get_bytes.at(h, g), 1e-6);
      EXPECT_NEAR(a.put_rows.at(h, g), b.put_rows.at(h, g), 1e-9);
      EXPECT_NEAR(a.put_bytes.at(h, g), b.put_bytes.at(h, g), 1e-6);
    }
    ASSERT_EQ(a.bwd_works.count(h), b.bwd_works.count(h));
    for (std::size_t i = 0; i < a.bwd_works.count(h); ++i) {
      EXPECT_NEAR(a.bwd_works.at(h, i).lookups, b.bwd_works.at(h, i).lookups, 1e-9);
      EXPECT_NEAR(a.bwd_works.at(h, i).distinct_rows, b.bwd_works.at(h, i).distinct_rows, 1e-9);
      EXPECT_NEAR(a.bwd_works.at(h, i).pooled_outputs, b.bwd_works.at(h, i).pooled_outputs, 1e-9);
    }
  }
  EXPECT_GT(a.get_rows.at(3, 0), 0);  // GPU 0 fetches table 0's rows held by GPU 3
  EXPECT_EQ(a.get_rows.at(1, 0), 0);  // ... and serves itself from its copy of table 1
}

TEST(OneSidedTraffic, ABlockOnEveryGpuIsOneWorkInEachDirection) {
  // One table copied whole to all 8 GPUs: every GPU looks it up and updates it the same, so its
  // forward and backward works are one pool entry each, and each GPU's lists read them back.
  const Cluster cluster(testing::hand_preset(4), 2);
  const DlrmModel model = testing::hand_model(1, 1000, 32, 4);
  const Workload wl = training_batch();
  const testing::UniformTrace trace({1000}, {4});
  Plan plan = one_sided({});
  for (int g = 0; g < 8; ++g) {
    plan.shards.push_back(
        Shard{0, {0, 1000}, RowSpace::rank, {0, 32}, g, g, ShardKind::fine_grained, {}});
  }
  const OneSidedTraffic t = expected_traffic(plan, cluster, model, wl, trace);
  EXPECT_EQ(t.fwd_works.pool_size(), 1u);
  EXPECT_EQ(t.bwd_works.pool_size(), 1u);
  for (int g = 0; g < 8; ++g) {
    ASSERT_EQ(t.fwd_works.count(g), 1u);
    ASSERT_EQ(t.bwd_works.count(g), 1u);
    EXPECT_DOUBLE_EQ(t.fwd_works.at(g, 0).lookups, 256.0 * 4);  // its own batch's lookups
    const EmbeddingWork& w = t.bwd_works.at(g, 0);
    EXPECT_DOUBLE_EQ(w.lookups, 256.0 * 4);     // its own updates; no gradient is received
    EXPECT_DOUBLE_EQ(w.pooled_outputs, 256.0);  // its bags' gradients, once
    EXPECT_DOUBLE_EQ(w.rows, 1000.0);
    EXPECT_EQ(t.get_rows.at(g, (g + 1) % 8), 0);
  }
}

}  // namespace
}  // namespace shardsim
