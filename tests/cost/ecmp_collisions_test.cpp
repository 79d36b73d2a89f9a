// ECMP hash collisions: the expected maximum bin load against closed forms and sampling.
#include "cost/ecmp_collisions.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "round_presets.hpp"
#include "shardsim/core/rng.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/collective_predictor.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {
namespace {

double sampled_max(std::int64_t balls, std::int64_t bins, int trials) {
  Rng rng(12345);
  std::vector<int> load(static_cast<std::size_t>(bins));
  double sum = 0;
  for (int t = 0; t < trials; ++t) {
    std::fill(load.begin(), load.end(), 0);
    int worst = 0;
    for (std::int64_t b = 0; b < balls; ++b) {
      const auto bin = static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(bins)));
      worst = std::max(worst, ++load[bin]);
    }
    sum += worst;
  }
  return sum / trials;
}

TEST(EcmpCollisions, DegenerateCases) {
  EXPECT_EQ(expected_max_bin_load(0, 8), 0);
  EXPECT_EQ(expected_max_bin_load(5, 1), 5);
  EXPECT_DOUBLE_EQ(expected_max_bin_load(1, 256), 1);
  EXPECT_EQ(ecmp_slowdown(0, 8), 1);
  EXPECT_EQ(ecmp_slowdown(100, 1), 1);
}

// Two balls: M = 2 with probability 1/m (the birthday collision), else 1.
TEST(EcmpCollisions, TwoBallsMatchTheBirthdayForm) {
  for (std::int64_t m : {2, 3, 16, 256}) {
    EXPECT_NEAR(expected_max_bin_load(2, m), 1.0 + 1.0 / static_cast<double>(m), 1e-12) << m;
  }
}

// Three balls in three bins: 27 outcomes; max 3 in 3, max 1 in 6 (permutations), max 2 in 18.
TEST(EcmpCollisions, ThreeBallsInThreeBinsByEnumeration) {
  EXPECT_NEAR(expected_max_bin_load(3, 3), (3.0 * 3 + 1.0 * 6 + 2.0 * 18) / 27.0, 1e-12);
}

// Both regimes (exact recursion, Poisson approximation) against sampling: within 4%.
TEST(EcmpCollisions, AgreesWithSampling) {
  struct Case {
    std::int64_t balls, bins;
  };
  for (const Case c : {Case{16, 256}, Case{200, 256}, Case{256, 64}, Case{300, 1024},
                       Case{2048, 256}, Case{20000, 128}}) {
    const double sampled = sampled_max(c.balls, c.bins, 2000);
    EXPECT_NEAR(expected_max_bin_load(c.balls, c.bins) / sampled, 1.0, 0.04)
        << c.balls << " balls in " << c.bins << " bins, sampled " << sampled;
  }
}

// Many flows per port spread well; few flows on many ports collide often.
TEST(EcmpCollisions, SlowdownFallsWithFlowsPerPort) {
  const double few = ecmp_slowdown(16, 256);      // λ = 1/16
  const double some = ecmp_slowdown(256, 256);    // λ = 1
  const double many = ecmp_slowdown(65536, 256);  // λ = 256
  EXPECT_GT(few, some);
  EXPECT_GT(some, many);
  EXPECT_GT(many, 1.0);
  // Large λ: E[M] ≈ λ + sqrt(2 λ ln m), so the slowdown ≈ 1 + sqrt(2 ln m / λ) ≈ 1.21.
  EXPECT_NEAR(many, 1.0 + std::sqrt(2.0 * std::log(256.0) / 256.0), 0.05);
}

// --- On the uplinks of a hashed tier (cost/demand_builder: docs/model.md, "ECMP hash
// collisions"). Four nodes of two GPUs, two racks of two nodes; each rack's uplink is
// 2 nodes x 2 NICs x 10 GB/s = 40 GB/s, four 10 GB/s ports.
HardwarePreset two_racks(LoadBalancing lb) {
  HardwarePreset p = test::round_preset(2, 2);
  p.tiers[0].load_balancing = lb;
  return p;
}

