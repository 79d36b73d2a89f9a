// One-sided row transfers (OPER §5) and the three replica synchronisations (OPER §5.3), by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "round_presets.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/one_sided_cost.hpp"
#include "shardsim/cost/sparse_allreduce_cost.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {
namespace {

using test::ideal_collectives;
using test::round_preset;

// Efficiency 1 and round per-row overheads: 1 ns in a node, 10 ns through the NIC.
CostParams params() {
  CostParams p = ideal_collectives();
  p.one_sided_bandwidth_efficiency = 1.0;
  p.one_sided_scale_up_overhead_s = 1e-9;
  p.one_sided_scale_out_overhead_s = 10e-9;
  p.one_sided_overlap_fraction = 0.75;
  return p;
}

TEST(OneSidedCost, RowCostPerLevel) {
  // Round preset: NVSwitch 100 GB/s per GPU, NIC share 10 GB/s.
  const Cluster cluster(round_preset(2), 2);
  const CostParams p = params();
  // 64 B in the node: 64 / 100e9 = 0.64 ns + 1 ns; across nodes: 6.4 ns + 10 ns.
  EXPECT_NEAR(one_sided_row_s(cluster, 1, 64, p), 1.64e-9, 1e-21);
  EXPECT_NEAR(one_sided_row_s(cluster, 2, 64, p), 16.4e-9, 1e-21);
  // The bandwidth efficiency divides the bandwidth: at 0.5, 1.28 ns + 1 ns.
  CostParams half = p;
  half.one_sided_bandwidth_efficiency = 0.5;
  EXPECT_NEAR(one_sided_row_s(cluster, 1, 64, half), 2.28e-9, 1e-21);
  // Local: (64 + 8 index bytes) / 1 TB/s = 72 ps.
  EXPECT_NEAR(local_row_lookup_s(cluster.gpu(), 64, p), 72e-12, 1e-24);
  EXPECT_THROW(one_sided_pair_Bps(cluster, 0), std::invalid_argument);
}

TEST(OneSidedCost, DirectMeshSplitsScaleUpOverPeers) {
  HardwarePreset mesh = round_preset(4);
  mesh.scale_up_kind = "nvlink";
  const Cluster cluster(mesh, 1);
  // 100 GB/s per GPU over 3 peers: 33.3 GB/s a pair.
  EXPECT_NEAR(one_sided_pair_Bps(cluster, 1), 100e9 / 3, 1e-3);
}

TEST(OneSidedCost, TransferTimesReceiveSendAndLatency) {
  // 2 nodes x 2 GPUs (GPUs 0, 1 on node 0; 2, 3 on node 1). GPU 0 fetches 1000 rows of 64 B
  // from GPU 1 (same node) and 1000 from GPU 2 (other node); GPU 1 fetches 500 rows from
  // GPU 2.
  HardwarePreset preset = round_preset(2, 64, 1, 0);
  preset.scale_up.latency_s = 1e-6;
  const Cluster cluster(preset, 2);
  const CostParams p = params();
  PairMatrix bytes(4), rows(4), b2(4), r2(4);
  bytes.add(1, 0, 64e3);
  rows.add(1, 0, 1000);
  bytes.add(2, 0, 64e3);
  rows.add(2, 0, 1000);
  b2 = bytes;
  r2 = rows;
  bytes.add(2, 1, 32e3);
  rows.add(2, 1, 500);
  const std::vector<double> t = one_sided_transfer_s(cluster, bytes, rows, p);
  // GPU 0 receives: in-node 64e3 / 100e9 + 1000 · 1 ns = 0.64 + 1 = 1.64 us;
  //                 via NIC 64e3 / 10e9 + 1000 · 10 ns = 6.4 + 10 = 16.4 us.
  // GPU 1 receives 32e3 / 10e9 + 500 · 10 ns = 3.2 + 5 = 8.2 us via its NIC.
  // GPU 2 sends both through its NIC: 16.4 + 8.2 = 24.6 us, which bounds GPUs 0 and 1.
  // Plus the route latency of the farthest GPU each receives from.
  const double lat0 = std::max(cluster.route(1, 0).latency_s, cluster.route(2, 0).latency_s);
  EXPECT_NEAR(t[0], 24.6e-6 + lat0, 1e-15);
  EXPECT_NEAR(t[1], 24.6e-6 + cluster.route(2, 1).latency_s, 1e-15);
  EXPECT_DOUBLE_EQ(t[2], 0);  // receives nothing
  EXPECT_DOUBLE_EQ(t[3], 0);
  // Without GPU 1's fetch, GPU 0 is bound by its own NIC: 16.4 us.
  EXPECT_NEAR(one_sided_transfer_s(cluster, b2, r2, p)[0], 16.4e-6 + lat0, 1e-15);
  // The diagonal is local: a matrix with one is rejected, as are a bad entry and a bad size.
  ByteMatrix diagonal(4);
  diagonal.at(0, 0) = 1e12;
  EXPECT_THROW(PairMatrix{diagonal}, std::invalid_argument);
  bytes.add(1, 0, -1e6);
  EXPECT_THROW(one_sided_transfer_s(cluster, bytes, rows, p), std::invalid_argument);
  EXPECT_THROW(one_sided_transfer_s(cluster, PairMatrix(3), PairMatrix(3), p),
               std::invalid_argument);
}

// A broadcast (one GPU sends the same to every other) and a gather (every other GPU sends the
// same to one) cost what the same entries written one by one cost.
TEST(OneSidedCost, BroadcastAndGatherPartsCostAsTheirEntries) {
  HardwarePreset preset = round_preset(2, 64, 1, 0);
  preset.scale_up.latency_s = 1e-6;
  const Cluster cluster(preset, 3);
  const CostParams p = params();
  const int n = cluster.num_gpus();
  PairMatrix parts(n), rows_parts(n), dense(n), rows_dense(n);
  parts.add(4, 1, 5e3);
  rows_parts.add(4, 1, 80);
  dense.add(4, 1, 5e3);
  rows_dense.add(4, 1, 80);
  parts.add_to_every_other(2, 64e3);
  rows_parts.add_to_every_other(2, 1000);
  parts.add_from_every_other(5, 16e3);
  rows_parts.add_from_every_other(5, 250);
  for (int g = 0; g < n; ++g) {
    if (g != 2) {
      dense.add(2, g, 64e3);
      rows_dense.add(2, g, 1000);
    }
  }
  for (int g = 0; g < n; ++g) {
    if (g != 5) {
      dense.add(g, 5, 16e3);
      rows_dense.add(g, 5, 250);
    }
  }
  for (int a = 0; a < n; ++a) {
    EXPECT_DOUBLE_EQ(parts.sent_by(a), dense.sent_by(a)) << a;
    EXPECT_DOUBLE_EQ(parts.received_by(a), dense.received_by(a)) << a;
    for (int b = 0; b < n; ++b) EXPECT_DOUBLE_EQ(parts.at(a, b), dense.at(a, b)) << a << b;
  }
  EXPECT_DOUBLE_EQ(parts.total(), dense.total());
  EXPECT_DOUBLE_EQ(parts.total(), 5e3 + (n - 1) * (64e3 + 16e3));
  const std::vector<double> a = one_sided_transfer_s(cluster, parts, rows_parts, p);
  const std::vector<double> b = one_sided_transfer_s(cluster, dense, rows_dense, p);
  for (int g = 0; g < n; ++g) EXPECT_DOUBLE_EQ(a[g], b[g]) << g;
  EXPECT_GT(a[0], 0);
}

TEST(OneSidedCost, DirectMeshPairsHaveTheirOwnLinks) {
  HardwarePreset mesh = round_preset(4, 64, 1, 0);
  mesh.scale_up_kind = "nvlink";
  const Cluster cluster(mesh, 1);
  CostParams p = params();
  p.one_sided_scale_up_overhead_s = 0;
  PairMatrix bytes(4), rows(4);
  for (int s = 1; s < 4; ++s) {
    bytes.add(s, 0, 1e6);
    rows.add(s, 0, 1);
  }
  // Three peers each send 1 MB over their own 33.3 GB/s link, in parallel: 30 us, not 90.
  EXPECT_NEAR(one_sided_transfer_s(cluster, bytes, rows, p)[0], 30e-6, 1e-12);
  // With 2000 rows from each peer at 10 ns a row, the GPU's issue rate binds:
  // 6000 · 10 ns = 60 us > 30 us.
  p.one_sided_scale_up_overhead_s = 10e-9;
  for (int s = 1; s < 4; ++s) rows.add(s, 0, 1999);
  EXPECT_NEAR(one_sided_transfer_s(cluster, bytes, rows, p)[0], 60e-6, 1e-12);
}

TEST(OneSidedCost, LocalRemoteOverlap) {
  const CostParams p = params();  // overlap 0.75
  // max(4, 10) + 0.25 · 4 = 11
  EXPECT_DOUBLE_EQ(overlapped_lookup_s(4, 10, p), 11);
  EXPECT_DOUBLE_EQ(overlapped_lookup_s(10, 4, p), 11);
  EXPECT_DOUBLE_EQ(overlapped_lookup_s(0, 10, p), 10);
  CostParams serial = p;
  serial.one_sided_overlap_fraction = 0;
  EXPECT_DOUBLE_EQ(overlapped_lookup_s(4, 10, serial), 14);
  EXPECT_THROW(overlapped_lookup_s(-1, 1, p), std::invalid_argument);
}

TEST(SparseAllReduceCost, ThreeVariantsByHand) {
  // 2 nodes x 2 GPUs, ideal: AllGather of S over 4 GPUs through 10 GB/s NIC shares, over two
  // rails: (3/4)·S / 2 / 10 GB/s; ring AllReduce of S: flat 2·(3/4)·S / 10 GB/s or hierarchical,
  // the faster (docs/model.md).
  const Cluster cluster(round_preset(2), 2);
  const CostParams p = ideal_collectives();
  std::vector<int> all(4);
  std::iota(all.begin(), all.end(), 0);
  // AllGather-based: 4 GPUs x 1 MB of rows and indices = 4 MB gathered: 3/4 · 4e6 / 2 / 10e9.
  EXPECT_NEAR(allgather_sparse_allreduce_s(cluster, all, 4e6, p), 150e-6, 1e-12);
  // Local-aggregated: AllGather of 4 x 10 KB of indices + AllReduce of the 1 MB union.
  const double expected = allgather_s(cluster, all, 40e3, p) + allreduce_s(cluster, all, 1e6, p);
  EXPECT_DOUBLE_EQ(local_aggregated_sparse_allreduce_s(cluster, all, 40e3, 1e6, p), expected);
  EXPECT_NEAR(allgather_s(cluster, all, 40e3, p), 1.5e-6, 1e-15);
  // The AllGather variant's volume grows with the GPUs; the local-aggregated one does not:
  // with every GPU touching the same 1 MB of rows, AllGather moves 4 MB, the union 1 MB.
  EXPECT_GT(allgather_sparse_allreduce_s(cluster, all, 4e6, p),
            local_aggregated_sparse_allreduce_s(cluster, all, 0, 1e6, p));
  EXPECT_THROW(allgather_sparse_allreduce_s(cluster, all, -1, p), std::invalid_argument);
}

// Property: matrices of broadcast and gather parts only (every uniform plan's) take the
// structured path; the same entries as a dense matrix take the pair loop. They agree (the sums
// through the NIC to rounding), on switched, meshed, multi-node-domain and rail-optimised
// fabrics, with senders, gatherers and idle GPUs mixed.
TEST(OneSidedCost, StructuredTransfersEqualThePairLoop) {
  HardwarePreset mesh = round_preset(4, 2, 1, 1e-6);
  mesh.scale_up_kind = "nvlink";
  HardwarePreset domains = round_preset(2, 2, 1, 1e-6);
  domains.scale_up_domain_nodes = 2;
  domains.tiers = {TierSpec{"rack", 4, 1, 2e-6}, TierSpec{"pod", 64, 1, 3e-6}};
  const std::vector<std::pair<HardwarePreset, int>> fabrics = {{round_preset(2, 2, 1, 1e-6), 5},
                                                               {mesh, 3},
                                                               {domains, 8},
                                                               {builtin_preset("dgx-h100"), 5},
                                                               {builtin_preset("dgx-a100"), 3}};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> amount(0.0, 1e6);
  const CostParams p = params();
  for (const auto& [preset, nodes] : fabrics) {
    const Cluster cluster(preset, nodes);
    const int n = cluster.num_gpus();
    for (int trial = 0; trial < 4; ++trial) {
      PairMatrix bytes(n), rows(n);
      for (int g = 0; g < n; ++g) {
        const auto kind = rng() % 4;  // idle, sender, gatherer, both
        if (kind == 1 || kind == 3) {
          const double r = std::floor(amount(rng) / 100);
          rows.add_to_every_other(g, r);
          bytes.add_to_every_other(g, trial == 0 ? 0.0 : r * 256);  // trial 0: rows alone
        }
        if (kind == 2 || kind == 3) {
          const double r = std::floor(amount(rng) / 1000);
          rows.add_from_every_other(g, r);
          bytes.add_from_every_other(g, r * 72);
        }
      }
      ByteMatrix dense_bytes(n), dense_rows(n);
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
          dense_bytes.at(a, b) = bytes.at(a, b);
          dense_rows.at(a, b) = rows.at(a, b);
        }
      }
      const std::vector<double> fast = one_sided_transfer_s(cluster, bytes, rows, p);
      const std::vector<double> loop = one_sided_transfer_s(
          cluster, PairMatrix(std::move(dense_bytes)), PairMatrix(std::move(dense_rows)), p);
      ASSERT_EQ(fast.size(), loop.size());
      for (int g = 0; g < n; ++g) {
        EXPECT_NEAR(fast[g], loop[g], 1e-12 * loop[g] + 1e-18)
            << preset.name << " x " << nodes << ", trial " << trial << ", GPU " << g;
      }
    }
  }
}

TEST(OneSidedCost, StructuredTransfersRefuseNegativeParts) {
  const Cluster cluster(round_preset(2), 2);
  PairMatrix bytes(4), rows(4);
  bytes.add_from_every_other(2, -1);
  EXPECT_THROW(one_sided_transfer_s(cluster, bytes, rows, params()), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
