// Costs of one-sided row transfers (OPER §5; docs/model.md, "One-sided gets").
#include "shardsim/cost/one_sided_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cost/checks.hpp"
#include "cost/topology_terms.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {

namespace {

using cost_detail::require_link_rate;
using cost_detail::require_rate;
using cost_detail::require_work;
using cost_detail::route_latency_s;

bool direct_mesh(const Cluster& cluster) {
  return cluster.preset().scale_up_kind == "nvlink";
}

double overhead_s(int level, const CostParams& p) {
  return level <= 1 ? p.one_sided_scale_up_overhead_s : p.one_sided_scale_out_overhead_s;
}

void check_matrix(const Cluster& cluster, const PairMatrix& m, const char* what) {
  if (m.size() != cluster.num_gpus()) {
    throw std::invalid_argument(fmt::format("one-sided {} matrix is {}x{} for {} GPUs", what,
                                            m.size(), m.size(), cluster.num_gpus()));
  }
}

}  // namespace

double one_sided_pair_Bps(const Cluster& cluster, int level) {
  if (level <= 0) throw std::invalid_argument("one-sided transfer at level 0 (the GPU itself)");
  if (level >= 2) {
    return require_link_rate(cluster.scale_out_Bps_per_gpu(), "nic.bandwidth_Gbitps", cluster);
  }
  const double up =
      require_link_rate(cluster.scale_up_Bps_per_gpu(), "scale_up.bandwidth_GBps", cluster);
  const int peers = cluster.gpus_per_scale_up_domain() - 1;
  return direct_mesh(cluster) && peers > 1 ? up / peers : up;
}

// L[i][j] for i != j: bytes over the pair's bandwidth at the one-sided efficiency, plus the
// per-row overhead of the level.
double one_sided_row_s(const Cluster& cluster, int level, double row_bytes, const CostParams& p) {
  require_work(row_bytes, "row bytes");
  return row_bytes / (one_sided_pair_Bps(cluster, level) * p.one_sided_bandwidth_efficiency) +
         overhead_s(level, p);
}

// L[i][i]: the index and the row read from HBM.
double local_row_lookup_s(const GpuSpec& gpu, double row_bytes, const CostParams& p) {
  require_work(row_bytes, "row bytes");
  const double hbm =
      require_rate(gpu.hbm_achievable_Bps, "hbm_achievable_GBps", gpu.name, "a local row lookup");
  return (row_bytes + p.index_bytes_per_lookup) / hbm;
}

