// Cluster: levels, routes (links, bottleneck, latency), tiers, validation and scale.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "hw/hw_test_util.hpp"
#include "shardsim/core/rng.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {
namespace {

using test::input_error_message;
using test::kSmallPresetYaml;
using test::preset_from_yaml;
using test::replaced;

std::vector<std::string> link_names(const Cluster& c, const Route& r) {
  std::vector<std::string> names;
  for (int id : r.links) names.push_back(c.links().at(static_cast<std::size_t>(id)).name);
  return names;
}

TEST(ClusterRoute, SameGpuIsLevelZeroWithNoLinks) {
  const Cluster c(builtin_preset("dgx-a100"), 2);
  const Route r = c.route(5, 5);
  EXPECT_EQ(r.level, 0);
  EXPECT_TRUE(r.links.empty());
  EXPECT_EQ(r.bottleneck_Bps, 0);
  EXPECT_EQ(r.latency_s, 0);
  EXPECT_EQ(c.level_name(0), "self");
}

TEST(ClusterRoute, LatencyDependsOnTheLevelAndTheRail) {
  // cost/one_sided_cost.cpp computes one route per level (and, on a rail-optimised fabric, per
  // same-rail or cross-rail pair, which adds the PXN hop) and reuses its latency for every pair
  // of that kind: true of every built-in preset (every such route crosses the same kinds of
  // links and switches), here with enough nodes for every tier.
  for (const std::string& name : builtin_preset_names()) {
    const HardwarePreset preset = builtin_preset(name);
    // 64 nodes, or as many as the preset's network takes (rtx2080ti-8: 16).
    const int nodes = name == "rtx2080ti-8" ? 16 : 64;
    const Cluster c(preset, nodes);
    const Topology& t = c.topology();
    std::vector<double> of_level;
    const int n = c.num_gpus();
    for (int src = 0; src < n; src += 3) {
      for (int dst = 0; dst < n; dst += 5) {
        const Route r = c.route(src, dst);
        const bool cross = r.level >= 2 && t.rail_of(src) != t.rail_of(dst) && t.rails() > 1;
        const auto lv = static_cast<std::size_t>(2 * r.level + (cross ? 1 : 0));
        if (lv >= of_level.size()) of_level.resize(lv + 1, -1.0);
        if (of_level[lv] < 0) of_level[lv] = r.latency_s;
        EXPECT_EQ(r.latency_s, of_level[lv]) << name << ": " << src << " -> " << dst;
      }
    }
    EXPECT_GE(of_level.size(), 5u) << name;  // levels 0, 1 and 2 at least
  }
}

// dgx-a100: GPU 0 -> GPU 5 in node 0 crosses NVSwitch 0: two links of 300 GB/s; latency is one
// NVSwitch traversal (1 us, split 0.5 + 0.5 over the two links).
TEST(ClusterRoute, SameNodeGoesThroughTheNvswitch) {
  const Cluster c(builtin_preset("dgx-a100"), 2);
  const Route r = c.route(0, 5);
  EXPECT_EQ(r.level, 1);
  EXPECT_EQ(c.level_name(1), "scale_up");
  EXPECT_EQ(link_names(c, r), (std::vector<std::string>{"gpu0->nvswitch0", "nvswitch0->gpu5"}));
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 300e9);
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, c.scale_up_Bps_per_gpu());
  EXPECT_NEAR(r.latency_s, 1.0e-6, 1e-15);
  // Node 1's GPUs use NVSwitch 1.
  EXPECT_EQ(link_names(c, c.route(9, 8)),
            (std::vector<std::string>{"gpu9->nvswitch1", "nvswitch1->gpu8"}));
}

