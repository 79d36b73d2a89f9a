// 2D groups (plan/sparse_groups.hpp): the layouts, host alignment of replica peers (2D §5), the
// view of one group that the inner planner plans, and bad group counts.
#include "plan/sparse_groups.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

#include "support/hand_preset.hpp"

namespace shardsim {
namespace {

// Every GPU in exactly one group; every group of N GPUs; peers(v) = gpu(m, v) over m.
void expect_partition(const SparseGroups& g, int gpus) {
  std::set<int> seen;
  for (const auto& members : g.groups()) {
    EXPECT_EQ(static_cast<int>(members.size()), g.group_size());
    for (int gpu : members) EXPECT_TRUE(seen.insert(gpu).second) << "GPU " << gpu << " twice";
  }
  EXPECT_EQ(static_cast<int>(seen.size()), gpus);
  for (int v = 0; v < g.group_size(); ++v) {
    const std::vector<int> peers = g.peers(v);
    ASSERT_EQ(static_cast<int>(peers.size()), g.num_groups());
    for (int m = 0; m < g.num_groups(); ++m) EXPECT_EQ(peers[m], g.groups()[m][v]);
  }
}

TEST(SparseGroups, PeersShareAHostWhenTheHostHasAtLeastMGpus) {
  // 4 hosts x 8 GPUs, M = 4: every group takes 2 GPUs on every host; the 4 replicas of each
  // shard sit on one host (2D §5: "synchronization will be confined to the same host").
  const Cluster c(testing::hand_preset(8), 4);
  const SparseGroups g(c, 4, GroupLayout::peers_in_host);
  expect_partition(g, 32);
  EXPECT_EQ(g.group_size(), 8);
  EXPECT_EQ(g.peers_per_host(), 4);
  EXPECT_EQ(g.view_nodes(), 4);
  EXPECT_EQ(g.view_gpus_per_node(), 2);
  // Group 1 = GPUs 2, 3 of every host.
  EXPECT_EQ(g.groups()[1], (std::vector<int>{2, 3, 10, 11, 18, 19, 26, 27}));
  for (int v = 0; v < 8; ++v) {
    std::set<int> hosts;
    for (int p : g.peers(v)) hosts.insert(c.node_of(p));
    EXPECT_EQ(hosts.size(), 1u) << "view GPU " << v;
  }
  EXPECT_EQ(g.peers(3), (std::vector<int>{9, 11, 13, 15}));  // host 1, local GPU 1 of each block
}

TEST(SparseGroups, MoreGroupsThanGpusPerHostKeepAsManyPeersOnAHostAsPossible) {
  // 8 hosts x 8 GPUs, M = 16: M_in = gcd(16, 8) = 8 peers on one host, the other 8 on the host
  // 4 further (two blocks of 4 hosts).
  const Cluster c(testing::hand_preset(8), 8);
  const SparseGroups g(c, 16, GroupLayout::peers_in_host);
  expect_partition(g, 64);
  EXPECT_EQ(g.peers_per_host(), 8);
  EXPECT_EQ(g.view_nodes(), 4);
  EXPECT_EQ(g.view_gpus_per_node(), 1);
  std::map<int, int> per_host;
  for (int p : g.peers(2)) ++per_host[c.node_of(p)];
  EXPECT_EQ(per_host, (std::map<int, int>{{2, 8}, {6, 8}}));
}

TEST(SparseGroups, ContiguousGroupsAreWholeHostsOrPartsOfOne) {
  const Cluster c(testing::hand_preset(8), 4);
  const SparseGroups whole(c, 2, GroupLayout::contiguous);  // 16 GPUs = 2 hosts per group
  expect_partition(whole, 32);
  EXPECT_EQ(whole.groups()[1].front(), 16);
  EXPECT_EQ(whole.peers_per_host(), 1);
  EXPECT_EQ(whole.view_nodes(), 2);
  EXPECT_EQ(whole.view_gpus_per_node(), 8);
  EXPECT_EQ(whole.peers(5), (std::vector<int>{5, 21}));  // on hosts 0 and 2

  const SparseGroups part(c, 8, GroupLayout::contiguous);  // 4 GPUs: half a host
  expect_partition(part, 32);
  EXPECT_EQ(part.view_nodes(), 1);
  EXPECT_EQ(part.view_gpus_per_node(), 4);
  EXPECT_EQ(part.peers_per_host(), 2);
  EXPECT_EQ(part.groups()[3], (std::vector<int>{12, 13, 14, 15}));
}

TEST(SparseGroups, OneGroupIsTheWholeClusterInOrder) {
  const Cluster c(testing::hand_preset(4), 2);
  for (GroupLayout layout : {GroupLayout::peers_in_host, GroupLayout::contiguous}) {
    const SparseGroups g(c, 1, layout);
    expect_partition(g, 8);
    for (int v = 0; v < 8; ++v) EXPECT_EQ(g.gpu(0, v), v);
    EXPECT_EQ(g.view_cluster().num_gpus(), 8);
  }
}

TEST(SparseGroups, BadGroupCountsAreRejected) {
  const Cluster c(testing::hand_preset(8), 3);  // 24 GPUs
  EXPECT_THROW(SparseGroups(c, 5, GroupLayout::peers_in_host), std::invalid_argument);
  EXPECT_THROW(SparseGroups(c, 0, GroupLayout::peers_in_host), std::invalid_argument);
  EXPECT_THROW(SparseGroups(c, 48, GroupLayout::contiguous), std::invalid_argument);
  // 2 contiguous groups of 12 GPUs: neither whole hosts of 8 nor part of one.
  try {
    SparseGroups(c, 2, GroupLayout::contiguous);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("12 GPUs"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(SparseGroups(c, 2, GroupLayout::peers_in_host));  // 4 GPUs per host each
}

TEST(SparseGroups, TheViewGivesEachGroupGpuItsOwnBandwidths) {
  // 2 NICs for 8 GPUs (4 GPUs per NIC). A group of 2 GPUs per host shares one NIC with another
  // group: the view has one NIC at half the bandwidth, so each GPU keeps its real share.
  HardwarePreset p = testing::hand_preset(8);
  p.nics_per_node = 2;
  p.nic.bandwidth_Bps = 20e9;
  const Cluster c(p, 2);
  const SparseGroups g(c, 4, GroupLayout::peers_in_host);
  const Cluster view = g.view_cluster();
  EXPECT_EQ(view.num_nodes(), 2);
  EXPECT_EQ(view.gpus_per_node(), 2);
  EXPECT_EQ(view.preset().nics_per_node, 1);
  EXPECT_DOUBLE_EQ(view.preset().nic.bandwidth_Bps, 10e9);
  EXPECT_DOUBLE_EQ(view.scale_out_Bps_per_gpu(), c.scale_out_Bps_per_gpu());  // 5 GB/s
  EXPECT_DOUBLE_EQ(view.scale_up_Bps_per_gpu(), c.scale_up_Bps_per_gpu());
  // With a NIC per GPU the group keeps its GPUs' NICs.
  const Cluster c8(testing::hand_preset(8), 2);
  const Cluster v8 = SparseGroups(c8, 4, GroupLayout::peers_in_host).view_cluster();
  EXPECT_EQ(v8.preset().nics_per_node, 2);
  EXPECT_DOUBLE_EQ(v8.preset().nic.bandwidth_Bps, 10e9);
}

}  // namespace
}  // namespace shardsim
