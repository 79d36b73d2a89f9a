// Who serves whom and the pooled transfers it implies (plan/serving.hpp): table-row-wise blocks
// are reduced inside their host before they cross the network (TorchRec's TWRW); row blocks
// spread over several hosts reduce across every GPU they serve (Neo §4's ReduceScatter).
#include "shardsim/plan/serving.hpp"

#include <gtest/gtest.h>

#include "plan/shard_estimate.hpp"
#include "shardsim/hw/cluster.hpp"
#include "support/hand_preset.hpp"

namespace shardsim {
namespace {

// `blocks` row blocks of 1000 rows x 16 columns of table 0, block i on gpus[i].
Plan row_blocks(const std::vector<int>& gpus) {
  Plan p;
  p.planner = "test";
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    p.shards.push_back(Shard{0,
                             {i * 1000, (i + 1) * 1000},
                             RowSpace::row_id,
                             {0, 16},
                             gpus[i],
                             0,
                             ShardKind::row_wise,
                             {}});
  }
  return p;
}

// The forward transfers as a matrix of columns (src, dst).
std::vector<std::vector<double>> transfers(const Plan& p, const Cluster& c) {
  const int n = c.num_gpus();
  std::vector<std::vector<double>> m(n, std::vector<double>(n, 0.0));
  for_each_pooled_transfer(p, build_serving_map(p, c), n,
                           [&](int src, int dst, double cols) { m[src][dst] += cols; });
  return m;
}

TEST(Serving, TableRowWiseBlocksAreReducedInsideTheirHost) {
  // 2 hosts x 4 GPUs; one table in 4 row blocks on host 0's GPUs 0-3 (TWRW).
  const Cluster c(testing::hand_preset(4), 2);
  const Plan p = row_blocks({0, 1, 2, 3});
  const ServingMap s = build_serving_map(p, c);
  ASSERT_EQ(s.host_slices.size(), 1u);
  EXPECT_EQ(s.host_slices[0].node, 0);
  EXPECT_EQ(s.host_slices[0].gpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(s.host_slices[0].cols, 16u);
  const auto m = transfers(p, c);
  for (int src = 0; src < 8; ++src) {
    for (int dst = 0; dst < 8; ++dst) {
      double want = 0;
      if (src < 4 && dst < 4 && src != dst) {
        want = 16 * 2;  // dst's own partial sums, and those of the host-1 GPU it relays
      } else if (src < 4 && dst >= 4 && dst - 4 == src) {
        want = 16;  // the reduced vector, once, from the GPU of the same local rank
      }
      EXPECT_EQ(m[src][dst], want) << src << " -> " << dst;
    }
  }
}

TEST(Serving, RowBlocksAcrossHostsReduceAcrossEveryGpu) {
  // The same table in 8 blocks, one per GPU of both hosts (row-wise): every block sends its
  // partial sums to every other GPU, as before.
  const Cluster c(testing::hand_preset(4), 2);
  const Plan p = row_blocks({0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_TRUE(build_serving_map(p, c).host_slices.empty());
  const auto m = transfers(p, c);
  for (int src = 0; src < 8; ++src) {
    for (int dst = 0; dst < 8; ++dst) EXPECT_EQ(m[src][dst], src == dst ? 0 : 16);
  }
  // Blocks on part of a host (3 of 4 GPUs): no TWRW either.
  EXPECT_TRUE(build_serving_map(row_blocks({0, 1, 2}), c).host_slices.empty());
  // Two blocks on one GPU: no TWRW.
  EXPECT_TRUE(build_serving_map(row_blocks({0, 1, 2, 3, 3}), c).host_slices.empty());
}

TEST(Serving, EveryRemoteGpuGetsATablesReducedVectorOnceFromOutsideItsHost) {
  // Conservation: per requester, the bytes crossing the network for a TWRW table are its
  // columns, once; inside the host every GPU gets every other block's partial sums.
  const Cluster c(testing::hand_preset(4), 3);
  Plan p = row_blocks({4, 5, 6, 7});  // host 1
  const auto m = transfers(p, c);
  for (int dst = 0; dst < 12; ++dst) {
    double from_outside = 0;
    for (int src = 0; src < 12; ++src) {
      if (c.node_of(src) != c.node_of(dst)) from_outside += m[src][dst];
    }
    EXPECT_EQ(from_outside, c.node_of(dst) == 1 ? 0.0 : 16.0) << dst;
  }
  // Host 1's GPUs each relay to 2 remote GPUs (one per other host): 3 x 16 columns from each
  // of the other 3 blocks.
  EXPECT_EQ(m[4][5], 16 * 3);
}

TEST(Serving, TableRowWiseBlocksInsideA2DGroupAreReducedInsideTheGroupsHostSlice) {
  // 2 hosts x 4 GPUs in 2 groups, peers in a host: group 0 = {0, 1, 4, 5}, group 1 =
  // {2, 3, 6, 7}. The table in 2 row blocks on group 0's host-0 GPUs {0, 1} and the same
  // blocks on group 1's {2, 3}: each group's host-1 GPUs get the reduced vector from the
  // host-0 GPU of their local rank in the group.
  const Cluster c(testing::hand_preset(4), 2);
  Plan p = row_blocks({0, 1});
  for (int i = 0; i < 2; ++i) {
    Shard s = p.shards[static_cast<std::size_t>(i)];
    s.gpu = 2 + i;
    s.replica = 1;
    p.shards.push_back(s);
  }
  p.groups = {{0, 1, 4, 5}, {2, 3, 6, 7}};
  const ServingMap s = build_serving_map(p, c);
  ASSERT_EQ(s.host_slices.size(), 2u);
  const auto m = transfers(p, c);
  EXPECT_EQ(m[0][4], 16);
  EXPECT_EQ(m[1][5], 16);
  EXPECT_EQ(m[0][5], 0);
  EXPECT_EQ(m[2][6], 16);
  EXPECT_EQ(m[3][7], 16);
  EXPECT_EQ(m[0][1], 16 * 2);
  EXPECT_EQ(m[2][3], 16 * 2);
  EXPECT_EQ(m[0][2], 0);  // nothing between groups
}

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace {

// The hybrid planner's estimate of a table-row-wise block's peers (plan/shard_estimate.hpp)
// counts what the engine moves: per block, its sends inside and outside its scale-up domain, in
// batches of 16 columns, on 3 nodes of 4 GPUs, with domains of 1 node and of 3 nodes.
TEST(Serving, TheTableRowWisePeersCountTheEnginesTransfers) {
  for (const int domain_nodes : {1, 3}) {
    HardwarePreset preset = testing::hand_preset(4);
    preset.scale_up_domain_nodes = domain_nodes;
    const Cluster c(preset, 3);
    const auto m = transfers(row_blocks({4, 5, 6, 7}), c);  // the blocks on node 1
    const ServedPeers peers = table_row_wise_peers(c);
    for (int src = 4; src < 8; ++src) {
      double in = 0, off = 0;
      for (int dst = 0; dst < c.num_gpus(); ++dst) {
        const bool same_domain = (dst / 4) / domain_nodes == (src / 4) / domain_nodes;
        (same_domain ? in : off) += m[src][dst] / 16;
      }
      EXPECT_DOUBLE_EQ(in, peers.in_domain) << "domain " << domain_nodes << ", GPU " << src;
      EXPECT_DOUBLE_EQ(off, peers.off_domain) << "domain " << domain_nodes << ", GPU " << src;
    }
  }
  // By hand, one-node domains: (4 - 1) x 3 + 0 = 9 inside, 3 - 1 = 2 outside.
  const Cluster c(testing::hand_preset(4), 3);
  EXPECT_DOUBLE_EQ(table_row_wise_peers(c).in_domain, 9);
  EXPECT_DOUBLE_EQ(table_row_wise_peers(c).off_domain, 2);
}

TEST(Serving, InterleavedReplicasStillFormOneSetEach) {
  // Replicas of two blocks, alternating (A on 0, B on 0, A on 1, B on 1, then A on 2): two sets in
  // first-appearance order, each with its shards in plan order, each GPU served by its own copy.
  const Cluster c(testing::hand_preset(4), 1);
  Plan p;
  p.planner = "test";
  const auto block = [](std::uint64_t begin, int gpu, int replica) {
    return Shard{
        0, {begin, begin + 1000}, RowSpace::row_id, {0, 16}, gpu, replica, ShardKind::row_wise, {}};
  };
  p.shards = {block(0, 0, 0), block(1000, 0, 0), block(0, 1, 1), block(1000, 1, 1), block(0, 2, 2)};
  const ServingMap s = build_serving_map(p, c);
  ASSERT_EQ(s.sets.size(), 2u);
  EXPECT_EQ(s.sets[0].rows.begin, 0u);
  EXPECT_EQ(s.sets[0].shards, (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_EQ(s.sets[1].shards, (std::vector<std::size_t>{1, 3}));
  for (int g = 0; g < 3; ++g) EXPECT_EQ(p.shards[s.server(0, g)].gpu, g);
  EXPECT_EQ(p.shards[s.server(1, 1)].gpu, 1);
  EXPECT_EQ(p.shards[s.server(1, 0)].gpu, 0);
}

}  // namespace
}  // namespace shardsim