// dgx-a100 (rail-optimised), 2 nodes in one rack: GPU 0 (node 0) -> GPU 8 (node 1, local 0)
// goes GPU -> own NIC -> rail-0 switch -> NIC -> GPU. Bottleneck: the 200 Gbit/s NIC = 25e9 B/s.
// Latency: two NIC traversals (1 us each) + one rack switch (0.13 us) = 2.13 us. GPU 0 -> GPU 11
// (local 3, rail 3) first crosses the NVSwitch to GPU 3 (PXN): + 1 us.
TEST(ClusterRoute, AcrossNodesInARackGoesThroughTheNics) {
  const Cluster c(builtin_preset("dgx-a100"), 2);
  const Route r = c.route(0, 8);
  EXPECT_EQ(r.level, 2);
  EXPECT_EQ(c.level_name(2), "rack");
  EXPECT_EQ(link_names(c, r), (std::vector<std::string>{"gpu0->nic0", "nic0->rack0.rail0",
                                                        "rack0.rail0->nic8", "nic8->gpu8"}));
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 25e9);
  EXPECT_NEAR(r.latency_s, 2.13e-6, 1e-15);
  const Route pxn = c.route(0, 11);
  EXPECT_EQ(pxn.level, 2);
  EXPECT_EQ(link_names(c, pxn),
            (std::vector<std::string>{"gpu0->nvswitch0", "nvswitch0->gpu3", "gpu3->nic3",
                                      "nic3->rack0.rail3", "rack0.rail3->nic11", "nic11->gpu11"}));
  EXPECT_NEAR(pxn.latency_s, 3.13e-6, 1e-15);
}

// Small preset (hw_test_util.hpp), 16 nodes x 2 GPUs, one 100 Gbit/s NIC per node:
//   GPU 0 (node 0, rack 0, pod 0) -> GPU 4 (node 2, rack 1, pod 0): lowest common switch pod0.
//   Links: gpu0->nic0, nic0->rack0, rack0->pod0, pod0->rack1, rack1->nic2, nic2->gpu4.
//   Bandwidths: NIC 12.5e9; rack uplink 2 x 12.5e9 / 4 = 6.25e9 -> bottleneck 6.25e9.
//   Latency: NIC 1 + rack 0.5 + pod 2 + rack 0.5 + NIC 1 = 5 us.
TEST(ClusterRoute, AcrossRacksIsLimitedByTheOversubscribedUplink) {
  const Cluster c(preset_from_yaml(kSmallPresetYaml), 16);
  const Route r = c.route(0, 4);
  EXPECT_EQ(r.level, 3);
  EXPECT_EQ(c.level_name(3), "pod");
  EXPECT_EQ(link_names(c, r),
            (std::vector<std::string>{"gpu0->nic0", "nic0->rack0", "rack0->pod0", "pod0->rack1",
                                      "rack1->nic2", "nic2->gpu4"}));
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 6.25e9);
  EXPECT_NEAR(r.latency_s, 5e-6, 1e-15);
  EXPECT_DOUBLE_EQ(c.tier_uplink_Bps(0), 6.25e9);

  // GPU 1 -> GPU 17 (node 8: rack 4, pod 1): through the building switch.
  //   Bottleneck still the rack uplink 6.25e9 (pod uplink 4 x 6.25e9 / 2 = 12.5e9).
  //   Latency: 1 + 0.5 + 2 + 4 + 2 + 0.5 + 1 = 11 us.
  const Route far = c.route(1, 17);
  EXPECT_EQ(far.level, 4);
  EXPECT_EQ(c.level_name(4), "building");
  EXPECT_EQ(far.links.size(), 8u);
  EXPECT_DOUBLE_EQ(far.bottleneck_Bps, 6.25e9);
  EXPECT_NEAR(far.latency_s, 11e-6, 1e-15);
  EXPECT_DOUBLE_EQ(c.tier_uplink_Bps(1), 12.5e9);
}

// With a 16:1 pod uplink the pod tier becomes the bottleneck of cross-pod routes only:
//   pod uplink = 4 x 6.25e9 / 16 = 1.5625e9.
TEST(ClusterRoute, BottleneckMovesToTheTierThatIsMostOversubscribed) {
  const Cluster c(
      preset_from_yaml(replaced(kSmallPresetYaml, "oversubscription: 2", "oversubscription: 16")),
      16);
  EXPECT_DOUBLE_EQ(c.route(0, 4).bottleneck_Bps, 6.25e9);     // same pod
  EXPECT_DOUBLE_EQ(c.route(0, 17).bottleneck_Bps, 1.5625e9);  // across pods
}

