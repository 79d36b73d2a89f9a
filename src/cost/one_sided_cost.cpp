// Costs of one-sided row transfers (OPER §5; docs/model.md, "One-sided gets").
#include "shardsim/cost/one_sided_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
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

// What both walks below accumulate per GPU and level class (scale-up, through the NIC): link
// time in and out, for a direct mesh's scale-up pairs the largest pair and the sum of rows, and
// the farthest route's latency.
struct LinkTimes {
  explicit LinkTimes(std::size_t n)
      : in_up(n, 0.0),
        in_out(n, 0.0),
        out_up(n, 0.0),
        out_out(n, 0.0),
        in_up_rows(n, 0.0),
        out_up_rows(n, 0.0),
        latency(n, 0.0) {}
  std::vector<double> in_up, in_out, out_up, out_out, in_up_rows, out_up_rows, latency;

  // A scale-up pair: `b` bytes and `r` rows from src to dst at `bw` bytes/s.
  void add_scale_up(std::size_t src, std::size_t dst, double b, double r, double bw, bool mesh,
                    const CostParams& p) {
    if (mesh) {
      in_up[dst] = std::max(in_up[dst], b / bw);
      out_up[src] = std::max(out_up[src], b / bw);
      in_up_rows[dst] += r;
      out_up_rows[src] += r;
    } else {
      const double t = b / bw + r * overhead_s(1, p);
      in_up[dst] += t;
      out_up[src] += t;
    }
  }
  // On a mesh each peer has its own links; the overheads still add up at the GPU.
  void fold_mesh_rows(const CostParams& p) {
    for (std::size_t g = 0; g < in_up.size(); ++g) {
      in_up[g] = std::max(in_up[g], in_up_rows[g] * p.one_sided_scale_up_overhead_s);
      out_up[g] = std::max(out_up[g], out_up_rows[g] * p.one_sided_scale_up_overhead_s);
    }
  }
  double sender_s(std::size_t g) const { return std::max(out_up[g], out_out[g]); }
  double receiver_s(std::size_t g) const { return std::max(in_up[g], in_out[g]); }
  // From the start of the phase until GPU g has received everything: its links, or its slowest
  // sender, then the farthest route (0 for a GPU that receives nothing).
  double done_s(std::size_t g, double slowest_sender_s) const {
    const double d = std::max(receiver_s(g), slowest_sender_s);
    return d > 0 ? d + latency[g] : 0.0;
  }
};

// Every route of one level crosses the same kinds of links and switches (hw/topology.hpp), so
// it has the same latency: one route per level (and per same-rail / cross-rail pair on a
// rail-optimised fabric), not one per pair, found from the first pair that needs it.
class RouteLatencies {
 public:
  explicit RouteLatencies(const Cluster& cluster) : cluster_(cluster) {}
  bool known(int level, bool cross) const {
    const std::size_t lv = index(level, cross);
    return lv < of_.size() && of_[lv] >= 0;
  }
  double known_of(int level, bool cross) const { return of_[index(level, cross)]; }
  double of(int level, bool cross, int src, int dst) {
    const std::size_t lv = index(level, cross);
    if (lv >= of_.size()) of_.resize(lv + 1, -1.0);
    if (of_[lv] < 0) of_[lv] = route_latency_s(cluster_, src, dst);
    return of_[lv];
  }

 private:
  static std::size_t index(int level, bool cross) {
    return static_cast<std::size_t>(2 * level + (cross ? 1 : 0));
  }
  const Cluster& cluster_;
  std::vector<double> of_;
};

