// AllReduce (flat ring and hierarchical), ReduceScatter, AllGather.
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <vector>

#include "../support/ideal_cost.hpp"
#include "round_presets.hpp"
#include "shardsim/cost/collective_cost.hpp"

namespace shardsim::ring_collective_cost_test {
namespace {

using test::ideal_collectives;
using test::round_preset;

std::vector<int> iota_gpus(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

constexpr double kGB = 1e9;

TEST(RingCollectiveCost, AllReduceInsideANode) {
  // GPUs 0,1 share an NVSwitch (100 GB/s): 2·(1/2)·1 GB / 100 GB/s = 10 ms (+ 2·α_up).
  const Cluster cluster(round_preset(2), 2);
  const std::vector<int> gpus = {0, 1};
  EXPECT_NEAR(allreduce_s(cluster, gpus, kGB, ideal_collectives()), 10e-3, 1e-12);
}

TEST(RingCollectiveCost, FlatRingAcrossNodesUsesEveryRail) {
  // 2 nodes x 2 GPUs, 10 GB/s NIC share: 2·(3/4)·1 GB split over 2 rings (one per rail, each
  // leaving a node through another GPU's NIC) / 10 GB/s = 75 ms
  const Cluster cluster(round_preset(2), 2);
  EXPECT_NEAR(allreduce_ring_s(cluster, iota_gpus(4), kGB, ideal_collectives()), 75e-3, 1e-12);
}

TEST(RingCollectiveCost, HierarchicalBeatsFlatRingAcrossNodes) {
  // Hierarchical, g = 2 GPUs per node, d = 2 nodes:
  //   reduce-scatter in node  (1/2)·1 GB / 100 GB/s           =  5 ms
  //   AllReduce across nodes  2·(1/2)·0.5 GB / 10 GB/s        = 50 ms
  //   all-gather in node      (1/2)·1 GB / 100 GB/s           =  5 ms
  //   total 60 ms < 75 ms flat over two rails
  const Cluster cluster(round_preset(2), 2);
  const CostParams p = ideal_collectives();
  const auto gpus = iota_gpus(4);
  EXPECT_NEAR(allreduce_hierarchical_s(cluster, gpus, kGB, p), 60e-3, 1e-12);
  EXPECT_NEAR(allreduce_s(cluster, gpus, kGB, p), 60e-3, 1e-12);
  EXPECT_LT(allreduce_s(cluster, gpus, kGB, p), allreduce_ring_s(cluster, gpus, kGB, p));
}

TEST(RingCollectiveCost, LatencyTermsPerStep) {
  // With 1 us per link, α comes from the route of the level each phase crosses:
  //   flat:           75 ms + 2·3·α_out + launch
  //   hierarchical:   60 ms + 1·α_up + 2·1·α_out + 1·α_up + launch
  // Default efficiency 0.85 divides the bandwidth terms; launch 10 us once.
  const Cluster cluster(round_preset(2, 64, 1, 1e-6), 2);
  const CostParams p = ideal_default_cost_params();
  const double a_up = cluster.route(0, 1).latency_s;
  const double a_out = cluster.route(3, 0).latency_s;
  const auto gpus = iota_gpus(4);
  EXPECT_NEAR(allreduce_ring_s(cluster, gpus, kGB, p), 75e-3 / 0.85 + 6 * a_out + 10e-6, 1e-12);
  EXPECT_NEAR(allreduce_hierarchical_s(cluster, gpus, kGB, p),
              60e-3 / 0.85 + 2 * a_up + 2 * a_out + 10e-6, 1e-12);
}

TEST(RingCollectiveCost, SmallMessagesPreferTheVariantWithFewerSteps) {
  // At 1 KB the α terms dominate; allreduce_s is the faster of the two whatever they are.
  const Cluster cluster(round_preset(8, 64, 1, 5e-6), 4);
  const CostParams p = ideal_default_cost_params();
  const auto gpus = iota_gpus(32);
  const double ring = allreduce_ring_s(cluster, gpus, 1e3, p);
  const double hier = allreduce_hierarchical_s(cluster, gpus, 1e3, p);
  EXPECT_DOUBLE_EQ(allreduce_s(cluster, gpus, 1e3, p), std::min(ring, hier));
  // Flat: 62 steps of α_out; hierarchical: 14 α_up + 6 α_out: fewer, so it wins here too.
  EXPECT_LT(hier, ring);
}

TEST(RingCollectiveCost, UnevenDomainsAreCostedConservatively) {
  // GPUs {0, 1, 2}: node 0 holds two, node 1 one. g_max = 2, g_min = 1, d = 2:
  //   5 ms + 2·(1/2)·1 GB / 10 GB/s (chunk S / g_min = S) + 5 ms = 110 ms
  //   flat: 2·(2/3)·1 GB / 10 GB/s = 133.33 ms -> AllReduce takes 110 ms
  const Cluster cluster(round_preset(2), 2);
  const std::vector<int> gpus = {0, 1, 2};
  const CostParams p = ideal_collectives();
  EXPECT_NEAR(allreduce_hierarchical_s(cluster, gpus, kGB, p), 110e-3, 1e-12);
  EXPECT_NEAR(allreduce_ring_s(cluster, gpus, kGB, p), 2.0 * 2.0 / 3.0 * 0.1, 1e-12);
  EXPECT_NEAR(allreduce_s(cluster, gpus, kGB, p), 110e-3, 1e-12);
}

TEST(RingCollectiveCost, OneGpuPerNodeHasNoHierarchy) {
  const Cluster cluster(round_preset(1), 4);
  const CostParams p = ideal_collectives();
  const auto gpus = iota_gpus(4);
  // 2·(3/4)·1 GB / 10 GB/s = 150 ms either way.
  EXPECT_NEAR(allreduce_hierarchical_s(cluster, gpus, kGB, p), 150e-3, 1e-12);
  EXPECT_NEAR(allreduce_s(cluster, gpus, kGB, p), 150e-3, 1e-12);
}

TEST(RingCollectiveCost, ReduceScatterAndAllGather) {
  // (N−1)/N · S / bw: across nodes (3/4)·1 GB over 2 rails / 10 GB/s = 37.5 ms; inside a node
  // (1/2)·1 GB / 100 GB/s = 5 ms. Launch once, (N−1) α steps.
  const Cluster cluster(round_preset(2, 64, 1, 1e-6), 2);
  const CostParams ideal = ideal_collectives();
  const double a_out = cluster.route(3, 0).latency_s;
  const double a_up = cluster.route(0, 1).latency_s;
  const auto all = iota_gpus(4);
  const std::vector<int> node0 = {0, 1};
  EXPECT_NEAR(reduce_scatter_s(cluster, all, kGB, ideal), 37.5e-3 + 3 * a_out, 1e-12);
  EXPECT_NEAR(allgather_s(cluster, all, kGB, ideal), 37.5e-3 + 3 * a_out, 1e-12);
  EXPECT_NEAR(reduce_scatter_s(cluster, node0, kGB, ideal), 5e-3 + a_up, 1e-12);
  const CostParams p = ideal_default_cost_params();
  EXPECT_NEAR(allgather_s(cluster, all, kGB, p), 37.5e-3 / 0.85 + 3 * a_out + 10e-6, 1e-12);
}

TEST(RingCollectiveCost, OrderOfTheGpuListDoesNotMatter) {
  const Cluster cluster(round_preset(2, 64, 1, 1e-6), 2);
  const CostParams p = ideal_default_cost_params();
  const std::vector<int> shuffled = {3, 1, 0, 2};
  EXPECT_DOUBLE_EQ(allreduce_s(cluster, shuffled, kGB, p),
                   allreduce_s(cluster, iota_gpus(4), kGB, p));
}

TEST(RingCollectiveCost, MonotoneInBytes) {
  const Cluster cluster(round_preset(4, 2, 2.0, 1e-6), 8);
  const CostParams p = ideal_default_cost_params();
  const auto gpus = iota_gpus(32);
  double prev_ar = 0;
  double prev_rs = 0;
  for (double bytes : {1e3, 1e5, 1e7, 1e9}) {
    const double ar = allreduce_s(cluster, gpus, bytes, p);
    const double rs = reduce_scatter_s(cluster, gpus, bytes, p);
    EXPECT_GT(ar, prev_ar);
    EXPECT_GT(rs, prev_rs);
    prev_ar = ar;
    prev_rs = rs;
  }
}

TEST(RingCollectiveCost, OneGpuOrZeroBytesCostNothing) {
  const Cluster cluster(round_preset(2, 64, 1, 1e-6), 2);
  const CostParams p = ideal_default_cost_params();
  const std::vector<int> one = {2};
  EXPECT_EQ(allreduce_s(cluster, one, kGB, p), 0.0);
  EXPECT_EQ(allreduce_s(cluster, iota_gpus(4), 0, p), 0.0);
  EXPECT_EQ(reduce_scatter_s(cluster, one, kGB, p), 0.0);
  EXPECT_EQ(allgather_s(cluster, std::vector<int>{}, kGB, p), 0.0);
}

TEST(RingCollectiveCost, BadGpuListsAreRejected) {
  const Cluster cluster(round_preset(2), 2);
  const CostParams p = ideal_default_cost_params();
  EXPECT_THROW(allreduce_s(cluster, std::vector<int>{0, 4}, kGB, p), std::invalid_argument);
  EXPECT_THROW(allreduce_s(cluster, std::vector<int>{1, 1}, kGB, p), std::invalid_argument);
  EXPECT_THROW(allreduce_s(cluster, iota_gpus(4), -1, p), std::invalid_argument);
}

// AllReduceTimes: the same times as allreduce_s for any size, from demands built once (the lines
// cross: small buffers prefer the variant with fewer latency steps, large ones the hierarchical).
TEST(RingCollectiveCost, AllReduceTimesMatchAllReduceForEverySize) {
  const Cluster cluster(round_preset(8, 64, 1, 5e-6), 4);
  const CostParams p = ideal_collectives();
  for (const std::vector<int>& gpus :
       {iota_gpus(32), iota_gpus(8), std::vector<int>{0, 1, 9}, std::vector<int>{3, 17, 30}}) {
    const AllReduceTimes times(cluster, gpus, p);
    for (double bytes : {1.0, 512.0, 65536.0, 1e6, 3.3e7, 1e9, 4e10}) {
      const double direct = allreduce_s(cluster, gpus, bytes, p);
      EXPECT_NEAR(times.at(bytes), direct, 1e-12 * direct) << bytes << " bytes, " << gpus.size();
    }
    EXPECT_EQ(times.at(0.0), 0.0);
    EXPECT_THROW(times.at(-1.0), std::invalid_argument);
  }
  EXPECT_EQ(AllReduceTimes(cluster, std::vector<int>{5}, p).at(1e9), 0.0);
  EXPECT_THROW(AllReduceTimes(cluster, std::vector<int>{0, 0}, p), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim::ring_collective_cost_test