// A 2-host NVLink domain (GB200 NVL72-style, scaled down): 4 GPUs per node, 2 nodes per
// NVSwitch domain, 4 nodes. GPU 1 (node 0) -> GPU 6 (node 1) stays on NVLink; GPU 1 -> GPU 9
// (node 2, domain 1) leaves through the NICs.
TEST(ClusterRoute, MultiHostScaleUpDomainRoutesOverNvlinkAcrossHosts) {
  std::string yaml = replaced(kSmallPresetYaml, "gpus_per_node: 2", "gpus_per_node: 4");
  yaml = replaced(yaml, "scale_up_domain_nodes: 1", "scale_up_domain_nodes: 2");
  const Cluster c(preset_from_yaml(yaml), 4);
  EXPECT_EQ(c.gpus_per_scale_up_domain(), 8);
  EXPECT_EQ(c.num_scale_up_domains(), 2);
  EXPECT_EQ(c.node_of(6), 1);
  EXPECT_EQ(c.scale_up_domain_of(6), 0);
  EXPECT_EQ(c.scale_up_domain_of(9), 1);

  const Route nvlink = c.route(1, 6);
  EXPECT_EQ(nvlink.level, 1);
  EXPECT_EQ(link_names(c, nvlink),
            (std::vector<std::string>{"gpu1->nvswitch0", "nvswitch0->gpu6"}));
  EXPECT_DOUBLE_EQ(nvlink.bottleneck_Bps, 200e9);

  const Route out = c.route(1, 9);  // node 0 -> node 2: rack 0 -> rack 1, common switch pod0
  EXPECT_EQ(out.level, 3);
  EXPECT_EQ(out.links.size(), 6u);
  EXPECT_EQ(c.links().at(static_cast<std::size_t>(out.links.front())).name, "gpu1->nic0");
}

// hpc-a100x4: a direct NVLink3 mesh of 4 GPUs; each GPU's 300 GB/s is 100 GB/s to each of its 3
// peers, one link and one traversal (1 us).
TEST(ClusterRoute, DirectNvlinkMeshIsOneLinkAtThePairBandwidth) {
  const Cluster c(builtin_preset("hpc-a100x4"), 2);
  const Route r = c.route(0, 3);
  EXPECT_EQ(r.level, 1);
  EXPECT_EQ(link_names(c, r), (std::vector<std::string>{"gpu0->gpu3"}));
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 100e9);
  EXPECT_NEAR(r.latency_s, 1e-6, 1e-15);
  EXPECT_EQ(link_names(c, c.route(6, 5)), (std::vector<std::string>{"gpu6->gpu5"}));
}

// rtx2080ti-8: PCIe 3.0 x16, 15.75 GB/s per direction, one PCIe switch per host.
TEST(ClusterRoute, PcieHostRoutesThroughThePcieSwitch) {
  const Cluster c(builtin_preset("rtx2080ti-8"), 1);
  const Route r = c.route(0, 7);
  EXPECT_EQ(link_names(c, r), (std::vector<std::string>{"gpu0->pcie0", "pcie0->gpu7"}));
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 15.75e9);
  EXPECT_NEAR(r.latency_s, 3e-6, 1e-15);
}

TEST(ClusterRoute, SeveralNicsPerGpuAddUp) {
  // 2 GPUs, 4 NICs of 100 Gbit/s: each GPU has 2 NICs = 25e9 B/s.
  const Cluster c(
      preset_from_yaml(replaced(kSmallPresetYaml, "nics_per_node: 1", "nics_per_node: 4")), 2);
  EXPECT_DOUBLE_EQ(c.scale_out_Bps_per_gpu(), 25e9);
  EXPECT_DOUBLE_EQ(c.route(0, 2).bottleneck_Bps, 25e9);
}

TEST(ClusterRoute, GpusSharingANicUseTheSameNic) {
  const Cluster c(preset_from_yaml(kSmallPresetYaml), 2);  // 2 GPUs per node, 1 NIC
  EXPECT_DOUBLE_EQ(c.scale_out_Bps_per_gpu(), 6.25e9);     // 12.5e9 / 2
  EXPECT_EQ(c.links().at(static_cast<std::size_t>(c.route(0, 2).links[0])).name, "gpu0->nic0");
  EXPECT_EQ(c.links().at(static_cast<std::size_t>(c.route(1, 2).links[0])).name, "gpu1->nic0");
}

