// AlltoAll(v): injection bounds per GPU and per tier, latency of the farthest level.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "../support/ideal_cost.hpp"
#include "round_presets.hpp"
#include "shardsim/core/rng.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {
namespace {

using test::ideal_collectives;
using test::round_preset;

// Every GPU sends `per_pair_bytes` to every GPU (itself included: free).
ByteMatrix uniform(int n, double per_pair_bytes) {
  ByteMatrix m(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m.at(i, j) = per_pair_bytes;
  return m;
}

TEST(AlltoallvCost, HandMatrixOnTwoNodesOfTwoGpus) {
  // GPUs 0,1 on node 0; 2,3 on node 1. Scale-up 100 GB/s, NIC share 10 GB/s, no latency.
  const Cluster cluster(round_preset(2), 2);
  ByteMatrix m(4);
  m.at(0, 1) = 10e6;  // in-node
  m.at(0, 2) = 20e6;
  m.at(0, 3) = 30e6;
  m.at(1, 2) = 5e6;
  m.at(2, 0) = 40e6;
  m.at(3, 2) = 50e6;  // in-node
  m.at(1, 1) = 99e6;  // diagonal: local, free
  // scale-up: GPU 3 sends 50 MB and GPU 2 receives 50 MB -> 50e6 / 100e9 = 0.5 ms
  // NIC:      GPU 0 sends 20 + 30 = 50 MB off-node (receives 40) -> 50e6 / 10e9 = 5 ms
  // tiers:    both nodes in one rack: nothing crosses an uplink
  const AlltoallvBounds b = alltoallv_bounds(cluster, m, ideal_collectives());
  EXPECT_NEAR(b.scale_up_s, 0.5e-3, 1e-15);
  EXPECT_NEAR(b.scale_out_s, 5e-3, 1e-15);
  EXPECT_EQ(b.tier_uplink_s, 0.0);
  EXPECT_EQ(b.farthest_level, 2);
  EXPECT_NEAR(b.total_s, 5e-3, 1e-15);

  // With the default efficiency 0.85 and 10 us launch, and 1 us link latencies:
  // total = 5 ms / 0.85 + route latency(GPU 0 -> GPU 2) + 10 us
  const Cluster slow(round_preset(2, 64, 1, 1e-6), 2);
  const CostParams p = ideal_default_cost_params();
  const double alpha = slow.route(0, 2).latency_s;
  EXPECT_GT(alpha, 0);
  EXPECT_NEAR(alltoallv_s(slow, m, p), 5e-3 / 0.85 + alpha + 10e-6, 1e-12);
}

TEST(AlltoallvCost, ReceiveSideCanBind) {
  // Three GPUs send 10 MB each to GPU 3 (incast): GPU 3 receives 20 MB off-node -> 2 ms, while
  // no GPU sends more than 10 MB (1 ms off-node).
  const Cluster cluster(round_preset(2), 2);
  ByteMatrix m(4);
  m.at(0, 3) = 10e6;
  m.at(1, 3) = 10e6;
  m.at(2, 3) = 10e6;
  const AlltoallvBounds b = alltoallv_bounds(cluster, m, ideal_collectives());
  EXPECT_NEAR(b.scale_out_s, 2e-3, 1e-15);
  EXPECT_NEAR(b.scale_up_s, 0.1e-3, 1e-15);  // GPU 2 -> 3 in-node: 10e6 / 100e9
}

TEST(AlltoallvCost, UniformMatchesTheClosedForm) {
  // Per-GPU buffer S split evenly over N GPUs (S/N per pair), g GPUs per node:
  //   T = max((g−1)·S/N / bw_up, (N−g)·S/N / bw_nic) / eff + α(farthest level) + launch
  const CostParams p = ideal_default_cost_params();
  const double per_gpu_bytes = 64e6;
  for (int g : {1, 2, 4, 8}) {
    for (int nodes : {1, 2, 4}) {
      const Cluster cluster(round_preset(g, 64, 1, 1e-6), nodes);
      const int n = g * nodes;
      const double pair = per_gpu_bytes / n;
      const double up_s = (g - 1) * pair / 100e9;
      const double nic_s = (n - g) * pair / 10e9;
      double expected = 0;
      if (n > 1) {
        const int far = nodes > 1 ? g : 1;  // GPU 0 -> first GPU of node 1, or GPU 1
        expected = std::max(up_s, nic_s) / 0.85 + cluster.route(0, far).latency_s + 10e-6;
      }
      EXPECT_NEAR(alltoallv_s(cluster, uniform(n, pair), p), expected, 1e-12)
          << g << " GPUs/node x " << nodes << " nodes";
    }
  }
}

TEST(AlltoallvCost, OversubscribedRackUplinkBinds) {
  // 4 nodes x 2 GPUs, racks of 2 nodes, uniform 1 MB per pair. Per GPU: 1 MB in-node, 6 MB
  // off-node (600 us at 10 GB/s). Each rack's 4 GPUs send 4 MB each to the other rack: 16 MB.
  // Rack uplink = 2 nodes x 20 GB/s / oversubscription.
  //   oversubscription 2: 16e6 / 20e9 = 800 us > 600 us: the uplink binds
  //   oversubscription 1: 16e6 / 40e9 = 400 us < 600 us: the NIC binds
  const CostParams p = ideal_collectives();
  const Cluster thin(round_preset(2, 2, 2.0), 4);
  ASSERT_DOUBLE_EQ(thin.tier_uplink_Bps(0), 20e9);
  const AlltoallvBounds b = alltoallv_bounds(thin, uniform(8, 1e6), p);
  EXPECT_NEAR(b.tier_uplink_s, 800e-6, 1e-15);
  EXPECT_EQ(b.tier_uplink_tier, 0);
  EXPECT_NEAR(b.scale_out_s, 600e-6, 1e-15);
  EXPECT_EQ(b.farthest_level, 3);
  EXPECT_NEAR(b.total_s, 800e-6 + b.latency_s, 1e-15);

  const Cluster fat(round_preset(2, 2, 1.0), 4);
  ASSERT_DOUBLE_EQ(fat.tier_uplink_Bps(0), 40e9);
  const AlltoallvBounds f = alltoallv_bounds(fat, uniform(8, 1e6), p);
  EXPECT_NEAR(f.tier_uplink_s, 400e-6, 1e-15);
  EXPECT_NEAR(f.total_s, 600e-6 + f.latency_s, 1e-15);
}

// The injection-bound example: 512 GPUs exchanging 1 MB per GPU (1 MB / 512 per pair) over
// 50 GB/s NIC shares, ideal efficiency, no latency or launch.
HardwarePreset injection_preset(int gpus_per_node) {
  HardwarePreset h = round_preset(gpus_per_node, 16, 1.0, 0.0);
  h.scale_up.bandwidth_Bps = 300e9;
  h.nic.bandwidth_Bps = 50e9;  // one NIC per GPU: NIC share 50 GB/s
  return h;
}

TEST(AlltoallvCost, InjectionBoundOf512GpusIn64NodesOf8) {
  // Off-node bytes per GPU: 504 peers x (1e6 / 512) = 0.984375 MB -> / 50e9 = 19.6875 us.
  // In-node: 7 x 1953.125 B / 300e9 = 0.0456 us. Racks of 16 nodes (128 GPUs) send
  // 128 x 384/512 MB = 96 MB over a 16 x 400 GB/s = 6.4 TB/s uplink: 15 us (does not bind).
  // (A "flat" count of all 511 peers over the NIC would give 19.96 us, 1.4% more: in-node
  // peers go over NVSwitch, not the NIC.)
  const Cluster cluster(injection_preset(8), 64);
  ASSERT_EQ(cluster.num_gpus(), 512);
  ASSERT_DOUBLE_EQ(cluster.scale_out_Bps_per_gpu(), 50e9);
  const AlltoallvBounds b = alltoallv_bounds(cluster, uniform(512, 1e6 / 512), ideal_collectives());
  EXPECT_NEAR(b.total_s, 19.6875e-6, 0.01 * 19.6875e-6);
  EXPECT_NEAR(b.scale_out_s, 19.6875e-6, 1e-12);
  EXPECT_NEAR(b.tier_uplink_s, 15e-6, 1e-12);
  // The real estimate (default efficiency and launch) never beats the bound.
  EXPECT_GE(alltoallv_s(cluster, uniform(512, 1e6 / 512), ideal_default_cost_params()), 19.6875e-6);
}

TEST(AlltoallvCost, InjectionBoundOfAFlat512GpuAlltoall) {
  // One GPU per node: all 511 peers go over the NIC: 1 MB x 511/512 / 50 GB/s = 19.9609 us.
  const Cluster cluster(injection_preset(1), 512);
  const double expected = 1e6 * 511.0 / 512.0 / 50e9;
  EXPECT_NEAR(alltoallv_s(cluster, uniform(512, 1e6 / 512), ideal_collectives()), expected,
              0.01 * expected);
}

TEST(AlltoallvCost, DirectNvlinkMeshLimitsOnePairToOneLink) {
  // A 4-GPU NVLink mesh: 100 GB/s per GPU split over 3 peers. 30 MB from GPU 0 to GPU 1 only:
  // one link of 33.3 GB/s -> 0.9 ms (the per-GPU aggregate would say 0.3 ms).
  HardwarePreset h = round_preset(4);
  h.scale_up_kind = "nvlink";
  const Cluster cluster(h, 1);
  ByteMatrix m(4);
  m.at(0, 1) = 30e6;
  EXPECT_NEAR(alltoallv_s(cluster, m, ideal_collectives()), 0.9e-3, 1e-12);
  // Uniform traffic uses all three links: 10 MB to each peer, 30 MB per GPU -> 0.3 ms.
  ByteMatrix u = uniform(4, 10e6);
  EXPECT_NEAR(alltoallv_s(cluster, u, ideal_collectives()), 0.3e-3, 1e-12);
}

TEST(AlltoallvCost, LatencyIsThatOfTheFarthestLevelUsed) {
  const Cluster cluster(round_preset(2, 64, 1, 1e-6), 2);
  const CostParams p = ideal_collectives();
  ByteMatrix in_node(4);
  in_node.at(0, 1) = 1;
  const AlltoallvBounds a = alltoallv_bounds(cluster, in_node, p);
  EXPECT_EQ(a.farthest_level, 1);
  EXPECT_DOUBLE_EQ(a.latency_s, cluster.route(0, 1).latency_s);
  ByteMatrix cross = in_node;
  cross.at(3, 0) = 1;
  const AlltoallvBounds c = alltoallv_bounds(cluster, cross, p);
  EXPECT_EQ(c.farthest_level, 2);
  EXPECT_DOUBLE_EQ(c.latency_s, cluster.route(3, 0).latency_s);
  EXPECT_GT(c.latency_s, a.latency_s);
}

TEST(AlltoallvCost, ZeroBytesCostNothing) {
  const Cluster cluster(round_preset(2, 64, 1, 1e-6), 2);
  EXPECT_EQ(alltoallv_s(cluster, ByteMatrix(4), ideal_default_cost_params()), 0.0);
  ByteMatrix diagonal(4);
  for (int i = 0; i < 4; ++i) diagonal.at(i, i) = 1e9;
  EXPECT_EQ(alltoallv_s(cluster, diagonal, ideal_default_cost_params()), 0.0);
}

TEST(AlltoallvCost, MonotoneInBytes) {
  // Random matrices (fixed seed): adding bytes to any entry never lowers the time, and doubling
  // every entry strictly raises it.
  const Cluster cluster(round_preset(4, 2, 2.0, 1e-6), 8);  // 32 GPUs, 4 racks
  const CostParams p = ideal_default_cost_params();
  Rng rng(stream_seed(7, {1}));
  for (int trial = 0; trial < 20; ++trial) {
    ByteMatrix m(32);
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) m.at(i, j) = rng.uniform(0, 1e6);
    const double base = alltoallv_s(cluster, m, p);
    const int i = static_cast<int>(rng.below(32));
    const int j = static_cast<int>(rng.below(32));
    ByteMatrix more = m;
    more.at(i, j) += 5e6;
    EXPECT_GE(alltoallv_s(cluster, more, p), base);
    ByteMatrix twice = m;
    for (int a = 0; a < 32; ++a)
      for (int b = 0; b < 32; ++b) twice.at(a, b) *= 2;
    EXPECT_GT(alltoallv_s(cluster, twice, p), base);
  }
}

TEST(AlltoallvCost, NeverBelowAnyGpusNicInjection) {
  // Property: for random matrices, T >= (bytes GPU i sends off-node) / NIC share for every i.
  const Cluster cluster(round_preset(2), 4);
  const CostParams p = ideal_collectives();
  Rng rng(stream_seed(11, {2}));
  for (int trial = 0; trial < 20; ++trial) {
    ByteMatrix m(8);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) m.at(i, j) = rng.uniform(0, 1e7);
    const double t = alltoallv_s(cluster, m, p);
    for (int i = 0; i < 8; ++i) {
      double off_node = 0;
      for (int j = 0; j < 8; ++j)
        if (cluster.node_of(j) != cluster.node_of(i)) off_node += m.at(i, j);
      EXPECT_GE(t, off_node / 10e9 * (1 - 1e-12));
    }
  }
}