CostParams nccl_params(int flows_per_connection) {
  CostParams p = default_cost_params();
  p.collective_model = CollectiveModelKind::nccl;
  p.ecmp_flows_per_connection = flows_per_connection;
  return p;
}

double bytes_on(const CollectiveDemand& d, int link) {
  double sum = 0;
  for (const CollectiveStage& st : d.stages) {
    for (const DemandFlow& f : st.flows) {
      for (std::uint32_t k = 0; k < f.num_links; ++k) {
        if (st.links[f.first_link + k] == link) sum += f.bytes;
      }
    }
  }
  return sum;
}

TEST(EcmpUplinks, AlltoallUplinkBytesGrowByTheSlowdownOfItsPeerFlows) {
  const Cluster adaptive(two_racks(LoadBalancing::adaptive), 4);
  const Cluster hashed(two_racks(LoadBalancing::ecmp), 4);
  ASSERT_EQ(tier_uplink_ports(hashed.preset(), 0), 4);
  const double per_peer = 1e6;
  const CostParams p = nccl_params(2);
  const CollectiveDemand plain =
      alltoallv_demand(adaptive, uniform_alltoall_traffic(adaptive, per_peer * 8), p);
  const CollectiveDemand ecmp =
      alltoallv_demand(hashed, uniform_alltoall_traffic(hashed, per_peer * 8), p);
  const Topology& topo = hashed.topology();
  const int up = topo.up_link(topo.tier_switch_vertex(0, 0));
  // Rack 0's 4 GPUs each send 1 MB to each of the 4 GPUs of rack 1: 16 MB, 16 connections of 2
  // flows = 32 flows on 4 ports; 4 hashed uplinks (2 racks, up and down) load the stage.
  EXPECT_NEAR(bytes_on(plain, up), 16e6, 1e-3);
  EXPECT_NEAR(bytes_on(ecmp, up), 16e6 * ecmp_slowdown(32, 4, 4), 1e-3);
  EXPECT_GT(ecmp_slowdown(32, 4, 4), 1.2);
  // Links below the tier are untouched.
  const int nic_up = topo.up_link(topo.nic_vertex(0));
  EXPECT_DOUBLE_EQ(bytes_on(ecmp, nic_up), bytes_on(plain, nic_up));
}

TEST(EcmpUplinks, FewRingFlowsCollideAndMoreQueuePairsSpreadThem) {
  const Cluster adaptive(two_racks(LoadBalancing::adaptive), 4);
  const Cluster hashed(two_racks(LoadBalancing::ecmp), 4);
  const std::vector<int> all = all_gpu_ids(8);
  const double bytes = 1e9;
  const double base = allreduce_s(adaptive, all, bytes, nccl_params(1));
  // One flow per ring hop: 2 rail rings cross each rack uplink, 2 flows on 4 ports, and the
  // busiest of 4 uplinks carries 2 of them with probability 1 - (3/4)^4: the uplink binds.
  EXPECT_GT(allreduce_s(hashed, all, bytes, nccl_params(1)), 1.1 * base);
  // Many queue pairs per connection spread the bytes: the NICs bind again, as without hashing.
  EXPECT_DOUBLE_EQ(allreduce_s(hashed, all, bytes, nccl_params(1024)), base);
}

TEST(EcmpUplinks, TheIdealModelIgnoresHashing) {
  const Cluster adaptive(two_racks(LoadBalancing::adaptive), 4);
  const Cluster hashed(two_racks(LoadBalancing::ecmp), 4);
  CostParams p = nccl_params(1);
  p.collective_model = CollectiveModelKind::ideal;
  const std::vector<int> all = all_gpu_ids(8);
  EXPECT_DOUBLE_EQ(allreduce_s(hashed, all, 1e9, p), allreduce_s(adaptive, all, 1e9, p));
  EXPECT_DOUBLE_EQ(alltoallv_s(hashed, uniform_alltoall_traffic(hashed, 8e6), p),
                   alltoallv_s(adaptive, uniform_alltoall_traffic(adaptive, 8e6), p));
}

}  // namespace
}  // namespace shardsim