// Properties over every pair of a cluster with every kind of level: the route's latency is the
// sum and its bottleneck the minimum of its links; the links chain from src to dst; the reverse
// route uses the reverse links; the level matches level_between and the number of links.
void check_all_pairs(const Cluster& c) {
  const Topology& t = c.topology();
  for (int s = 0; s < c.num_gpus(); ++s) {
    for (int d = 0; d < c.num_gpus(); ++d) {
      const Route r = c.route(s, d);
      ASSERT_EQ(r.level, c.level_between(s, d));
      if (s == d) {
        ASSERT_TRUE(r.links.empty());
        continue;
      }
      // A rail-optimised cross-rail route starts with the scale-up path to the proxy (PXN).
      const bool pxn = r.level >= 2 && t.rails() > 1 && t.rail_of(s) != t.rail_of(d);
      const std::size_t scale_up = t.direct_mesh() ? 1u : 2u;
      const std::size_t expected_links =
          r.level == 1 ? scale_up : static_cast<std::size_t>(2 * r.level) + (pxn ? scale_up : 0u);
      ASSERT_EQ(r.links.size(), expected_links) << s << "->" << d;
      double sum_s = 0;
      double min_Bps = 1e300;
      int at = t.gpu_vertex(s);
      std::set<int> seen;
      for (int id : r.links) {
        const LinkInfo& l = c.links().at(static_cast<std::size_t>(id));
        ASSERT_EQ(l.id, id);
        ASSERT_EQ(t.link_source(id), at) << l.name;
        ASSERT_TRUE(seen.insert(id).second);
        at = t.link_target(id);
        sum_s += l.spec.latency_s;
        min_Bps = std::min(min_Bps, l.spec.bandwidth_Bps);
      }
      ASSERT_EQ(at, t.gpu_vertex(d));
      ASSERT_NEAR(r.latency_s, sum_s, 1e-18);
      ASSERT_DOUBLE_EQ(r.bottleneck_Bps, min_Bps);
      const Route back = c.route(d, s);
      ASSERT_EQ(back.links.size(), r.links.size());
      // PXN relays on the sender's node, so a cross-rail route and its reverse cross different
      // scale-up links (same kinds, same latency and bottleneck); otherwise they mirror.
      for (std::size_t i = 0; i < r.links.size() && !pxn; ++i) {
        ASSERT_EQ(back.links[r.links.size() - 1 - i], t.reverse_link(r.links[i]));
      }
      ASSERT_NEAR(back.latency_s, r.latency_s, 1e-18);
      ASSERT_DOUBLE_EQ(back.bottleneck_Bps, r.bottleneck_Bps);
    }
  }
}

TEST(ClusterRouteProperties, HoldForEveryPair) {
  {
    SCOPED_TRACE("small, 16 nodes, 3 tiers");
    check_all_pairs(Cluster(preset_from_yaml(kSmallPresetYaml), 16));
  }
  {
    SCOPED_TRACE("small, 2-node scale-up domains");
    std::string yaml =
        replaced(kSmallPresetYaml, "scale_up_domain_nodes: 1", "scale_up_domain_nodes: 2");
    check_all_pairs(Cluster(preset_from_yaml(yaml), 12));
  }
  {
    SCOPED_TRACE("hpc-a100x4 mesh");
    check_all_pairs(Cluster(builtin_preset("hpc-a100x4"), 3));
  }
  {
    SCOPED_TRACE("dgx-a100, 3 racks");
    check_all_pairs(Cluster(builtin_preset("dgx-a100"), 41));
  }
}