// A direct transcription of the bounds, one Cluster::level_between call per entry, to check
// the fast O(1)-per-entry pass against.
AlltoallvBounds reference_bounds(const Cluster& c, const ByteMatrix& m, const CostParams& p) {
  const int n = c.num_gpus();
  std::vector<double> up_s(n), up_r(n), out_s(n), out_r(n);
  std::vector<std::vector<double>> grp_out(c.num_tiers()), grp_in(c.num_tiers());
  for (int k = 0; k < c.num_tiers(); ++k) {
    grp_out[k].assign(c.num_tier_groups(k), 0);
    grp_in[k].assign(c.num_tier_groups(k), 0);
  }
  AlltoallvBounds b;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double x = m.at(i, j);
      if (i == j || x == 0) continue;
      const int level = c.level_between(i, j);
      if (level > b.farthest_level) {
        b.farthest_level = level;
        b.latency_s = c.route(i, j).latency_s;
      }
      if (level == 1) {
        up_s[i] += x;
        up_r[j] += x;
        continue;
      }
      out_s[i] += x;
      out_r[j] += x;
      for (int k = 0; k + 2 < level; ++k) {  // tiers below the lowest common one
        grp_out[k][c.tier_group_of(i, k)] += x;
        grp_in[k][c.tier_group_of(j, k)] += x;
      }
    }
  }
  const double eff = p.collective_bandwidth_efficiency;
  for (int i = 0; i < n; ++i) {
    b.scale_up_s = std::max({b.scale_up_s, up_s[i] / (c.scale_up_Bps_per_gpu() * eff),
                             up_r[i] / (c.scale_up_Bps_per_gpu() * eff)});
    b.scale_out_s = std::max({b.scale_out_s, out_s[i] / (c.scale_out_Bps_per_gpu() * eff),
                              out_r[i] / (c.scale_out_Bps_per_gpu() * eff)});
  }
  for (int k = 0; k + 1 < c.num_tiers(); ++k) {
    for (std::size_t g = 0; g < grp_out[k].size(); ++g) {
      b.tier_uplink_s = std::max({b.tier_uplink_s, grp_out[k][g] / (c.tier_uplink_Bps(k) * eff),
                                  grp_in[k][g] / (c.tier_uplink_Bps(k) * eff)});
    }
  }
  if (b.farthest_level > 0) {
    b.total_s = std::max({b.scale_up_s, b.scale_out_s, b.tier_uplink_s}) + b.latency_s +
                p.collective_launch_s;
  }
  return b;
}