// one_sided_transfer_s over the pairs whose entries `entry(src, dst, b, r)` gives: one pass for
// the links' sums, one for the slowest sender. A template so that matrices without a dense part
// (every uniform plan) read two vectors per pair, not PairMatrix::at's three parts.
template <class Entry>
std::vector<double> transfer_s(const Cluster& cluster, const CostParams& p, Entry entry) {
  const int n = cluster.num_gpus();
  const auto un = static_cast<std::size_t>(n);
  const bool mesh = direct_mesh(cluster);
  LinkTimes links(un);
  double bw_up = 0, bw_out = 0;  // looked up lazily: a preset may lack a level nobody uses
  const LevelTable levels(cluster);
  std::vector<std::uint32_t> node_of(un);
  for (std::size_t g = 0; g < un; ++g) node_of[g] = levels.node_of(static_cast<int>(g));
  RouteLatencies routes(cluster);
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
      if (level == 1) {
        links.add_scale_up(usrc, udst, b, r, bw, mesh, p);
      } else {
        const double t = b / bw + r * overhead_s(level, p);
        links.in_out[udst] += t;
        links.out_out[usrc] += t;
      }
      const bool cross = level >= 2 && rails > 1 && rail_of[usrc] != rail_of[udst];
      links.latency[udst] = std::max(links.latency[udst], routes.of(level, cross, src, dst));
    }
  }
  if (mesh) links.fold_mesh_rows(p);
  // The slowest sender of each GPU, row by row (the matrices are row-major).
  std::vector<double> slowest(un, 0.0);
  for (int src = 0; src < n; ++src) {
    const double sender = links.sender_s(static_cast<std::size_t>(src));
    for (int dst = 0; dst < n; ++dst) {
      if (src == dst) continue;
      double b = 0, r = 0;
      entry(src, dst, b, r);
      if (b <= 0 && r <= 0) continue;
      slowest[static_cast<std::size_t>(dst)] =
          std::max(slowest[static_cast<std::size_t>(dst)], sender);
    }
  }
  std::vector<double> done(un);
  for (std::size_t dst = 0; dst < un; ++dst) done[dst] = links.done_s(dst, slowest[dst]);
  return done;
}

