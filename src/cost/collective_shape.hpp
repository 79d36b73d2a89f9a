#pragma once
// A collective before the collective model prices its latency (internal to src/cost/): its
// flows, its ideal α-β stage latencies, and NCCL's step counts per stage. The collective model
// (CostParams::collective_model, docs/model.md "Collective models") turns a shape into the
// demands it considers: `ideal` keeps the α-β demand, `nccl` makes one demand per protocol.
#include <span>
#include <utility>
#include <vector>

#include "shardsim/cost/collective_demand.hpp"
#include "shardsim/cost/collective_terms.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim::cost_detail {

// NCCL's algorithm steps of one stage, by the link class a step crosses (tuning.cc's
// nsteps − nInterSteps and nInterSteps).
struct StageSteps {
  double scale_up = 0;
  double scale_out = 0;
  double scale_out_route_s = 0;  // the route latency of a step across domains (hardware)
};

// Which of NCCL's algorithms a shape stands for (cost/collective_terms.hpp).
using shardsim::ShapeAlgorithm;

struct CollectiveShape {
  CollectiveDemand demand;        // the ideal model's demand (launch, route-α latencies)
  std::vector<StageSteps> steps;  // one per stage of `demand`
  ShapeAlgorithm algorithm = ShapeAlgorithm::ring;
  int ranks = 0;  // the collective's participants (nRanks)
};

enum class NcclProtocol { ll, ll128, simple };

// The nccl model's peer term of an AlltoAll (docs/model.md, "AlltoAll(v)"), from each
// participant's peers (inside its scale-up domain, outside it): the most any participant pays at
// alltoall_peer_scale_up_s / alltoall_peer_scale_out_s each, plus alltoall_scale_out_latency_s
// once when any peer is across the network (its messages take NCCL's Simple protocol there).
double alltoall_peers_s(std::span<const std::pair<double, double>> peers, const CostParams& p);

// Whether a run with `choice` (CostParams::nccl_protocol, NCCL_PROTO) lets NCCL use `protocol`.
bool protocol_allowed(NcclProtocolChoice choice, NcclProtocol protocol);

// The protocols a run on `cluster` allows: the scenario's cost.nccl_protocol where it forces one
// (a user's NCCL_PROTO), else Simple alone where the preset's network plugin forces it
// (HardwarePreset::network_forces_simple_protocol), else any.
NcclProtocolChoice effective_protocol(const Cluster& cluster, const CostParams& p);

// One protocol's terms (configs/cost/default.yaml, the nccl model).
struct ProtocolTerms {
  double base_latency_s = 0;
  double scale_up_step_s = 0;
  double scale_out_step_s = 0;
  double bandwidth_fraction = 1;
  double latency_factor = 1;  // on base and step latencies, route latencies included (plateau)
};
// What tuning.cc's refinements need to know of the shape being priced.
struct ShapeFacts {
  ShapeAlgorithm algorithm = ShapeAlgorithm::ring;
  bool multi_domain = false;  // spans several scale-up domains (nNodes > 1)
  double payload_bytes = 0;   // nccl-tests' size: each rank's buffer
  int ranks = 0;
};
// `multi_domain`: LL's scale-up steps are nccl_ll_multi_domain_scale_up_factor times longer. A
// tree AllReduce takes the tree's latencies and, with nccl_tree_size_correction, tuning.cc's
// per-size bandwidth factor; a multi-domain Simple ring AllReduce of at least ranks/16 · 64 KiB
// takes nccl_simple_ring_plateau_factor times its latency.
ProtocolTerms protocol_terms(const CostParams& p, NcclProtocol protocol, const ShapeFacts& shape);

// tuning.cc's treeCorrectionFactor for a tree AllReduce of `payload_bytes` under `protocol`.
double tree_size_correction(NcclProtocol protocol, double payload_bytes);

// The shape under one protocol: launch = the GPU's kernel launch + base latency; each stage's
// latency = its steps · the protocol's step latencies, plus the route latency of each step
// across domains (NCCL's NVLink step figure is the whole step; its network figure is its
// software pipeline's, measured on InfiniBand, so a slower fabric such as EFA adds its own);
// every flow's bytes / bandwidth_fraction (the protocol's wire overhead, so that links shared with
// other traffic see it too).
CollectiveDemand with_protocol(const Cluster& cluster, const CollectiveShape& shape,
                               NcclProtocol protocol, const CostParams& p);

// The demands the collective model considers for `shape`: ideal, {shape.demand}; nccl, one per
// protocol (LL, LL128, Simple). An empty shape gives its empty demand.
std::vector<CollectiveDemand> model_candidates(const Cluster& cluster, const CollectiveShape& shape,
                                               const CostParams& p);

// The candidate with the smallest idle-network time (the first on ties); candidates non-empty.
CollectiveDemand fastest(const Cluster& cluster, std::vector<CollectiveDemand> candidates,
                         const CostParams& p);

}  // namespace shardsim::cost_detail