TEST(AlltoallvCost, MatchesAReferenceTranscriptionOnThreeTiers) {
  // 8 nodes x 4 GPUs; racks of 2 nodes (oversubscription 3), pods of 2 racks (2), one building.
  HardwarePreset h = round_preset(4, 2, 3.0, 1e-6);
  h.tiers = {TierSpec{"rack", 2, 3.0, 0.5e-6}, TierSpec{"pod", 2, 2.0, 1e-6},
             TierSpec{"building", 4, 1.0, 2e-6}};
  const Cluster cluster(h, 8);
  const CostParams p = ideal_default_cost_params();
  Rng rng(stream_seed(5, {3}));
  for (int trial = 0; trial < 30; ++trial) {
    ByteMatrix m(32);
    const double density = rng.uniform01();  // sparse to dense matrices
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j)
        if (rng.uniform01() < density) m.at(i, j) = rng.uniform(0, 1e7);
    const AlltoallvBounds fast = alltoallv_bounds(cluster, m, p);
    const AlltoallvBounds ref = reference_bounds(cluster, m, p);
    EXPECT_NEAR(fast.scale_up_s, ref.scale_up_s, 1e-12 * ref.scale_up_s) << trial;
    EXPECT_NEAR(fast.scale_out_s, ref.scale_out_s, 1e-12 * ref.scale_out_s) << trial;
    EXPECT_NEAR(fast.tier_uplink_s, ref.tier_uplink_s, 1e-12 * ref.tier_uplink_s) << trial;
    EXPECT_EQ(fast.farthest_level, ref.farthest_level) << trial;
    EXPECT_DOUBLE_EQ(fast.latency_s, ref.latency_s) << trial;
    EXPECT_NEAR(fast.total_s, ref.total_s, 1e-12 * ref.total_s) << trial;
  }
}