// one_sided_transfer_s of matrices without a dense part: entry (s, d) is to[s] + from[d], so a
// pair carries traffic exactly when s sends to every other GPU (`sends`) or d receives from
// every other (`gathers`). Pairs inside a scale-up domain are visited one by one (the same
// arithmetic as transfer_s, in the same order); the sums through the NIC come from per-domain
// sums (prefix and suffix, no cancellation), and each GPU's farthest route and slowest sender
// from per-level and top-two summaries: O(GPUs x domain GPUs + nodes^2), not O(GPUs^2). The
// NIC sums equal the pair loop's to rounding. nullopt where this does not apply (more than 64
// rails); the caller then walks the pairs.
std::optional<std::vector<double>> structured_transfer_s(const Cluster& cluster,
                                                         const PairMatrix& bytes,
                                                         const PairMatrix& rows,
                                                         const CostParams& p) {
  const int n = cluster.num_gpus();
  const auto un = static_cast<std::size_t>(n);
  const Topology& topo = cluster.topology();
  const int rails = topo.rails();
  if (rails > 64) return std::nullopt;
  const std::vector<double>& tb = bytes.to_every_other();
  const std::vector<double>& fb = bytes.from_every_other();
  const std::vector<double>& tr = rows.to_every_other();
  const std::vector<double>& fr = rows.from_every_other();
  auto valid = [](double v) { return v >= 0 && std::isfinite(v); };
  for (int g = 0; g < n && n > 1; ++g) {
    const auto ug = static_cast<std::size_t>(g);
    if (!valid(tb[ug]) || !valid(tr[ug]) || !valid(fb[ug]) || !valid(fr[ug])) {
      const int other = g == 0 ? 1 : 0;
      const bool from_g = !valid(tb[ug]) || !valid(tr[ug]);
      const int src = from_g ? g : other, dst = from_g ? other : g;
      throw std::invalid_argument(
          fmt::format("one-sided transfer ({}, {}): bytes {} and rows {} must be finite and >= 0",
                      src, dst, bytes.at(src, dst), rows.at(src, dst)));
    }
  }
  const bool mesh = direct_mesh(cluster);
  const LevelTable levels(cluster);
  std::vector<std::uint8_t> sends(un), gathers(un);
  for (std::size_t g = 0; g < un; ++g) {
    sends[g] = tb[g] > 0 || tr[g] > 0;
    gathers[g] = fb[g] > 0 || fr[g] > 0;
  }
  // Nodes, and scale-up domains (nodes at level 1 of each other), each with its GPUs.
  const std::size_t nodes = levels.num_nodes();
  const std::vector<std::vector<int>>& node_gpus = levels.node_gpus();
  const std::vector<std::vector<int>>& domain_gpus = levels.domain_gpus();
  const std::size_t domains = domain_gpus.size();
  std::vector<std::uint32_t> node_of(un), domain_of(un);
  for (std::size_t g = 0; g < un; ++g) {
    node_of[g] = levels.node_of(static_cast<int>(g));
    domain_of[g] = levels.domain_of_node(node_of[g]);
  }
  LinkTimes links(un);
  double bw_up = 0, bw_out = 0;  // looked up lazily: a preset may lack a level nobody uses
  RouteLatencies routes(cluster);

  // Inside each domain, pair by pair, destinations outermost: each sum still runs in ascending
  // order of the other end, as in transfer_s.
  for (const std::vector<int>& members : domain_gpus) {
    for (int dst : members) {
      const auto udst = static_cast<std::size_t>(dst);
      for (int src : members) {
        if (src == dst) continue;
        const auto usrc = static_cast<std::size_t>(src);
        if (!sends[usrc] && !gathers[udst]) continue;
        const double b = 0.0 + tb[usrc] + fb[udst];  // PairMatrix::at's sum, bit for bit
        const double r = 0.0 + tr[usrc] + fr[udst];
        if (bw_up == 0) bw_up = one_sided_pair_Bps(cluster, 1) * p.one_sided_bandwidth_efficiency;
        links.add_scale_up(usrc, udst, b, r, bw_up, mesh, p);
        links.latency[udst] = std::max(links.latency[udst], routes.of(1, false, src, dst));
      }
    }
  }
  if (mesh) links.fold_mesh_rows(p);

  // Through the NIC: per domain, the sums of each part and the GPU count; a GPU's pairs outside
  // its domain are the other domains' (prefix + suffix).
  if (domains > 1) {
    struct Part {
      double tb = 0, tr = 0, fb = 0, fr = 0, gpus = 0;
      Part& operator+=(const Part& o) {
        tb += o.tb, tr += o.tr, fb += o.fb, fr += o.fr, gpus += o.gpus;
        return *this;
      }
    };
    std::vector<Part> of_domain(domains);
    for (std::size_t g = 0; g < un; ++g) {
      Part& d = of_domain[domain_of[g]];
      d.tb += tb[g], d.tr += tr[g], d.fb += fb[g], d.fr += fr[g], d.gpus += 1;
    }
    std::vector<Part> outside(domains);
    Part acc;
    for (std::size_t d = 0; d < domains; ++d) {
      outside[d] = acc;
      acc += of_domain[d];
    }
    acc = Part{};
    for (std::size_t d = domains; d-- > 0;) {
      outside[d] += acc;
      acc += of_domain[d];
    }
    const double ovh = overhead_s(2, p);
    for (std::size_t g = 0; g < un; ++g) {
      const Part& o = outside[domain_of[g]];
      // Received: every sender outside, plus (if g gathers) its own part from each GPU outside.
      // Sent: to every gatherer outside, plus (if g sends) its part to each GPU outside.
      const double received_b = o.tb + (gathers[g] ? o.gpus * fb[g] : 0.0);
      const double received_r = o.tr + (gathers[g] ? o.gpus * fr[g] : 0.0);
      const double sent_b = o.fb + (sends[g] ? o.gpus * tb[g] : 0.0);
      const double sent_r = o.fr + (sends[g] ? o.gpus * tr[g] : 0.0);
      if ((received_b > 0 || received_r > 0 || sent_b > 0 || sent_r > 0) && bw_out == 0) {
        bw_out = one_sided_pair_Bps(cluster, 2) * p.one_sided_bandwidth_efficiency;
      }
      if (received_b > 0 || received_r > 0) {
        links.in_out[g] = received_b / bw_out + received_r * ovh;
      }
      if (sent_b > 0 || sent_r > 0) links.out_out[g] = sent_b / bw_out + sent_r * ovh;
    }
    // The farthest route: per destination node and level, the rails of all GPUs and of the
    // senders at that level.
    std::vector<std::uint64_t> all_rails(nodes, 0), sender_rails(nodes, 0);
    for (std::size_t g = 0; g < un; ++g) {
      const std::uint64_t bit = std::uint64_t{1} << (rails > 1 ? topo.rail_of(int(g)) : 0);
      all_rails[node_of[g]] |= bit;
      if (sends[g]) sender_rails[node_of[g]] |= bit;
    }
    const int num_levels = cluster.num_levels();
    std::vector<std::uint64_t> all_at(static_cast<std::size_t>(num_levels));
    std::vector<std::uint64_t> senders_at(static_cast<std::size_t>(num_levels));
    for (std::size_t dn = 0; dn < nodes; ++dn) {
      if (node_gpus[dn].empty()) continue;
      std::fill(all_at.begin(), all_at.end(), 0);
      std::fill(senders_at.begin(), senders_at.end(), 0);
      for (std::size_t sn = 0; sn < nodes; ++sn) {
        if (node_gpus[sn].empty()) continue;
        const int level = levels.row_of(node_gpus[sn].front())[dn];
        if (level < 2) continue;
        all_at[static_cast<std::size_t>(level)] |= all_rails[sn];
        senders_at[static_cast<std::size_t>(level)] |= sender_rails[sn];
      }
      for (int level = 2; level < num_levels; ++level) {
        const auto ul = static_cast<std::size_t>(level);
        if (all_at[ul] == 0) continue;
        for (const int dst : node_gpus[dn]) {
          const auto g = static_cast<std::size_t>(dst);
          const std::uint64_t mask = gathers[g] ? all_at[ul] : senders_at[ul];
          if (mask == 0) continue;
          const int rail = rails > 1 ? topo.rail_of(int(g)) : 0;
          const std::uint64_t own = std::uint64_t{1} << rail;
          for (const bool cross : {false, true}) {
            if (cross ? (rails <= 1 || (mask & ~own) == 0) : (mask & own) == 0) continue;
            // A source GPU of this level and rail class, for the route (one per class).
            for (std::size_t s = 0; s < un && !routes.known(level, cross); ++s) {
              if (levels.level(int(s), int(g)) != level) continue;
              if (!gathers[g] && !sends[s]) continue;
              const bool is_cross = rails > 1 && topo.rail_of(int(s)) != rail;
              if (is_cross == cross) routes.of(level, cross, int(s), int(g));
            }
            if (routes.known(level, cross)) {
              links.latency[g] = std::max(links.latency[g], routes.known_of(level, cross));
            }
          }
        }
      }
    }
  }

  // The slowest sender of each GPU: the largest over every other GPU if it gathers, else over
  // the other senders (top two of each, so a GPU never counts itself).
  struct TopTwo {
    double first = 0, second = 0;
    std::size_t at = ~std::size_t{0};
    bool any = false, two = false;
    void add(double v, std::size_t g) {
      if (!any || v > first) {
        if (any) second = first, two = true;
        first = v, at = g, any = true;
      } else if (!two || v > second) {
        second = v, two = true;
      }
    }
    // The largest of those other than g (nullopt if none).
    std::optional<double> without(std::size_t g) const {
      if (!any) return std::nullopt;
      if (at != g) return first;
      return two ? std::optional<double>(second) : std::nullopt;
    }
  };
  TopTwo everyone, senders;
  for (std::size_t g = 0; g < un; ++g) {
    everyone.add(links.sender_s(g), g);
    if (sends[g]) senders.add(links.sender_s(g), g);
  }
  std::vector<double> done(un);
  for (std::size_t g = 0; g < un; ++g) {
    done[g] = links.done_s(g, (gathers[g] ? everyone : senders).without(g).value_or(0.0));
  }
  return done;
}

}  // namespace

std::vector<double> one_sided_transfer_s(const Cluster& cluster, const PairMatrix& bytes,
                                         const PairMatrix& rows, const CostParams& p) {
  check_matrix(cluster, bytes, "byte");
  check_matrix(cluster, rows, "row");
  if (!bytes.has_dense_part() && !rows.has_dense_part()) {
    if (auto done = structured_transfer_s(cluster, bytes, rows, p)) return *std::move(done);
  }
  return transfer_s(cluster, p, [&](int src, int dst, double& b, double& r) {
    b = bytes.at(src, dst);
    r = rows.at(src, dst);
  });
}

double overlapped_lookup_s(double local_s, double remote_s, const CostParams& p) {
  require_work(local_s, "local lookup time");
  require_work(remote_s, "remote get time");
  return std::max(local_s, remote_s) +
         (1.0 - p.one_sided_overlap_fraction) * std::min(local_s, remote_s);
}

}  // namespace shardsim
