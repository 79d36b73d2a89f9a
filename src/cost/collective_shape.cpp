// The collective model's pricing of a collective's shape (see collective_shape.hpp).
#include "collective_shape.hpp"

#include <algorithm>
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

ProtocolTerms protocol_terms(const CostParams& p, NcclProtocol protocol, bool multi_domain) {
  switch (protocol) {
    case NcclProtocol::ll:
      return {
          p.nccl_ll_base_latency_s,
          p.nccl_ll_scale_up_step_s * (multi_domain ? p.nccl_ll_multi_domain_scale_up_factor : 1.0),
          p.nccl_ll_scale_out_step_s, p.nccl_ll_bandwidth_fraction};
    case NcclProtocol::ll128:
      return {p.nccl_ll128_base_latency_s, p.nccl_ll128_scale_up_step_s,
              p.nccl_ll128_scale_out_step_s, p.nccl_ll128_bandwidth_fraction};
    case NcclProtocol::simple:
      return {p.nccl_simple_base_latency_s, p.nccl_simple_scale_up_step_s,
              p.nccl_simple_scale_out_step_s, p.nccl_simple_bandwidth_fraction};
  }
  throw std::logic_error("unhandled NCCL protocol");
}

CollectiveDemand with_protocol(const Cluster& cluster, const CollectiveShape& shape,
                               NcclProtocol protocol, const CostParams& p) {
  if (shape.steps.size() != shape.demand.stages.size()) {
    throw std::logic_error("a collective shape needs step counts for every stage");
  }
  const bool multi_domain = std::any_of(shape.steps.begin(), shape.steps.end(),
                                        [](const StageSteps& s) { return s.scale_out > 0; });
  const ProtocolTerms t = protocol_terms(p, protocol, multi_domain);
  CollectiveDemand d = shape.demand;
  if (d.empty()) return d;
  d.launch_s = cluster.gpu().kernel_launch_s + t.base_latency_s;
  for (std::size_t k = 0; k < d.stages.size(); ++k) {
    CollectiveStage& stage = d.stages[k];
    const StageSteps& n = shape.steps[k];
    stage.latency_s =
        n.scale_up * t.scale_up_step_s + n.scale_out * (t.scale_out_step_s + n.scale_out_route_s);
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
  for (NcclProtocol protocol : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
    if (protocol_allowed(p.nccl_protocol, protocol))
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