namespace {

// one_sided_transfer_s over the pairs whose entries `entry(src, dst, b, r)` gives: one pass for
// the links' sums, one for the slowest sender. A template so that matrices without a dense part
// (every uniform plan) read two vectors per pair, not PairMatrix::at's three parts.
template <class Entry>
std::vector<double> transfer_s(const Cluster& cluster, const CostParams& p, Entry entry) {
  const int n = cluster.num_gpus();
  const auto un = static_cast<std::size_t>(n);
  const bool mesh = direct_mesh(cluster);
  // Per GPU and level class (0: scale-up, 1: through the NIC): link time in and out; for a
  // mesh's scale-up class also the largest single pair and the sum of overheads.
  std::vector<double> in_up(un, 0.0), in_out(un, 0.0), out_up(un, 0.0), out_out(un, 0.0);
  std::vector<double> in_up_rows(un, 0.0), out_up_rows(un, 0.0);
  std::vector<double> latency(un, 0.0);
  double bw_up = 0, bw_out = 0;  // looked up lazily: a preset may lack a level nobody uses
  const LevelTable levels(cluster);
  std::vector<std::uint32_t> node_of(un);
  for (std::size_t g = 0; g < un; ++g) node_of[g] = levels.node_of(static_cast<int>(g));
  // Every route of one level crosses the same kinds of links and switches (hw/topology.hpp), so
  // it has the same latency: one route per level, not one per pair.
  std::vector<double> latency_of_level;
  const Topology& topo = cluster.topology();
  const int rails = topo.rails();
  std::vector<int> rail_of(rails > 1 ? un : 0);  // looked up once a GPU, not once a pair
  for (std::size_t g = 0; g < rail_of.size(); ++g) rail_of[g] = topo.rail_of(static_cast<int>(g));
  for (int src = 0; src < n; ++src) {
    const std::uint8_t* level_to = levels.row_of(src);
    for (int dst = 0; dst < n; ++dst) {
      if (src == dst) continue;
      double b = 0, r = 0;
      entry(src, dst, b, r);
      if (!(b >= 0) || !std::isfinite(b) || !(r >= 0) || !std::isfinite(r)) {
        throw std::invalid_argument(
            fmt::format("one-sided transfer ({}, {}): bytes {} and rows {} must be finite and >= 0",
                        src, dst, b, r));
      }
      if (b <= 0 && r <= 0) continue;
      const auto udst = static_cast<std::size_t>(dst);
      const auto usrc = static_cast<std::size_t>(src);
      const int level = level_to[node_of[udst]];
      double& bw = level == 1 ? bw_up : bw_out;
      if (bw == 0) bw = one_sided_pair_Bps(cluster, level) * p.one_sided_bandwidth_efficiency;
      const double t = b / bw + r * overhead_s(level, p);
      if (level == 1) {
        if (mesh) {
          in_up[udst] = std::max(in_up[udst], b / bw);
          out_up[usrc] = std::max(out_up[usrc], b / bw);
          in_up_rows[udst] += r;
          out_up_rows[usrc] += r;
        } else {
          in_up[udst] += t;
          out_up[usrc] += t;
        }
      } else {
        in_out[udst] += t;
        out_out[usrc] += t;
      }
      // One route per level, and per same-rail / cross-rail pair on a rail-optimised fabric.
      const bool cross = level >= 2 && rails > 1 && rail_of[usrc] != rail_of[udst];
      const auto lv = static_cast<std::size_t>(2 * level + (cross ? 1 : 0));
      if (lv >= latency_of_level.size()) latency_of_level.resize(lv + 1, -1.0);
      if (latency_of_level[lv] < 0) latency_of_level[lv] = route_latency_s(cluster, src, dst);
      latency[udst] = std::max(latency[udst], latency_of_level[lv]);
    }
  }
  if (mesh) {
    // Each peer has its own links; the overheads still add up at the GPU.
    for (std::size_t g = 0; g < un; ++g) {
      in_up[g] = std::max(in_up[g], in_up_rows[g] * p.one_sided_scale_up_overhead_s);
      out_up[g] = std::max(out_up[g], out_up_rows[g] * p.one_sided_scale_up_overhead_s);
    }
  }
  // The slowest sender of each GPU, row by row (the matrices are row-major).
  std::vector<double> done(un, 0.0);
  for (std::size_t dst = 0; dst < un; ++dst) done[dst] = std::max(in_up[dst], in_out[dst]);
  for (int src = 0; src < n; ++src) {
    const double sender = std::max(out_up[src], out_out[src]);
    for (int dst = 0; dst < n; ++dst) {
      if (src == dst) continue;
      double b = 0, r = 0;
      entry(src, dst, b, r);
      if (b <= 0 && r <= 0) continue;
      done[static_cast<std::size_t>(dst)] = std::max(done[static_cast<std::size_t>(dst)], sender);
    }
  }
  for (std::size_t dst = 0; dst < un; ++dst) {
    done[dst] = done[dst] > 0 ? done[dst] + latency[dst] : 0.0;
  }
  return done;
}

}  // namespace

std::vector<double> one_sided_transfer_s(const Cluster& cluster, const PairMatrix& bytes,
                                         const PairMatrix& rows, const CostParams& p) {
  check_matrix(cluster, bytes, "byte");
  check_matrix(cluster, rows, "row");
  if (bytes.has_dense_part() || rows.has_dense_part()) {
    return transfer_s(cluster, p, [&](int src, int dst, double& b, double& r) {
      b = bytes.at(src, dst);
      r = rows.at(src, dst);
    });
  }
  const double* tb = bytes.to_every_other().data();
  const double* fb = bytes.from_every_other().data();
  const double* tr = rows.to_every_other().data();
  const double* fr = rows.from_every_other().data();
  return transfer_s(cluster, p, [=](int src, int dst, double& b, double& r) {
    b = 0.0 + tb[src] + fb[dst];  // PairMatrix::at's sum, bit for bit
    r = 0.0 + tr[src] + fr[dst];
  });
}

double overlapped_lookup_s(double local_s, double remote_s, const CostParams& p) {
  require_work(local_s, "local lookup time");
  require_work(remote_s, "remote get time");
  return std::max(local_s, remote_s) +
         (1.0 - p.one_sided_overlap_fraction) * std::min(local_s, remote_s);
}

}  // namespace shardsim
