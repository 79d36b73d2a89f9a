// Topology: the Boost.Graph graph behind Cluster, its links and its BFS tree.
#include <gtest/gtest.h>

#include <boost/graph/breadth_first_search.hpp>
#include <set>
#include <string>
#include <vector>

#include "hw/hw_test_util.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {
namespace {

using test::kSmallPresetYaml;
using test::preset_from_yaml;
using test::replaced;

// dgx-a100 x 2 nodes (rail-optimised: one rack switch per rail), hand count:
//   vertices: 16 GPUs + 2 NVSwitches + 16 NICs + 8 rail switches + pod0 + building0 = 44
//   link pairs: 16 GPU-NVSwitch + 16 GPU-NIC + 16 NIC-rail + 8 rail-pod + pod-building = 57
TEST(Topology, CountsVerticesAndLinks) {
  const Cluster c(builtin_preset("dgx-a100"), 2);
  const Topology& t = c.topology();
  EXPECT_EQ(t.num_vertices(), 44);
  EXPECT_EQ(t.num_links(), 114);
  EXPECT_EQ(static_cast<int>(boost::num_edges(t.graph())), 114);
  EXPECT_EQ(t.vertex_name(t.rail_switch_vertex(0, 7)), "rack0.rail7");
  EXPECT_EQ(t.vertex_name(t.scale_up_switch_vertex(1)), "nvswitch1");
  EXPECT_EQ(t.vertex_name(t.nic_vertex(11)), "nic11");
  EXPECT_EQ(t.vertex_name(t.tier_switch_vertex(2, 0)), "building0");
}

TEST(Topology, GraphEdgesAndLinkTableAgree) {
  const Cluster c(preset_from_yaml(kSmallPresetYaml), 16);
  const Topology& t = c.topology();
  std::set<std::string> names;
  std::set<int> ids;
  for (auto [it, end] = boost::edges(t.graph()); it != end; ++it) {
    const TopoEdge& e = t.graph()[*it];
    ASSERT_TRUE(ids.insert(e.id).second);
    EXPECT_EQ(t.link_source(e.id), static_cast<int>(boost::source(*it, t.graph())));
    EXPECT_EQ(t.link_target(e.id), static_cast<int>(boost::target(*it, t.graph())));
  }
  EXPECT_EQ(static_cast<int>(ids.size()), t.num_links());
  for (const LinkInfo& l : t.links()) {
    ASSERT_TRUE(names.insert(l.name).second) << "duplicate link name " << l.name;
    EXPECT_EQ(l.name,
              t.vertex_name(t.link_source(l.id)) + "->" + t.vertex_name(t.link_target(l.id)));
    const int r = t.reverse_link(l.id);
    EXPECT_NE(r, l.id);
    EXPECT_EQ(t.reverse_link(r), l.id);
    EXPECT_EQ(t.link_source(r), t.link_target(l.id));
    EXPECT_DOUBLE_EQ(t.links()[static_cast<std::size_t>(r)].spec.bandwidth_Bps,
                     l.spec.bandwidth_Bps);
    EXPECT_DOUBLE_EQ(t.links()[static_cast<std::size_t>(r)].spec.latency_s, l.spec.latency_s);
    EXPECT_GT(l.spec.bandwidth_Bps, 0);
  }
}

// Link specs: NVSwitch link 200e9 and 0.5 us (half a traversal); GPU->NIC 12.5e9 and 0.5 us
// (half the NIC's 1 us); NIC->rack 0.5 + 0.25 = 0.75 us; rack->pod 6.25e9 (rack uplink),
// 0.25 + 1 = 1.25 us; pod->building 12.5e9, 1 + 2 = 3 us.
TEST(Topology, LinkSpecsFollowThePreset) {
  const Cluster c(preset_from_yaml(kSmallPresetYaml), 16);
  std::map<std::string, LinkSpec> by_name;
  for (const LinkInfo& l : c.links()) by_name[l.name] = l.spec;
  auto expect = [&](const std::string& name, double bw_Bps, double lat_s) {
    ASSERT_TRUE(by_name.count(name)) << name;
    EXPECT_DOUBLE_EQ(by_name[name].bandwidth_Bps, bw_Bps) << name;
    EXPECT_NEAR(by_name[name].latency_s, lat_s, 1e-15) << name;
  };
  expect("gpu3->nvswitch1", 200e9, 0.5e-6);
  expect("nvswitch1->gpu2", 200e9, 0.5e-6);
  expect("gpu3->nic1", 12.5e9, 0.5e-6);
  expect("nic1->rack0", 12.5e9, 0.75e-6);
  expect("rack0->pod0", 6.25e9, 1.25e-6);
  expect("pod1->rack5", 6.25e9, 1.25e-6);
  expect("pod0->building0", 12.5e9, 3e-6);
}

TEST(Topology, BfsTreeHasTheExpectedParents) {
  const Cluster c(preset_from_yaml(kSmallPresetYaml), 16);
  const Topology& t = c.topology();
  for (int g = 0; g < c.num_gpus(); ++g) {
    EXPECT_EQ(t.parent(g), t.nic_vertex(g));
    EXPECT_EQ(t.link_target(t.up_link(g)), t.nic_vertex(g));
    EXPECT_EQ(t.link_source(t.down_link(g)), t.nic_vertex(g));
    EXPECT_EQ(t.parent(t.nic_vertex(g)), t.tier_switch_vertex(0, c.tier_group_of(g, 0)));
  }
  for (int rack = 0; rack < c.num_tier_groups(0); ++rack) {
    EXPECT_EQ(t.parent(t.tier_switch_vertex(0, rack)), t.tier_switch_vertex(1, rack / 4));
  }
  const int root = t.tier_switch_vertex(2, 0);
  EXPECT_EQ(t.parent(root), -1);
  EXPECT_EQ(t.up_link(root), -1);
  EXPECT_EQ(t.parent(t.scale_up_switch_vertex(0)), -1);  // not part of the scale-out tree
}

// Route hop counts equal unweighted shortest paths found by a BFS over the whole graph (which
// may use any link, scale-up or scale-out): the tree path is never longer than an alternative.
void check_routes_are_shortest(const Cluster& c) {
  const Topology& t = c.topology();
  const auto n = static_cast<std::size_t>(t.num_vertices());
  for (int s = 0; s < c.num_gpus(); ++s) {
    std::vector<int> dist(n, -1);
    dist[static_cast<std::size_t>(s)] = 0;
    const auto recorder = boost::record_distances(dist.data(), boost::on_tree_edge());
    boost::breadth_first_search(t.graph(), static_cast<std::size_t>(t.gpu_vertex(s)),
                                boost::visitor(boost::make_bfs_visitor(recorder)));
    for (int d = 0; d < c.num_gpus(); ++d) {
      ASSERT_EQ(static_cast<int>(c.route(s, d).links.size()),
                dist[static_cast<std::size_t>(t.gpu_vertex(d))])
          << s << "->" << d;
    }
  }
}

TEST(Topology, RoutesAreShortestPaths) {
  {
    SCOPED_TRACE("small preset, 16 nodes");
    check_routes_are_shortest(Cluster(preset_from_yaml(kSmallPresetYaml), 16));
  }
  {
    SCOPED_TRACE("2-node NVSwitch domains");
    const std::string yaml =
        replaced(kSmallPresetYaml, "scale_up_domain_nodes: 1", "scale_up_domain_nodes: 2");
    check_routes_are_shortest(Cluster(preset_from_yaml(yaml), 8));
  }
  {
    SCOPED_TRACE("NVLink mesh");
    check_routes_are_shortest(Cluster(builtin_preset("hpc-a100x4"), 4));
  }
}

TEST(Topology, DirectMeshHasPairLinksAndNoSwitch) {
  const Cluster c(builtin_preset("hpc-a100x4"), 1);
  const Topology& t = c.topology();
  EXPECT_TRUE(t.direct_mesh());
  EXPECT_EQ(t.scale_up_switch_vertex(0), -1);
  int mesh_links = 0;
  for (auto [it, end] = boost::edges(t.graph()); it != end; ++it) {
    if (t.graph()[*it].kind == LinkKind::scale_up) ++mesh_links;
  }
  EXPECT_EQ(mesh_links, 4 * 3);  // every ordered pair of 4 GPUs
}

TEST(Topology, TierHelpers) {
  const HardwarePreset p = preset_from_yaml(kSmallPresetYaml);
  EXPECT_EQ(tier_capacity_nodes(p, 0), 2);
  EXPECT_EQ(tier_capacity_nodes(p, 1), 8);
  EXPECT_EQ(tier_capacity_nodes(p, 2), 16);
  EXPECT_DOUBLE_EQ(tier_uplink_Bps(p, 0), 6.25e9);
  EXPECT_DOUBLE_EQ(tier_uplink_Bps(p, 1), 12.5e9);
  EXPECT_DOUBLE_EQ(tier_uplink_Bps(p, 2), 25e9);  // top: 2 x 12.5e9 / 1, information only
  EXPECT_THROW((void)tier_uplink_Bps(p, 3), std::out_of_range);

  HardwarePreset huge = p;
  for (auto& t : huge.tiers) t.fanout = 1 << 20;  // 2^60 nodes: saturates, does not overflow
  EXPECT_GT(tier_capacity_nodes(huge, 2), std::int64_t{1} << 59);
}

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace {

// Two GPUs and two NICs a node, rail-optimised: NIC i of every node of a rack on the rack's
// rail switch i. 4 nodes = 2 racks (fanout 2).
HardwarePreset rail_preset() {
  return preset_from_yaml(replaced(replaced(kSmallPresetYaml, "nics_per_node: 1\n",
                                            "nics_per_node: 2\nscale_out_layout: rail_optimized\n"),
                                   "oversubscription: 4", "oversubscription: 1"));
}

TEST(RailTopology, OneTierZeroSwitchPerRailPerGroup) {
  const Cluster c(rail_preset(), 4);
  const Topology& t = c.topology();
  EXPECT_EQ(t.rails(), 2);
  EXPECT_EQ(t.num_tier_groups(0), 2);
  EXPECT_EQ(t.num_tier_switches(0), 4);
  EXPECT_EQ(t.vertex_name(t.rail_switch_vertex(1, 0)), "rack1.rail0");
  EXPECT_THROW((void)t.tier_switch_vertex(0, 0), std::logic_error);
  // NIC 1 of node 3 (rack 1) hangs off rack 1's rail switch 1.
  EXPECT_EQ(t.parent(t.nic_vertex(7)), t.rail_switch_vertex(1, 1));
  // A rail switch's uplink is its rail's share of the rack's: 2 nodes x 12.5 GB/s.
  const int up = t.up_link(t.rail_switch_vertex(0, 1));
  EXPECT_DOUBLE_EQ(t.links()[static_cast<std::size_t>(up)].spec.bandwidth_Bps, 25e9);
  EXPECT_EQ(t.rail_of(5), 1);
  EXPECT_EQ(t.rail_of(4), 0);
}

TEST(RailTopology, SameRailStaysOnItsSwitchAndAnotherRailCrossesNvlinkFirst) {
  const Cluster c(rail_preset(), 4);
  const Topology& t = c.topology();
  // gpu0 (node 0, rail 0) -> gpu2 (node 1, rail 0): GPU, NIC, rail switch, NIC, GPU.
  Route same = c.route(0, 2);
  EXPECT_EQ(same.level, 2);
  ASSERT_EQ(same.links.size(), 4u);
  EXPECT_EQ(t.link_target(same.links[1]), t.rail_switch_vertex(0, 0));
  // gpu0 -> gpu3 (node 1, rail 1): to gpu1 over the NVSwitch first (PXN), then rail 1.
  Route other = c.route(0, 3);
  EXPECT_EQ(other.level, 2);
  ASSERT_EQ(other.links.size(), 6u);
  EXPECT_EQ(t.link_kind(other.links[0]), LinkKind::scale_up);
  EXPECT_EQ(t.link_target(other.links[1]), 1);
  EXPECT_EQ(t.link_source(other.links[2]), 1);
  EXPECT_EQ(t.link_target(other.links[3]), t.rail_switch_vertex(0, 1));
  EXPECT_EQ(t.link_target(other.links[5]), 3);
  // Across racks: rail switch, pod, rail switch.
  Route far = c.route(0, 7);  // node 3 (rack 1), rail 1
  EXPECT_EQ(far.level, 3);
  EXPECT_EQ(t.link_target(far.links[3]), t.rail_switch_vertex(0, 1));
  EXPECT_EQ(t.link_target(far.links[5]), t.rail_switch_vertex(1, 1));
}

TEST(RailTopology, LayoutIsAChoice) {
  const std::string bad = replaced(kSmallPresetYaml, "nics_per_node: 1\n",
                                   "nics_per_node: 1\nscale_out_layout: rails\n");
  try {
    (void)preset_from_yaml(bad);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "scale_out_layout");
  }
  EXPECT_FALSE(preset_from_yaml(kSmallPresetYaml).rail_optimized);
}

}  // namespace
}  // namespace shardsim
