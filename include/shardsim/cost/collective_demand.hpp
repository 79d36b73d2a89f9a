#pragma once
// What a collective asks of the network, as the α-β formulas see it (docs/model.md,
// "Collectives as network demands"). A collective is a launch, then stages run one after
// another (a hierarchical AllReduce has three); a stage waits its latency (the α terms), then
// moves its flows; a flow is bytes over one or more directed links (Topology link ids).
//
// Two granularities of the same traffic:
//   aggregated  one flow per link: the bytes the collective puts on each GPU's scale-up link,
//               GPU-to-NIC link, NIC uplink and tier uplink. O(GPUs + switches) flows whatever
//               the pattern, so a 4096-GPU AlltoAll is ~25 k flows, not 16.7 M.
//   per_flow    one flow per GPU pair (or ring hop) over its route: the reference model, O(N²)
//               for an AlltoAll; for small clusters and tests.
//
// On an idle network a stage takes latency + max over links of (its bytes on the link) /
// (link bandwidth · collective_bandwidth_efficiency): idle_time_s() is the α-β formula of every
// collective in docs/model.md. The engine moves the same flows with max-min fair sharing of
// each link between the flows of concurrent collectives.
#include <cstdint>
#include <span>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

enum class FlowGranularity : std::uint8_t { aggregated, per_flow };

struct DemandFlow {
  double bytes = 0;
  std::uint32_t first_link = 0;  // into CollectiveStage::links
  std::uint32_t num_links = 0;
};

struct CollectiveStage {
  double latency_s = 0;           // waited before the flows start (the stage's α terms)
  std::vector<DemandFlow> flows;  // every flow has bytes > 0 and at least one link
  std::vector<int> links;         // the flows' link lists, concatenated

  // Appends a flow over `links` (skipped when bytes <= 0).
  void add_flow(double bytes, std::span<const int> flow_links);
};

struct CollectiveDemand {
  double launch_s = 0;  // software launch, once, before the first stage
  std::vector<CollectiveStage> stages;
  double payload_bytes = 0;  // what the collective is said to move (reports), not link bytes
  bool empty() const { return stages.empty() && launch_s == 0; }
};

// The α-β time of `demand` on an idle network:
//   launch + Σ_stages ( latency + max_links (Σ bytes of the stage's flows on the link)
//                                    / (bandwidth · collective_bandwidth_efficiency) ).
// Exact for aggregated demands; a lower bound for per-flow ones (whose flows may share links
// unevenly under max-min fairness).
double idle_time_s(const Cluster& cluster, const CollectiveDemand& demand, const CostParams& p);

// The capacity the engine gives each link (Topology link id): bandwidth ·
// collective_bandwidth_efficiency.
std::vector<double> achievable_link_Bps(const Cluster& cluster, const CostParams& p);

}  // namespace shardsim
