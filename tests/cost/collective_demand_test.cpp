// Collectives as network demands: per-level traffic, link loads, the small-message model.
#include "shardsim/cost/collective_demand.hpp"
#include "../support/ideal_cost.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <vector>

#include "round_presets.hpp"
#include "shardsim/core/rng.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {
namespace {

using test::ideal_collectives;
using test::round_preset;

std::vector<int> iota_gpus(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

ByteMatrix random_matrix(int n, std::uint64_t seed) {
  Rng rng(stream_seed(seed, {static_cast<std::uint64_t>(n)}));
  ByteMatrix m(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m.at(i, j) = rng.uniform01() < 0.6 ? rng.uniform(0, 1e6) : 0;
  return m;
}

TEST(LevelTraffic, SumsEachGpusBytesPerLevel) {
  // GPUs 0,1 on node 0 and 2,3 on node 1 (one rack): levels 1 (in node) and 2 (rack).
  const Cluster cluster(round_preset(2), 2);
  ByteMatrix m(4);
  m.at(0, 1) = 10;
  m.at(0, 2) = 20;
  m.at(0, 3) = 30;
  m.at(3, 0) = 5;
  m.at(2, 2) = 99;  // local: ignored
  const LevelTraffic t = LevelTraffic::from_matrix(cluster, m);
  EXPECT_EQ(t.sent(0, 1), 10);
  EXPECT_EQ(t.sent(0, 2), 50);
  EXPECT_EQ(t.sent_from(0, 2), 50);
  EXPECT_EQ(t.sent_total(0), 60);
  EXPECT_EQ(t.received(1, 1), 10);
  EXPECT_EQ(t.received_total(0), 5);
  EXPECT_EQ(t.received(3, 2), 30);
  EXPECT_EQ(t.farthest_level(), 2);
  EXPECT_EQ(t.total(), 65);
  LevelTraffic twice = t;
  twice += t;
  EXPECT_EQ(twice.total(), 130);
  ByteMatrix bad(4);
  bad.at(1, 2) = -1;
  EXPECT_THROW(LevelTraffic::from_matrix(cluster, bad), std::invalid_argument);
  EXPECT_THROW(LevelTraffic::from_matrix(cluster, ByteMatrix(3)), std::invalid_argument);
}

TEST(AlltoallvDemand, PerLevelTotalsGiveTheSameTimeAsTheMatrix) {
  // Property: the per-level form loses nothing the cost needs, on switched, meshed,
  // multi-tier and oversubscribed clusters.
  const CostParams p = ideal_default_cost_params();
  HardwarePreset mesh = round_preset(4, 2, 2.0, 1e-6);
  mesh.scale_up_kind = "nvlink";
  const std::vector<Cluster> clusters = {Cluster(round_preset(4, 2, 2.0, 1e-6), 8),
                                         Cluster(mesh, 4), Cluster(round_preset(1, 4, 3.0), 16)};
  for (const Cluster& c : clusters) {
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      const ByteMatrix m = random_matrix(c.num_gpus(), seed);
      const double from_matrix = alltoallv_s(c, m, p);
      EXPECT_GT(from_matrix, 0);
      EXPECT_DOUBLE_EQ(alltoallv_s(c, LevelTraffic::from_matrix(c, m), p), from_matrix);
      EXPECT_DOUBLE_EQ(idle_time_s(c, alltoallv_demand(c, m, p), p), from_matrix);
    }
  }
}

TEST(AlltoallvDemand, AggregatedIsOneFlowPerLoadedLinkPerFlowIsOnePerPair) {
  const Cluster cluster(round_preset(2), 2);
  const CostParams p = ideal_collectives();
  ByteMatrix m(4);
  m.at(0, 1) = 10e6;  // in node: GPU 0's and GPU 1's NVSwitch links
  m.at(0, 2) = 20e6;  // off node: gpu0->nic, nic->rack, rack->nic, nic->gpu2
  const CollectiveDemand agg = alltoallv_demand(cluster, m, p);
  ASSERT_EQ(agg.stages.size(), 1u);
  const CollectiveStage& s = agg.stages.front();
  EXPECT_EQ(s.flows.size(), 6u);
  for (std::size_t k = 0; k < s.flows.size(); ++k) {
    EXPECT_EQ(s.flows[k].num_links, 1u);
    if (k > 0) {
      EXPECT_LT(s.links[s.flows[k - 1].first_link], s.links[s.flows[k].first_link]);
    }
  }
  const Topology& topo = cluster.topology();
  double tx0 = 0;
  for (const DemandFlow& f : s.flows) {
    if (s.links[f.first_link] == topo.scale_up_tx_link(0)) tx0 = f.bytes;
  }
  EXPECT_EQ(tx0, 10e6);
  const CollectiveDemand pairs = alltoallv_demand(cluster, m, p, FlowGranularity::per_flow);
  ASSERT_EQ(pairs.stages.front().flows.size(), 2u);
  EXPECT_EQ(pairs.stages.front().flows[0].num_links, 2u);  // up to the switch and down
  EXPECT_EQ(pairs.stages.front().flows[1].num_links, 4u);
  EXPECT_EQ(agg.payload_bytes, 30e6);
}

TEST(AlltoallvDemand, GpusSharingANicShareItsBandwidth) {
  // 2 GPUs per node, one 20 GB/s NIC per node. GPU 0 sends 10 MB off node, GPU 1 nothing:
  // GPU 0 may use the whole NIC, 0.5 ms (a fixed per-GPU share of 10 GB/s would say 1 ms).
  // Both sending 10 MB: 20 MB through one NIC, 1 ms.
  HardwarePreset h = round_preset(2);
  h.nics_per_node = 1;
  h.nic.bandwidth_Bps = 20e9;
  const Cluster cluster(h, 2);
  const CostParams p = ideal_collectives();
  ByteMatrix m(4);
  m.at(0, 2) = 10e6;
  EXPECT_NEAR(alltoallv_s(cluster, m, p), 0.5e-3, 1e-15);
  m.at(1, 3) = 10e6;
  EXPECT_NEAR(alltoallv_s(cluster, m, p), 1e-3, 1e-15);
}

TEST(RingDemand, EveryHopCarriesItsShareOverItsRoute) {
  // AllReduce of 1 GB over 2 nodes of 2 GPUs: one ring per rail (NCCL's channels), each carrying
  // half of 2·(3/4)·1 GB = 0.75 GB per hop. Ring 0 is 1 -> 0 -> 3 -> 2 -> 1, ring 1 is
  // 0 -> 1 -> 2 -> 3 -> 0: every GPU sends one hop over NVLink and one through its NIC
  // (10 GB/s), so every loaded link carries 0.75 GB: 75 ms (one ring alone would put 1.5 GB
  // through one NIC: 150 ms).
  const Cluster cluster(round_preset(2), 2);
  const CostParams p = ideal_collectives();
  const CollectiveDemand d = allreduce_ring_demand(cluster, iota_gpus(4), 1e9, p);
  ASSERT_EQ(d.stages.size(), 1u);
  for (const DemandFlow& f : d.stages.front().flows) EXPECT_DOUBLE_EQ(f.bytes, 0.75e9);
  EXPECT_NEAR(idle_time_s(cluster, d, p), 75e-3, 1e-12);
  // Per flow: one flow per hop of each ring, the same time.
  const CollectiveDemand hops =
      allreduce_ring_demand(cluster, iota_gpus(4), 1e9, p, FlowGranularity::per_flow);
  EXPECT_EQ(hops.stages.front().flows.size(), 8u);
  EXPECT_NEAR(idle_time_s(cluster, hops, p), 75e-3, 1e-12);
  // Hierarchical: three stages (reduce-scatter, cross-node rings, all-gather).
  EXPECT_EQ(allreduce_hierarchical_demand(cluster, iota_gpus(4), 1e9, p).stages.size(), 3u);
}

TEST(RingDemand, APartialRingOnAMeshUsesOnlyItsMembersLinks) {
  // 4-GPU NVLink mesh, 100 GB/s per GPU = 33.3 GB/s per pair link. A ring over GPUs {0, 1}
  // has only the 0 <-> 1 links: 2·(1/2)·1 GB / 33.3 GB/s = 30 ms. The whole domain spreads each
  // hop over 3 links: 2·(3/4)·1 GB / 3 per link / 33.3 GB/s = 15 ms.
  HardwarePreset h = round_preset(4);
  h.scale_up_kind = "nvlink";
  const Cluster cluster(h, 1);
  const CostParams p = ideal_collectives();
  EXPECT_NEAR(allreduce_s(cluster, std::vector<int>{0, 1}, 1e9, p), 30e-3, 1e-12);
  EXPECT_NEAR(allreduce_s(cluster, iota_gpus(4), 1e9, p), 15e-3, 1e-12);
}

TEST(MessageCost, SmallMessagesReachAFractionOfTheBandwidth) {
  // n½ = 512 B in a node, 4096 B across nodes (configs/cost/default.yaml). 1000 rows of 256 B:
  //   in node:  1000 · (256 + 512) B / 100 GB/s = 7.68 us      (efficiency 256/768 = 1/3)
  //   off node: 1000 · (256 + 4096) B / 10 GB/s = 435.2 us    (efficiency 256/4352 = 5.9%)
  // One 1 GB message loses nothing measurable: 1e9·(1 + 4096/1e9) / 10 GB/s.
  const Cluster cluster(round_preset(2), 2);
  CostParams p = ideal_collectives();
  p.small_message_half_bytes_scale_up = 512;
  p.small_message_half_bytes_scale_out = 4096;
  EXPECT_NEAR(message_efficiency(cluster, 0, 1, 256, p), 1.0 / 3, 1e-15);
  EXPECT_NEAR(message_efficiency(cluster, 0, 2, 256, p), 256.0 / 4352, 1e-15);
  EXPECT_NEAR(p2p_s(cluster, 0, 1, 1000, 256, p), 7.68e-6, 1e-15);
  EXPECT_NEAR(p2p_s(cluster, 0, 2, 1000, 256, p), 435.2e-6, 1e-15);
  EXPECT_NEAR(p2p_s(cluster, 0, 2, 1, 1e9, p), (1e9 + 4096) / 10e9, 1e-12);
  const Cluster slow(round_preset(2, 64, 1, 1e-6), 2);
  CostParams q = ideal_default_cost_params();
  const double alpha = slow.route(2, 0).latency_s;
  EXPECT_NEAR(p2p_s(slow, 2, 0, 1000, 256, q),
              q.collective_launch_s + alpha +
                  1000 * (256 + q.small_message_half_bytes_scale_out) / (10e9 * 0.85),
              1e-15);
  EXPECT_EQ(p2p_s(cluster, 1, 1, 10, 10, p), 0.0);  // local
  EXPECT_THROW(p2p_s(cluster, 0, 4, 1, 1, p), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
