// The nccl collective model (src/cost/collective_shape.cpp, docs/model.md "Collective models"):
// protocol choice, NCCL's step counts, the tree, and AlltoAll's per-peer cost, by hand.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "cost/collective_shape.hpp"
#include "round_presets.hpp"
#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/collective_terms.hpp"

namespace shardsim {
namespace {

using test::round_preset;

std::vector<int> first_gpus(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// The nccl model with round numbers: efficiency 1, no route latency (round_preset's default),
// LL: 1 us base, 0.1 us per scale-up step, 1 us per scale-out step, 1/4 of the bandwidth;
// LL128: 2 us, 0.2, 2, 1/2; Simple: 4 us, 0.4, 4, all of it; the tree takes the ring's
// latencies, without tuning.cc's size correction or the ring's plateau (tests of their own
// below). AlltoAll: 0.5 us per peer in the domain, 3 us outside, 7 us once across the network.
CostParams round_nccl() {
  CostParams p = default_cost_params();
  p.collective_model = CollectiveModelKind::nccl;
  p.collective_bandwidth_efficiency = 1;
  p.nccl_ll_base_latency_s = 1e-6;
  p.nccl_ll128_base_latency_s = 2e-6;
  p.nccl_simple_base_latency_s = 4e-6;
  p.nccl_ll_scale_up_step_s = 0.1e-6;
  p.nccl_ll128_scale_up_step_s = 0.2e-6;
  p.nccl_simple_scale_up_step_s = 0.4e-6;
  p.nccl_ll_scale_out_step_s = 1e-6;
  p.nccl_ll128_scale_out_step_s = 2e-6;
  p.nccl_simple_scale_out_step_s = 4e-6;
  p.nccl_ll_bandwidth_fraction = 0.25;
  p.nccl_ll128_bandwidth_fraction = 0.5;
  p.nccl_simple_bandwidth_fraction = 1;
  p.alltoall_peer_scale_up_s = 0.5e-6;
  p.alltoall_peer_scale_out_s = 3e-6;
  p.alltoall_scale_out_latency_s = 7e-6;
  p.nccl_ll_multi_domain_scale_up_factor = 1;
  p.nccl_tree_ll_base_latency_s = p.nccl_ll_base_latency_s;
  p.nccl_tree_ll128_base_latency_s = p.nccl_ll128_base_latency_s;
  p.nccl_tree_simple_base_latency_s = p.nccl_simple_base_latency_s;
  p.nccl_tree_ll_scale_up_step_s = p.nccl_ll_scale_up_step_s;
  p.nccl_tree_ll128_scale_up_step_s = p.nccl_ll128_scale_up_step_s;
  p.nccl_tree_simple_scale_up_step_s = p.nccl_simple_scale_up_step_s;
  p.nccl_tree_ll_scale_out_step_s = p.nccl_ll_scale_out_step_s;
  p.nccl_tree_ll128_scale_out_step_s = p.nccl_ll128_scale_out_step_s;
  p.nccl_tree_simple_scale_out_step_s = p.nccl_simple_scale_out_step_s;
  p.nccl_tree_size_correction = false;
  p.nccl_simple_ring_plateau_factor = 1;
  p.collective_jitter_cv = 0;
  return p;
}

TEST(NcclModel, SmallMessagesTakeLlAndLargeOnesSimple) {
  // One node of 2 GPUs (100 GB/s NVSwitch), AllReduce: 2 steps at scale-up, 2·(1/2)·S per hop.
  const Cluster cluster(round_preset(2), 1);
  const double launch = cluster.gpu().kernel_launch_s;
  const CostParams p = round_nccl();
  // 1 kB: LL 1 + 2·0.1 us + 1e3 / (100e9/4) = 1.24 us beats LL128 (2.4 us + 0.02) and Simple.
  EXPECT_NEAR(allreduce_s(cluster, first_gpus(2), 1e3, p), launch + 1.2e-6 + 1e3 / 25e9, 1e-15);
  // 1 GB: Simple 4.8 us + 10 ms beats LL128's 20 ms and LL's 40 ms.
  EXPECT_NEAR(allreduce_s(cluster, first_gpus(2), 1e9, p), launch + 4.8e-6 + 1e9 / 100e9, 1e-12);
  // The ideal model on the same parameters: collective_launch_s + bytes / bandwidth.
  CostParams ideal = p;
  ideal.collective_model = CollectiveModelKind::ideal;
  EXPECT_NEAR(allreduce_s(cluster, first_gpus(2), 1e9, ideal), p.collective_launch_s + 10e-3,
              1e-12);
}

TEST(NcclModel, RingStepsSplitByLinkClassAndAllGatherTakesHalf) {
  // 2 nodes x 2 GPUs, tiny message: LL wins. Ring AllGather: N−1 = 3 steps, d−1 = 1 across
  // nodes: 1 + 2·0.1 + 1·1 = 2.2 us (+ 8 B over 2 rails of 10 GB/s NIC at 1/4, negligible).
  const Cluster cluster(round_preset(2), 2);
  const double launch = cluster.gpu().kernel_launch_s;
  const CostParams p = round_nccl();
  EXPECT_NEAR(allgather_s(cluster, first_gpus(4), 8, p), launch + 2.2e-6 + 0.75 * 8 / 2 / 2.5e9,
              1e-15);
  // Across domains LL's scale-up steps take nccl_ll_multi_domain_scale_up_factor times longer
  // (tuning.cc's 1.8): with 2, 1 + 2·(2·0.1) + 1·1 = 2.4 us.
  CostParams slow = p;
  slow.nccl_ll_multi_domain_scale_up_factor = 2;
  EXPECT_NEAR(allgather_s(cluster, first_gpus(4), 8, slow), launch + 2.4e-6 + 0.75 * 8 / 2 / 2.5e9,
              1e-15);
  // Inside one domain it does not apply.
  const Cluster node(round_preset(2), 1);
  EXPECT_DOUBLE_EQ(allgather_s(node, first_gpus(2), 8, slow),
                   allgather_s(node, first_gpus(2), 8, p));
}

TEST(NcclModel, AForcedProtocolOrAlgorithmIsTheOnlyCandidate) {
  // The first test's 1 kB AllReduce on one node of 2 GPUs, with NCCL_PROTO forced: LL128 takes
  // 2 + 2·0.2 us + 1e3 / (100e9/2); Simple 4 + 2·0.4 us + 1e3 / 100e9.
  const Cluster node(round_preset(2), 1);
  const double launch = node.gpu().kernel_launch_s;
  CostParams p = round_nccl();
  p.nccl_protocol = NcclProtocolChoice::ll128;
  EXPECT_NEAR(allreduce_s(node, first_gpus(2), 1e3, p), launch + 2.4e-6 + 1e3 / 50e9, 1e-15);
  p.nccl_protocol = NcclProtocolChoice::simple;
  EXPECT_NEAR(allreduce_s(node, first_gpus(2), 1e3, p), launch + 4.8e-6 + 1e3 / 100e9, 1e-15);
  // AllReduceTimes honours it too.
  const AllReduceTimes times(node, first_gpus(2), p);
  EXPECT_NEAR(times.at(1e3), allreduce_s(node, first_gpus(2), 1e3, p), 1e-15);
  // NCCL_ALGO: 16 nodes x 2 GPUs, 8 bytes (next test): the tree wins unless the ring is forced.
  const Cluster cluster(round_preset(2), 16);
  CostParams ring = round_nccl();
  ring.nccl_algorithm = NcclAlgorithm::ring;
  EXPECT_DOUBLE_EQ(allreduce_s(cluster, first_gpus(32), 8, ring),
                   allreduce_ring_s(cluster, first_gpus(32), 8, round_nccl()));
  CostParams tree = round_nccl();
  tree.nccl_algorithm = NcclAlgorithm::tree;
  EXPECT_DOUBLE_EQ(allreduce_s(cluster, first_gpus(32), 1e10, tree),
                   allreduce_hierarchical_s(cluster, first_gpus(32), 1e10, round_nccl()));
  // Inside one node there is no hierarchy: `tree` falls back to the ring.
  CostParams tree_node = round_nccl();
  tree_node.nccl_algorithm = NcclAlgorithm::tree;
  EXPECT_DOUBLE_EQ(allreduce_s(node, first_gpus(2), 1e3, tree_node),
                   allreduce_s(node, first_gpus(2), 1e3, round_nccl()));
}

TEST(NcclModel, TheTreeTakesLogarithmicallyManyStepsAcrossNodes) {
  // 16 nodes x 2 GPUs, 8 bytes: the ring has 2·31 steps, 2·15 across nodes (LL: 1 + 32·0.1 +
  // 30·1 = 34.2 us); the tree 2·((2−1)·0.1 + log2(16)·1) + 1 = 9.2 us. AllReduce takes the tree.
  const Cluster cluster(round_preset(2), 16);
  const CostParams p = round_nccl();
  const double launch = cluster.gpu().kernel_launch_s;
  const double t = allreduce_s(cluster, first_gpus(32), 8, p);
  EXPECT_NEAR(t, launch + 9.2e-6, 0.01e-6);
  EXPECT_NEAR(allreduce_ring_s(cluster, first_gpus(32), 8, p), launch + 34.2e-6, 0.01e-6);
  EXPECT_DOUBLE_EQ(allreduce_hierarchical_s(cluster, first_gpus(32), 8, p), t);
  // AllReduceTimes agrees with allreduce_s at every size, whichever line wins.
  const AllReduceTimes times(cluster, first_gpus(32), p);
  for (double s : {8.0, 1e4, 1e6, 1e8, 1e10}) {
    EXPECT_NEAR(times.at(s), allreduce_s(cluster, first_gpus(32), s, p), 1e-12 * (1 + s / 1e9));
  }
}

TEST(NcclModel, TheTreeHasLatenciesOfItsOwn) {
  // 16 nodes x 2 GPUs, 8 bytes, LL forced: the tree's own LL figures (base 3 us, 0.2 us a
  // scale-up step, 2 us a scale-out step): 3 + 2·((2−1)·0.2 + log2(16)·2) = 19.4 us; the ring
  // keeps its own (34.2 us, previous test).
  const Cluster cluster(round_preset(2), 16);
  CostParams p = round_nccl();
  p.nccl_protocol = NcclProtocolChoice::ll;
  p.nccl_tree_ll_base_latency_s = 3e-6;
  p.nccl_tree_ll_scale_up_step_s = 0.2e-6;
  p.nccl_tree_ll_scale_out_step_s = 2e-6;
  const double launch = cluster.gpu().kernel_launch_s;
  EXPECT_NEAR(allreduce_hierarchical_s(cluster, first_gpus(32), 8, p), launch + 19.4e-6, 0.01e-6);
  EXPECT_NEAR(allreduce_ring_s(cluster, first_gpus(32), 8, p), launch + 34.2e-6, 0.01e-6);
  // The hand calculation's steps are tuning.cc's: the Simple tree's 28 us NVLink and 50 us
  // network steps of the default file make it the slowest choice for a small AllReduce.
  const CostParams d = default_cost_params();
  EXPECT_DOUBLE_EQ(d.nccl_tree_simple_scale_up_step_s, 28e-6);
  EXPECT_DOUBLE_EQ(d.nccl_tree_simple_scale_out_step_s, 50e-6);
}

TEST(NcclModel, TheTreeBandwidthFollowsTuningCcsSizeCorrection) {
  // tuning.cc's treeCorrectionFactor, indexed by log2(bytes / 64).
  using cost_detail::NcclProtocol;
  EXPECT_DOUBLE_EQ(cost_detail::tree_size_correction(NcclProtocol::ll, 8), 1.0);
  EXPECT_DOUBLE_EQ(cost_detail::tree_size_correction(NcclProtocol::simple, 8), 0.9);
  // 64 KiB: 1024 chunks of 64 B, index 10.
  EXPECT_DOUBLE_EQ(cost_detail::tree_size_correction(NcclProtocol::ll, 65536), 0.6);
  EXPECT_DOUBLE_EQ(cost_detail::tree_size_correction(NcclProtocol::ll128, 65536), 0.6);
  // 1 MiB - 1 byte is still index 13; 1 MiB index 14.
  EXPECT_DOUBLE_EQ(cost_detail::tree_size_correction(NcclProtocol::ll, 1048575), 0.4);
  EXPECT_DOUBLE_EQ(cost_detail::tree_size_correction(NcclProtocol::ll, 1048576), 0.5);
  // 32 MiB: index 19; 256 MiB and beyond: 1.
  EXPECT_DOUBLE_EQ(cost_detail::tree_size_correction(NcclProtocol::simple, 33554432), 0.7);
  EXPECT_DOUBLE_EQ(cost_detail::tree_size_correction(NcclProtocol::simple, 268435456), 1.0);
  // Applied to the tree's bandwidth term only: 16 nodes x 2 GPUs, 1 MiB, Simple forced: the
  // bandwidth term is 1/0.5 times the uncorrected one, the latency unchanged.
  const Cluster cluster(round_preset(2), 16);
  CostParams off = round_nccl();
  off.nccl_protocol = NcclProtocolChoice::simple;
  CostParams on = off;
  on.nccl_tree_size_correction = true;
  const double launch = cluster.gpu().kernel_launch_s;
  const double latency = 4e-6 + 2 * ((2 - 1) * 0.4e-6 + 4 * 4e-6);
  const double bw_off =
      allreduce_hierarchical_s(cluster, first_gpus(32), 1048576, off) - launch - latency;
  const double bw_on =
      allreduce_hierarchical_s(cluster, first_gpus(32), 1048576, on) - launch - latency;
  EXPECT_GT(bw_off, 0);
  EXPECT_NEAR(bw_on / bw_off, 1 / 0.5, 1e-9);
  // AllReduceTimes applies it too, size by size.
  const AllReduceTimes times(cluster, first_gpus(32), on);
  for (double s : {8.0, 1e3, 65536.0, 1048576.0, 3e7, 1e9}) {
    EXPECT_NEAR(times.at(s), allreduce_s(cluster, first_gpus(32), s, on), 1e-12 * (1 + s / 1e9));
  }
}

TEST(NcclModel, TheMultiNodeSimpleRingHasTuningCcsPlateau) {
  // 16 nodes x 2 GPUs, Simple ring forced: from 32/16 · 64 KiB = 128 KiB on, the latency
  // (base + steps) takes 1.5 times as long; below, and inside one node, it does not.
  const Cluster cluster(round_preset(2), 16);
  CostParams flat = round_nccl();
  flat.nccl_protocol = NcclProtocolChoice::simple;
  flat.nccl_algorithm = NcclAlgorithm::ring;
  CostParams plateau = flat;
  plateau.nccl_simple_ring_plateau_factor = 1.5;
  const double launch = cluster.gpu().kernel_launch_s;
  const double latency = 4e-6 + (62 - 30) * 0.4e-6 + 30 * 4e-6;
  for (double s : {131071.0, 131072.0, 1e9}) {
    const double extra = s >= 131072 ? 0.5 * latency : 0.0;
    EXPECT_NEAR(allreduce_s(cluster, first_gpus(32), s, plateau),
                allreduce_s(cluster, first_gpus(32), s, flat) + extra, 1e-12 * (1 + s / 1e6))
        << s;
  }
  EXPECT_NEAR(allreduce_s(cluster, first_gpus(32), 131072, flat) - launch,
              latency + 2 * 31.0 / 32 * 131072 / 2 / 10e9, 1e-9);
  const Cluster node(round_preset(2), 1);
  EXPECT_DOUBLE_EQ(allreduce_s(node, first_gpus(2), 1e9, plateau),
                   allreduce_s(node, first_gpus(2), 1e9, flat));
  const AllReduceTimes times(cluster, first_gpus(32), plateau);
  for (double s : {8.0, 131071.0, 131072.0, 1e9}) {
    EXPECT_NEAR(times.at(s), allreduce_s(cluster, first_gpus(32), s, plateau),
                1e-12 * (1 + s / 1e9));
  }
}

TEST(NcclModel, APresetsNetworkPluginCanForceTheSimpleProtocol) {
  // A preset with `nccl_protocol: simple` (aws-ofi-nccl on p4d/p4de) prices every collective
  // under Simple, as NCCL_PROTO=simple would; the scenario's own cost.nccl_protocol still wins.
  HardwarePreset forced = round_preset(2);
  forced.network_forces_simple_protocol = true;
  const Cluster plain(round_preset(2), 2);
  const Cluster efa(forced, 2);
  CostParams p = round_nccl();
  CostParams simple = p;
  simple.nccl_protocol = NcclProtocolChoice::simple;
  for (double s : {8.0, 1e4, 1e9}) {
    EXPECT_DOUBLE_EQ(allreduce_s(efa, first_gpus(4), s, p),
                     allreduce_s(plain, first_gpus(4), s, simple));
  }
  EXPECT_GT(allreduce_s(efa, first_gpus(4), 8, p), allreduce_s(plain, first_gpus(4), 8, p));
  CostParams ll = p;
  ll.nccl_protocol = NcclProtocolChoice::ll;
  EXPECT_DOUBLE_EQ(allreduce_s(efa, first_gpus(4), 8, ll),
                   allreduce_s(plain, first_gpus(4), 8, ll));
  // The terms calibration prices agree.
  const CollectiveTerms terms = collective_terms(efa, CollectiveOp::allreduce, 8, p);
  EXPECT_EQ(terms.protocol, NcclProtocolChoice::simple);
  EXPECT_NEAR(price(terms, p), allreduce_s(efa, first_gpus(4), 8, p), 1e-15);
}

TEST(NcclModel, AlltoallPaysEachPeerOnce) {
  // 2 nodes x 2 GPUs, uniform 1 kB per pair: each GPU has 1 peer in its node and 2 outside:
  // kernel launch + 0.5 + 2·3 = 6.5 us of peers, + 7 us once for the network's Simple protocol,
  // plus the bytes (2 kB off node over a 10 GB/s NIC: 0.2 us; 1 kB over NVSwitch: 0.01 us).
  const Cluster cluster(round_preset(2), 2);
  const CostParams p = round_nccl();
  ByteMatrix m(4);
  for (int s = 0; s < 4; ++s) {
    for (int d = 0; d < 4; ++d) {
      if (s != d) m.at(s, d) = 1e3;
    }
  }
  const double launch = cluster.gpu().kernel_launch_s;
  EXPECT_NEAR(alltoallv_s(cluster, m, p), launch + 13.5e-6 + 2e3 / 10e9, 1e-15);
  // Only GPUs 0 and 2 take part: one peer each, across nodes: 3 + 7 us.
  ByteMatrix pair(4);
  pair.at(0, 2) = pair.at(2, 0) = 1e3;
  const std::vector<int> group = {0, 2};
  const CollectiveDemand d = alltoallv_demand(cluster, pair, p, FlowGranularity::aggregated, group);
  EXPECT_NEAR(idle_time_s(cluster, d, p), launch + 10e-6 + 1e3 / 10e9, 1e-15);
  // Only GPUs 0 and 1, one node: one NVSwitch peer, no network protocol term.
  ByteMatrix local(4);
  local.at(0, 1) = local.at(1, 0) = 1e3;
  const std::vector<int> node = {0, 1};
  const CollectiveDemand in_node =
      alltoallv_demand(cluster, local, p, FlowGranularity::aggregated, node);
  EXPECT_NEAR(idle_time_s(cluster, in_node, p), launch + 0.5e-6 + 1e3 / 100e9, 1e-15);
  // Switched off: the peers alone.
  CostParams off = p;
  off.alltoall_scale_out_latency_s = 0;
  EXPECT_NEAR(alltoallv_s(cluster, m, off), launch + 6.5e-6 + 2e3 / 10e9, 1e-15);
  // The ideal model pays no peers.
  CostParams ideal = p;
  ideal.collective_model = CollectiveModelKind::ideal;
  EXPECT_NEAR(alltoallv_s(cluster, m, ideal), p.collective_launch_s + 2e3 / 10e9, 1e-15);
}

TEST(NcclModel, CollectiveModelIsANamedChoice) {
  const std::string text = "cost:\n  collective_model: fast\n";
  const YamlValue root(parse_yaml(text, "c.yaml"), "c.yaml", "");
  try {
    apply_cost_overrides(default_cost_params(), root.get("cost"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(std::string(e.what()).find("ideal"), std::string::npos) << e.what();
  }
  const YamlValue ok(parse_yaml("cost:\n  collective_model: ideal\n", "c.yaml"), "c.yaml", "");
  EXPECT_EQ(apply_cost_overrides(default_cost_params(), ok.get("cost")).collective_model,
            CollectiveModelKind::ideal);
  EXPECT_EQ(default_cost_params().collective_model, CollectiveModelKind::nccl);
}

}  // namespace
}  // namespace shardsim
