// The collective model's pricing of a collective's shape (see collective_shape.hpp).
#include "cost/collective_shape.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace shardsim::cost_detail {

double alltoall_peers_s(std::span<const std::pair<double, double>> peers, const CostParams& p) {
  double worst = 0;
  bool network = false;
  for (const auto& [up, out] : peers) {
    worst = std::max(worst, up * p.alltoall_peer_scale_up_s + out * p.alltoall_peer_scale_out_s);
    network = network || out > 0;
  }
  return worst + (network ? p.alltoall_scale_out_latency_s : 0.0);
}

namespace {

// tuning.cc's treeCorrectionFactor (NVIDIA/nccl 01afd20a, src/graph/tuning.cc): LL, LL128,
// Simple; index log2(bytes / 64), 64 B to 128 MiB; 1 beyond.
constexpr double kTreeCorrection[3][22] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9}};

ProtocolTerms ring_terms(const CostParams& p, NcclProtocol protocol) {
  switch (protocol) {
    case NcclProtocol::ll:
      return {p.nccl_ll_base_latency_s, p.nccl_ll_scale_up_step_s, p.nccl_ll_scale_out_step_s,
              p.nccl_ll_bandwidth_fraction};
    case NcclProtocol::ll128:
      return {p.nccl_ll128_base_latency_s, p.nccl_ll128_scale_up_step_s,
              p.nccl_ll128_scale_out_step_s, p.nccl_ll128_bandwidth_fraction};
    case NcclProtocol::simple:
      return {p.nccl_simple_base_latency_s, p.nccl_simple_scale_up_step_s,
              p.nccl_simple_scale_out_step_s, p.nccl_simple_bandwidth_fraction};
  }
  throw std::logic_error("unhandled NCCL protocol");
}

ProtocolTerms tree_latencies(const CostParams& p, NcclProtocol protocol, ProtocolTerms t) {
  switch (protocol) {
    case NcclProtocol::ll:
      t.base_latency_s = p.nccl_tree_ll_base_latency_s;
      t.scale_up_step_s = p.nccl_tree_ll_scale_up_step_s;
      t.scale_out_step_s = p.nccl_tree_ll_scale_out_step_s;
      return t;
    case NcclProtocol::ll128:
      t.base_latency_s = p.nccl_tree_ll128_base_latency_s;
      t.scale_up_step_s = p.nccl_tree_ll128_scale_up_step_s;
      t.scale_out_step_s = p.nccl_tree_ll128_scale_out_step_s;
      return t;
    case NcclProtocol::simple:
      t.base_latency_s = p.nccl_tree_simple_base_latency_s;
      t.scale_up_step_s = p.nccl_tree_simple_scale_up_step_s;
      t.scale_out_step_s = p.nccl_tree_simple_scale_out_step_s;
      return t;
  }
  throw std::logic_error("unhandled NCCL protocol");
}

}  // namespace

double tree_size_correction(NcclProtocol protocol, double payload_bytes) {
  // log2i(nBytes >> 6): the floor of log2, 0 for fewer than 128 bytes.
  int index = 0;
  for (double chunks = std::floor(payload_bytes / 64.0); chunks >= 2.0; chunks /= 2.0) ++index;
  if (index >= 22) return 1.0;
  return kTreeCorrection[static_cast<int>(protocol)][index];
}

ProtocolTerms protocol_terms(const CostParams& p, NcclProtocol protocol, const ShapeFacts& shape) {
  ProtocolTerms t = ring_terms(p, protocol);
  if (shape.algorithm == ShapeAlgorithm::tree_allreduce) {
    t = tree_latencies(p, protocol, t);
    if (p.nccl_tree_size_correction) {
      t.bandwidth_fraction *= tree_size_correction(protocol, shape.payload_bytes);
    }
  }
  // tuning.cc: "if (comm->nNodes > 1 && p == NCCL_PROTO_LL) intraLat *= 1.8", every algorithm.
  if (protocol == NcclProtocol::ll && shape.multi_domain) {
    t.scale_up_step_s *= p.nccl_ll_multi_domain_scale_up_factor;
  }
  // tuning.cc (ncclTopoGetAlgoTime): "Plateau effect of ring", nBytes >= nRanks/16.0*65536.
  if (shape.algorithm == ShapeAlgorithm::ring_allreduce && protocol == NcclProtocol::simple &&
      shape.multi_domain && shape.payload_bytes >= shape.ranks / 16.0 * 65536.0) {
    t.latency_factor = p.nccl_simple_ring_plateau_factor;
  }
  return t;
}

