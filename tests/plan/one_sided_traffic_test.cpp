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
  return Shard{0, {begin, end}, RowSpace::rank, {0, 32}, gpu, 0, ShardKind::fine_grained};
}

TEST(OneSidedTraffic, AGpusShardsOfOneTableAreOneUpdate) {
  // 2 GPUs, one table of 1000 rows held by GPU 0: whole, or cut into three ranges. GPU 0 serves
  // its own 256 x 4 lookups and GPU 1's; the update reads GPU 0's 256 bags once and each of the
  // rows GPU 1 sends back once, whatever the cut.
  const Cluster cluster(testing::hand_preset(2), 1);
  const DlrmModel model = testing::hand_model(1, 1000, 32, 4);
  Workload wl;
  wl.batch_per_gpu = 256;
  wl.mode = Mode::training;
  const testing::UniformTrace trace({1000}, {4});
  const CostParams cost = testing::hand_cost_params();
  const auto work = [&](const Plan& plan) {
    const ServingMap serving = build_serving_map(plan, cluster);
    const IterationLookups lookups = expected_lookups(serving, cluster, model, wl, trace);
    return one_sided_traffic(plan, serving, cluster, model, wl, trace, lookups, cost);
  };
  const OneSidedTraffic whole = work(one_sided({rows_on(0, 1000, 0)}));
  const OneSidedTraffic cut =
      work(one_sided({rows_on(0, 10, 0), rows_on(10, 300, 0), rows_on(300, 1000, 0)}));
  ASSERT_EQ(whole.bwd_works[0].size(), 1u);
  ASSERT_EQ(cut.bwd_works[0].size(), 1u);
  const EmbeddingWork& w = cut.bwd_works[0][0];
  EXPECT_NEAR(w.lookups, whole.bwd_works[0][0].lookups, 1e-9);
  EXPECT_NEAR(w.distinct_rows, whole.bwd_works[0][0].distinct_rows, 1e-9);
  EXPECT_NEAR(w.pooled_outputs, whole.bwd_works[0][0].pooled_outputs, 1e-9);
  // 256 bags + the distinct rows of GPU 1's 1024 lookups, returned as gradients.
  const double returned = 1000 * -std::expm1(1024 * std::log1p(-1e-3));
  EXPECT_NEAR(w.pooled_outputs, 256 + returned, 1e-6);
  EXPECT_NEAR(w.lookups, 1024 + returned, 1e-6);
  const GpuSpec& gpu = cluster.gpu();
  EXPECT_NEAR(embedding_backward_s(gpu, cut.bwd_works[0], model.optimizer, cost),
              embedding_backward_s(gpu, whole.bwd_works[0], model.optimizer, cost), 1e-15);
  EXPECT_TRUE(cut.bwd_works[1].empty());  // GPU 1 holds nothing
}

}  // namespace
}  // namespace shardsim
