#pragma once
// Building CollectiveDemands (internal to src/cost/): a stage's traffic is added hop by hop or
// link by link; at the aggregated granularity the bytes are summed per link (one flow per
// link, in link id order), at the per-flow granularity each addition is its own flow.
#include <span>
#include <vector>

#include "shardsim/cost/collective_demand.hpp"

namespace shardsim::cost_detail {

// ECMP (aggregated granularity, nccl model): every addition also counts `connections` crossing
// its links; on finish(), the bytes on the uplinks of a tier with `load_balancing: ecmp` are
// multiplied by ecmp_slowdown(connections · p.ecmp_flows_per_connection, the uplink's ports)
// (docs/model.md, "ECMP hash collisions"). The per-flow granularity, the reference model, shares
// each uplink max-min fairly as one link (adaptive routing).
class StageBuilder {
 public:
  StageBuilder(const Cluster& cluster, FlowGranularity granularity, const CostParams& p);
  // `bytes` over every link of `links` (one route), as `connections` connections. Nothing for
  // bytes <= 0.
  void add(double bytes, std::span<const int> links, double connections = 1);
  void add_on_link(double bytes, int link, double connections = 1) {
    add(bytes, std::span<const int>(&link, 1), connections);
  }
  // The bytes from `src` to `dst` over their route (a mesh pair: its direct link).
  void add_route(double bytes, int src, int dst);
  bool empty() const { return touched_.empty() && stage_.flows.empty(); }
  // The stage, with `latency_s`; the builder is left empty.
  CollectiveStage finish(double latency_s);

 private:
  const Cluster& cluster_;
  FlowGranularity granularity_;
  std::vector<double> per_link_;     // aggregated: bytes per link id
  std::vector<double> connections_;  // aggregated with ECMP tiers: connections per link id
  std::vector<double> ecmp_ports_;   // per link id: ports of a hashed uplink, else 0
  int flows_per_connection_ = 1;
  std::vector<int> touched_;  // aggregated: links with bytes, unsorted
  CollectiveStage stage_;     // per-flow: the flows so far
  std::vector<int> route_;    // scratch
};

// Adds a ring over `ring` (distinct ids, in ring order) carrying `hop_bytes` over every hop
// (ring[k] -> ring[k+1], and back to ring[0]). Inside a direct NVLink mesh a hop's bytes are
// spread evenly over the links from its sender to every other ring member of its domain (NCCL
// runs several rings over different links), so the hop sees the GPU's aggregate bandwidth.
void add_ring(StageBuilder& stage, const Cluster& cluster, std::span<const int> ring,
              double hop_bytes);

// The route latency of `level` (one representative pair: the first GPU with traffic at that
// level to the first GPU at that level from it; on a rail-optimised fabric, the first on
// another rail, whose route adds the PXN hop). 0 for level 0.
double level_latency_s(const Cluster& cluster, int level, int src_hint = 0);

}  // namespace shardsim::cost_detail
