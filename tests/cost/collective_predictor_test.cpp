// nccl-tests' view of the model's collectives (cost/collective_predictor.hpp).
#include "shardsim/cost/collective_predictor.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "round_presets.hpp"
#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/cost/collective_cost.hpp"

namespace shardsim {
namespace {

using test::ideal_collectives;
using test::round_preset;

TEST(CollectivePredictor, BusBandwidthFactorsAreNcclTests) {
  // nccl-tests doc/PERFORMANCE.md: allreduce 2(n-1)/n; allgather, reducescatter, alltoall
  // (n-1)/n; sendrecv 1.
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::allreduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::allgather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::alltoall, 2), 0.5);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::sendrecv, 16), 1.0);
}

TEST(CollectivePredictor, CountsAndNamesAreNcclTests) {
  EXPECT_DOUBLE_EQ(element_count(CollectiveOp::allreduce, 1024, 4, 8), 256);
  EXPECT_DOUBLE_EQ(element_count(CollectiveOp::allgather, 1024, 4, 8), 32);
  EXPECT_DOUBLE_EQ(element_count(CollectiveOp::sendrecv, 1024, 2, 8), 512);
  EXPECT_EQ(redop_of(CollectiveOp::allreduce), "sum");
  EXPECT_EQ(redop_of(CollectiveOp::alltoall), "none");
  for (const std::string& name : collective_op_names()) {
    ASSERT_TRUE(collective_op_named(name)) << name;
    EXPECT_EQ(to_string(*collective_op_named(name)), name);
  }
  EXPECT_FALSE(collective_op_named("all_reduce"));
}

TEST(CollectivePredictor, RingCollectivesAreTheModelsOverEveryGpu) {
  const Cluster cluster(round_preset(2), 2);
  const CostParams p = ideal_collectives();
  const std::vector<int> all = {0, 1, 2, 3};
  const double s = 1e9;
  EXPECT_DOUBLE_EQ(predict_collective(cluster, CollectiveOp::allreduce, s, p).time_s,
                   allreduce_s(cluster, all, s, p));
  EXPECT_DOUBLE_EQ(predict_collective(cluster, CollectiveOp::allgather, s, p).time_s,
                   allgather_s(cluster, all, s, p));
  EXPECT_DOUBLE_EQ(predict_collective(cluster, CollectiveOp::reduce_scatter, s, p).time_s,
                   reduce_scatter_s(cluster, all, s, p));
  const CollectivePrediction ar = predict_collective(cluster, CollectiveOp::allreduce, s, p);
  EXPECT_DOUBLE_EQ(ar.algbw_Bps, s / ar.time_s);
  EXPECT_DOUBLE_EQ(ar.busbw_Bps, ar.algbw_Bps * 1.5);
}

TEST(CollectivePredictor, AlltoallIsTheUniformMatrix) {
  // Every rank sends S/n to every other rank: the same as alltoallv_s of that matrix.
  const Cluster cluster(round_preset(2), 3);
  const CostParams p = ideal_collectives();
  const int n = cluster.num_gpus();
  for (double s : {8.0, 6e6, 3e9}) {
    ByteMatrix m(n);
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        if (a != b) m.at(a, b) = s / n;
      }
    }
    const double expected = alltoallv_s(cluster, m, p);
    EXPECT_NEAR(predict_collective(cluster, CollectiveOp::alltoall, s, p).time_s, expected,
                1e-12 * expected);
  }
}

TEST(CollectivePredictor, SendRecvIsTheSlowestRingHop) {
  // 2 nodes of 2 GPUs: hops 0->1 and 2->3 inside a node, 1->2 and 3->0 across: the latter set it.
  const Cluster cluster(round_preset(2), 2);
  const CostParams p = ideal_collectives();
  const double across = p2p_s(cluster, 1, 2, 1.0, 1e8, p);
  EXPECT_GT(across, p2p_s(cluster, 0, 1, 1.0, 1e8, p));
  EXPECT_DOUBLE_EQ(predict_collective(cluster, CollectiveOp::sendrecv, 1e8, p).time_s, across);
  const Cluster one(round_preset(1), 1);
  EXPECT_EQ(predict_collective(one, CollectiveOp::sendrecv, 1e8, p).time_s, 0.0);
}

TEST(CollectivePredictor, BadSizesAreRefused) {
  const Cluster cluster(round_preset(2), 1);
  EXPECT_THROW(predict_collective(cluster, CollectiveOp::allreduce, -1, ideal_collectives()),
               std::invalid_argument);
  const CollectivePrediction zero =
      predict_collective(cluster, CollectiveOp::allreduce, 0, ideal_collectives());
  EXPECT_EQ(zero.time_s, 0.0);
  EXPECT_EQ(zero.busbw_Bps, 0.0);
}

}  // namespace
}  // namespace shardsim
