#pragma once
// Building CollectiveDemands (internal to src/cost/): a stage's traffic is added hop by hop or
// link by link; at the aggregated granularity the bytes are summed per link (one flow per
// link, in link id order), at the per-flow granularity each addition is its own flow.
#include <span>
#include <vector>

#include "shardsim/cost/collective_demand.hpp"

namespace shardsim::cost_detail {

class StageBuilder {
 public:
  StageBuilder(const Cluster& cluster, FlowGranularity granularity);
  // `bytes` over every link of `links` (one route). Nothing for bytes <= 0.
  void add(double bytes, std::span<const int> links);
  void add_on_link(double bytes, int link) { add(bytes, std::span<const int>(&link, 1)); }
  // The bytes from `src` to `dst` over their route (a mesh pair: its direct link).
  void add_route(double bytes, int src, int dst);
  bool empty() const { return touched_.empty() && stage_.flows.empty(); }
  // The stage, with `latency_s`; the builder is left empty.
  CollectiveStage finish(double latency_s);

 private:
  const Cluster& cluster_;
  FlowGranularity granularity_;
  std::vector<double> per_link_;  // aggregated: bytes per link id
  std::vector<int> touched_;      // aggregated: links with bytes, unsorted
  CollectiveStage stage_;         // per-flow: the flows so far
  std::vector<int> route_;        // scratch
};

// Adds a ring over `ring` (distinct ids, in ring order) carrying `hop_bytes` over every hop
// (ring[k] -> ring[k+1], and back to ring[0]). Inside a direct NVLink mesh a hop's bytes are
// spread evenly over the links from its sender to every other ring member of its domain (NCCL
// runs several rings over different links), so the hop sees the GPU's aggregate bandwidth.
void add_ring(StageBuilder& stage, const Cluster& cluster, std::span<const int> ring,
              double hop_bytes);

// The route latency of `level` (one representative pair: the first GPU with traffic at that
// level to the first GPU at that level from it). 0 for level 0.
double level_latency_s(const Cluster& cluster, int level, int src_hint = 0);

}  // namespace shardsim::cost_detail