NcclProtocolChoice effective_protocol(const Cluster& cluster, const CostParams& p) {
  if (p.nccl_protocol != NcclProtocolChoice::any) return p.nccl_protocol;
  return cluster.preset().network_forces_simple_protocol ? NcclProtocolChoice::simple
                                                         : NcclProtocolChoice::any;
}

CollectiveDemand with_protocol(const Cluster& cluster, const CollectiveShape& shape,
                               NcclProtocol protocol, const CostParams& p) {
  if (shape.steps.size() != shape.demand.stages.size()) {
    throw std::logic_error("a collective shape needs step counts for every stage");
  }
  ShapeFacts facts;
  facts.algorithm = shape.algorithm;
  facts.multi_domain = std::any_of(shape.steps.begin(), shape.steps.end(),
                                   [](const StageSteps& s) { return s.scale_out > 0; });
  facts.payload_bytes = shape.demand.payload_bytes;
  facts.ranks = shape.ranks;
  const ProtocolTerms t = protocol_terms(p, protocol, facts);
  CollectiveDemand d = shape.demand;
  if (d.empty()) return d;
  d.launch_s = cluster.gpu().kernel_launch_s + t.latency_factor * t.base_latency_s;
  for (std::size_t k = 0; k < d.stages.size(); ++k) {
    CollectiveStage& stage = d.stages[k];
    const StageSteps& n = shape.steps[k];
    stage.latency_s = t.latency_factor * (n.scale_up * t.scale_up_step_s +
                                          n.scale_out * (t.scale_out_step_s + n.scale_out_route_s));
    for (DemandFlow& f : stage.flows) f.bytes /= t.bandwidth_fraction;
  }
  return d;
}

std::vector<CollectiveDemand> model_candidates(const Cluster& cluster, const CollectiveShape& shape,
                                               const CostParams& p) {
  if (p.collective_model == CollectiveModelKind::ideal || shape.demand.empty()) {
    return {shape.demand};
  }
  std::vector<CollectiveDemand> out;
  const NcclProtocolChoice allowed = effective_protocol(cluster, p);
  for (NcclProtocol protocol : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
    if (protocol_allowed(allowed, protocol))
      out.push_back(with_protocol(cluster, shape, protocol, p));
  }
  return out;
}

bool protocol_allowed(NcclProtocolChoice choice, NcclProtocol protocol) {
  switch (choice) {
    case NcclProtocolChoice::any:
      return true;
    case NcclProtocolChoice::ll:
      return protocol == NcclProtocol::ll;
    case NcclProtocolChoice::ll128:
      return protocol == NcclProtocol::ll128;
    case NcclProtocolChoice::simple:
      return protocol == NcclProtocol::simple;
  }
  return true;
}

CollectiveDemand fastest(const Cluster& cluster, std::vector<CollectiveDemand> candidates,
                         const CostParams& p) {
  if (candidates.empty()) throw std::logic_error("no candidate demand to choose from");
  std::size_t best = 0;
  double best_s = idle_time_s(cluster, candidates[0], p);
  for (std::size_t k = 1; k < candidates.size(); ++k) {
    const double s = idle_time_s(cluster, candidates[k], p);
    if (s < best_s) {
      best = k;
      best_s = s;
    }
  }
  return std::move(candidates[best]);
}

}  // namespace shardsim::cost_detail