TEST(ClusterTiers, GroupsAndUplinks) {
  // dgx-a100: racks of 20 nodes, pods of 7 racks. 50 nodes: racks 20 + 20 + 10 -> 3 groups.
  const Cluster c(builtin_preset("dgx-a100"), 50);
  EXPECT_EQ(c.num_tiers(), 3);
  EXPECT_EQ(c.num_levels(), 5);
  EXPECT_EQ(c.num_tier_groups(0), 3);
  EXPECT_EQ(c.num_tier_groups(1), 1);
  EXPECT_EQ(c.num_tier_groups(2), 1);
  EXPECT_EQ(c.tier_group_of(8 * 45, 0), 2);  // node 45
  EXPECT_EQ(c.tier_group_of(8 * 45, 1), 0);
  EXPECT_EQ(c.tier_group_of(8 * 19 + 7, 0), 0);  // node 19, last of rack 0
  EXPECT_EQ(c.tier_group_of(8 * 20, 0), 1);
  // Rack uplink: 20 nodes x 8 NICs x 25e9 B/s / 1 = 4e12; pod: 7 x 4e12 / 4 = 7e12.
  EXPECT_DOUBLE_EQ(c.tier_uplink_Bps(0), 4e12);
  EXPECT_DOUBLE_EQ(c.tier_uplink_Bps(1), 7e12);
  EXPECT_DOUBLE_EQ(c.scale_out_Bps_per_gpu(), 25e9);
  EXPECT_EQ(c.level_between(0, 8 * 45), 3);  // rack 0 -> rack 2: common switch pod0
  EXPECT_THROW((void)c.level_name(5), std::out_of_range);
  EXPECT_THROW((void)c.route(0, c.num_gpus()), std::out_of_range);
}

TEST(ClusterValidation, BadNodeCountsNameClusterNodes) {
  const HardwarePreset small = preset_from_yaml(kSmallPresetYaml);
  std::string msg = input_error_message([&] { Cluster c(small, 0); });
  EXPECT_NE(msg.find("cluster.nodes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at least 1"), std::string::npos) << msg;

  // Capacity: building fanout 2 pods x 4 racks x 2 nodes = 16 nodes.
  msg = input_error_message([&] { Cluster c(small, 17); });
  EXPECT_NE(msg.find("cluster.nodes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("capacity of 16 nodes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("building"), std::string::npos) << "the hint names the top tier: " << msg;

  const HardwarePreset two = preset_from_yaml(
      replaced(kSmallPresetYaml, "scale_up_domain_nodes: 1", "scale_up_domain_nodes: 2"));
  msg = input_error_message([&] { Cluster c(two, 3); });
  EXPECT_NE(msg.find("cluster.nodes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("whole scale-up domains"), std::string::npos) << msg;
  EXPECT_NE(msg.find("e.g. 2 or 4"), std::string::npos) << msg;
}

TEST(ClusterValueSemantics, CopiesAndMovesKeepTheTopology) {
  const Cluster a(preset_from_yaml(kSmallPresetYaml), 16);
  Cluster b = a;  // copy
  EXPECT_EQ(b.links().size(), a.links().size());
  EXPECT_EQ(b.route(0, 17).links, a.route(0, 17).links);
  Cluster c(builtin_preset("dgx-a100"), 1);
  c = b;  // copy-assign
  EXPECT_EQ(c.num_gpus(), 32);
  EXPECT_EQ(c.route(1, 30).links, a.route(1, 30).links);
  const Cluster d = std::move(c);  // move
  EXPECT_DOUBLE_EQ(d.route(0, 4).bottleneck_Bps, 6.25e9);
}

// 4096 GPUs (512 DGX-H100 nodes) build in well under a second, and random routes are O(depth).
TEST(ClusterScale, FourThousandGpusBuildQuickly) {
  const HardwarePreset p = builtin_preset("dgx-h100");
  const auto start = std::chrono::steady_clock::now();
  const Cluster c(p, 512);
  const double build_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(c.num_gpus(), 4096);
  EXPECT_LT(build_s, 1.0);
  // 512 nodes: 16 racks of 32 nodes, 4 pods of 4 racks, one building.
  EXPECT_EQ(c.num_tier_groups(0), 16);
  EXPECT_EQ(c.num_tier_groups(1), 4);

  Rng rng(stream_seed(42, {7}));
  const auto route_start = std::chrono::steady_clock::now();
  std::size_t total_links = 0;
  for (int i = 0; i < 100000; ++i) {
    const int s = static_cast<int>(rng.below(4096));
    const int d = static_cast<int>(rng.below(4096));
    const Route r = c.route(s, d);
    total_links += r.links.size();
    ASSERT_LE(r.links.size(), 10u);  // PXN hop, then depth: GPU, NIC, rack, pod, building
  }
  const double route_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - route_start).count();
  EXPECT_GT(total_links, 0u);
  EXPECT_LT(route_s, 2.0);
  const Route far = c.route(0, 4095);
  EXPECT_EQ(far.level, 4);
  EXPECT_EQ(c.level_name(far.level), "building");
}

}  // namespace
}  // namespace shardsim