TEST(AlltoallvCost, BuiltinPresetUniformMatchesTheClosedForm) {
  // dgx-a100, 16 nodes (one rack): 8 GPUs per node, one 200 Gbit/s NIC per GPU (25 GB/s),
  // 300 GB/s NVSwitch. 128 MB per GPU: 1 MB per pair; 120 MB off-node per GPU / 25 GB/s (the
  // rail-optimised fabric's PXN hops ride the NVSwitch at 300 GB/s, hidden). α: a cross-rail
  // pair (GPU 0 -> GPU 9, via GPU 1), the slowest of the level.
  const Cluster cluster(builtin_preset("dgx-a100"), 16);
  const CostParams p = ideal_default_cost_params();
  const double nic_Bps = cluster.scale_out_Bps_per_gpu();
  ASSERT_DOUBLE_EQ(nic_Bps, 25e9);
  const double expected = 120e6 / (25e9 * 0.85) + cluster.route(0, 9).latency_s + 10e-6;
  EXPECT_NEAR(alltoallv_s(cluster, uniform(128, 1e6), p), expected, 1e-12);
}

TEST(AlltoallvCost, BadMatrixIsRejected) {
  const Cluster cluster(round_preset(2), 2);
  EXPECT_THROW(alltoallv_s(cluster, ByteMatrix(3), ideal_default_cost_params()),
               std::invalid_argument);
  ByteMatrix negative(4);
  negative.at(0, 1) = -1;
  EXPECT_THROW(alltoallv_s(cluster, negative, ideal_default_cost_params()), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace {

// Rail-optimised: 4 nodes of 2 GPUs, one 10 GB/s NIC per GPU (2 rails), racks of 2 nodes.
Cluster rail_cluster() {
  HardwarePreset p = test::round_preset(2, 2);
  p.rail_optimized = true;
  return Cluster(p, 4);
}

std::vector<double> link_loads(const Cluster& c, const CollectiveDemand& d) {
  std::vector<double> loads(static_cast<std::size_t>(c.topology().num_links()), 0.0);
  for (const CollectiveStage& st : d.stages) {
    for (const DemandFlow& f : st.flows) {
      for (std::uint32_t k = 0; k < f.num_links; ++k) {
        loads[static_cast<std::size_t>(st.links[f.first_link + k])] += f.bytes;
      }
    }
  }
  return loads;
}

TEST(AlltoallvRails, AggregatedLoadsAreThePerFlowRoutesSummed) {
  const Cluster c = rail_cluster();
  ByteMatrix m(8);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) m.at(i, j) = i == j ? 0 : 1e6;
  const CostParams p = test::ideal_collectives();
  const std::vector<double> agg = link_loads(c, alltoallv_demand(c, m, p));
  const std::vector<double> flows =
      link_loads(c, alltoallv_demand(c, m, p, FlowGranularity::per_flow));
  for (std::size_t l = 0; l < agg.size(); ++l) {
    EXPECT_NEAR(agg[l], flows[l], 1e-6) << c.links()[l].name;
  }
  // PXN: gpu0 sends 1 MB in its node and 3 MB to the 3 off-node GPUs of rail 1 through gpu1.
  EXPECT_NEAR(agg[static_cast<std::size_t>(c.topology().scale_up_tx_link(0))], 4e6, 1e-6);
  // Each NIC sends its node's bytes for its rail: 2 GPUs x 3 MB.
  EXPECT_NEAR(agg[static_cast<std::size_t>(c.topology().up_link(c.topology().nic_vertex(0)))], 6e6,
              1e-6);
}

TEST(AlltoallvRails, UniformAlltoallCostsWhatTheTopOfRackLayoutDoesWhenNicsBind) {
  HardwarePreset tor = test::round_preset(2, 2);
  const Cluster flat(tor, 4);
  const Cluster rails = rail_cluster();
  const CostParams p = test::ideal_collectives();
  ByteMatrix m(8);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) m.at(i, j) = i == j ? 0 : 1e6;
  // 6 MB off-node per NIC at 10 GB/s = 0.6 ms either way; the PXN hop (4 MB at 100 GB/s) hides.
  EXPECT_NEAR(alltoallv_s(rails, m, p), alltoallv_s(flat, m, p), 1e-12);
}

}  // namespace
}  // namespace shardsim
