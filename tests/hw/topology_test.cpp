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

// dgx-a100 x 2 nodes, hand count:
//   vertices: 16 GPUs + 2 NVSwitches + 16 NICs + rack0 + pod0 + building0 = 37
//   link pairs: 16 GPU-NVSwitch + 16 GPU-NIC + 16 NIC-rack + rack-pod + pod-building = 50
TEST(Topology, CountsVerticesAndLinks) {
  const Cluster c(builtin_preset("dgx-a100"), 2);
  const Topology& t = c.topology();
  EXPECT_EQ(t.num_vertices(), 37);
  EXPECT_EQ(t.num_links(), 100);
  EXPECT_EQ(static_cast<int>(boost::num_edges(t.graph())), 100);
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
