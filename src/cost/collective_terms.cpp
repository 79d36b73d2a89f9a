// Taking a collective apart into priceable terms, and pricing them (cost/collective_terms.hpp).
#include "shardsim/cost/collective_terms.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "cost/checks.hpp"
#include "cost/collective_shape.hpp"
#include "cost/ring_shapes.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/collective_tail.hpp"

namespace shardsim {

namespace {

using cost_detail::CollectiveShape;
using cost_detail::NcclProtocol;
using cost_detail::protocol_terms;

constexpr NcclProtocol kProtocols[] = {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple};

// max over links of bytes / bandwidth for one stage: its idle time at efficiency 1, no latency.
double link_s(const Cluster& cluster, const CollectiveStage& stage, const CostParams& p) {
  CostParams full = p;
  full.collective_bandwidth_efficiency = 1;
  CollectiveDemand one;
  one.stages.push_back(stage);
  one.stages.back().latency_s = 0;
  return idle_time_s(cluster, one, full);
}

ShapeTerms stages_of(const Cluster& cluster, const CollectiveShape& shape, const CostParams& p) {
  ShapeTerms terms;
  terms.algorithm = shape.algorithm;
  terms.payload_bytes = shape.demand.payload_bytes;
  terms.ranks = shape.ranks;
  std::vector<StageTerms>& out = terms.stages;
  for (std::size_t k = 0; k < shape.demand.stages.size(); ++k) {
    StageTerms t;
    t.route_latency_s = shape.demand.stages[k].latency_s;
    if (k < shape.steps.size()) {
      t.steps_scale_up = shape.steps[k].scale_up;
      t.steps_scale_out = shape.steps[k].scale_out;
      t.scale_out_route_s = shape.steps[k].scale_out_route_s;
    }
    t.link_s = link_s(cluster, shape.demand.stages[k], p);
    out.push_back(t);
  }
  return terms;
}

void add_ring_shapes(CollectiveTerms& terms, const Cluster& cluster,
                     const std::vector<CollectiveShape>& shapes, const CostParams& p) {
  for (const CollectiveShape& s : shapes) {
    if (!s.demand.empty()) terms.shapes.push_back(stages_of(cluster, s, p));
  }
}

// The uniform AlltoAll of nccl-tests (S / n from every rank to every other), as the ideal
// model's one-stage demand, and the participants' peer counts by domain population.
void add_alltoall(CollectiveTerms& terms, const Cluster& cluster, double size_bytes,
                  const CostParams& p) {
  const int n = cluster.num_gpus();
  const LevelTraffic traffic = uniform_alltoall_traffic(cluster, size_bytes);
  CostParams ideal = p;
  ideal.collective_model = CollectiveModelKind::ideal;
  const CollectiveDemand d = alltoallv_demand(cluster, traffic, ideal);
  if (d.stages.empty()) return;
  CollectiveShape shape;
  shape.demand = d;
  terms.shapes.push_back(stages_of(cluster, shape, p));
  terms.per_peer = true;
  std::vector<int> per_domain(static_cast<std::size_t>(cluster.num_scale_up_domains()), 0);
  for (int g = 0; g < n; ++g) ++per_domain[static_cast<std::size_t>(cluster.scale_up_domain_of(g))];
  for (int c : per_domain) {
    if (c == 0) continue;
    const std::pair<double, double> peers{c - 1.0, static_cast<double>(n - c)};
    if (std::find(terms.peer_counts.begin(), terms.peer_counts.end(), peers) ==
        terms.peer_counts.end()) {
      terms.peer_counts.push_back(peers);
    }
  }
}

double ideal_shape_s(const ShapeTerms& shape, const CostParams& p) {
  double t = p.collective_launch_s;
  for (const StageTerms& s : shape.stages) {
    t += s.route_latency_s + s.link_s / p.collective_bandwidth_efficiency;
  }
  return t;
}

double nccl_shape_s(const ShapeTerms& shape, double kernel_launch_s, NcclProtocol protocol,
                    const CostParams& p) {
  cost_detail::ShapeFacts facts;
  facts.algorithm = shape.algorithm;
  facts.multi_domain = std::any_of(shape.stages.begin(), shape.stages.end(),
                                   [](const StageTerms& s) { return s.steps_scale_out > 0; });
  facts.payload_bytes = shape.payload_bytes;
  facts.ranks = shape.ranks;
  const cost_detail::ProtocolTerms pt = protocol_terms(p, protocol, facts);
  double latency = pt.base_latency_s;
  double bandwidth = 0;
  for (const StageTerms& s : shape.stages) {
    latency += s.steps_scale_up * pt.scale_up_step_s +
               s.steps_scale_out * (pt.scale_out_step_s + s.scale_out_route_s);
    bandwidth += s.link_s / (p.collective_bandwidth_efficiency * pt.bandwidth_fraction);
  }
  return kernel_launch_s + pt.latency_factor * latency + bandwidth;
}

double alltoall_s(const CollectiveTerms& terms, const CostParams& p) {
  const StageTerms& s = terms.shapes.front().stages.front();
  const double bandwidth_s = s.link_s / p.collective_bandwidth_efficiency;
  if (terms.model == CollectiveModelKind::ideal) {
    return p.collective_launch_s + (s.route_latency_s + bandwidth_s);
  }
  const double peers_s = cost_detail::alltoall_peers_s(terms.peer_counts, p);
  return terms.kernel_launch_s + (s.route_latency_s + peers_s + bandwidth_s);
}

}  // namespace

CollectiveTerms collective_terms(const Cluster& cluster, CollectiveOp op, double size_bytes,
                                 const CostParams& p) {
  cost_detail::require_work(size_bytes, "collective size");
  CollectiveTerms terms;
  terms.model = p.collective_model;
  terms.protocol = cost_detail::effective_protocol(cluster, p);
  terms.kernel_launch_s = cluster.gpu().kernel_launch_s;
  terms.participants = cluster.num_gpus();
  const std::vector<int> all = all_gpu_ids(cluster.num_gpus());
  const auto agg = FlowGranularity::aggregated;
  switch (op) {
    case CollectiveOp::allreduce:
      add_ring_shapes(terms, cluster,
                      cost_detail::allreduce_shapes(cluster, all, size_bytes, p, agg), p);
      break;
    case CollectiveOp::allgather:
    case CollectiveOp::reduce_scatter:
      add_ring_shapes(terms, cluster, {cost_detail::flat_ring(cluster, all, size_bytes, 1, p, agg)},
                      p);
      break;
    case CollectiveOp::alltoall:
      add_alltoall(terms, cluster, size_bytes, p);
      break;
    case CollectiveOp::sendrecv:
      terms.fixed = true;
      terms.fixed_s = predict_collective(cluster, op, size_bytes, p).time_s;
      break;
  }
  return terms;
}

double price(const CollectiveTerms& terms, const CostParams& p) {
  if (p.collective_model != terms.model) {
    throw std::invalid_argument("collective terms priced under another collective model");
  }
  if (terms.fixed) return terms.fixed_s;
  if (terms.shapes.empty()) return 0.0;
  const double tail = terms.model == CollectiveModelKind::nccl
                          ? expected_max_lognormal(terms.participants, p.collective_jitter_cv)
                          : 1.0;
  if (terms.per_peer) return alltoall_s(terms, p) * tail;
  double best = std::numeric_limits<double>::infinity();
  for (const ShapeTerms& shape : terms.shapes) {
    if (terms.model == CollectiveModelKind::ideal) {
      best = std::min(best, ideal_shape_s(shape, p));
      continue;
    }
    for (NcclProtocol protocol : kProtocols) {
      if (!cost_detail::protocol_allowed(terms.protocol, protocol)) continue;
      best = std::min(best, nccl_shape_s(shape, terms.kernel_launch_s, protocol, p));
    }
  }
  return best * tail;
}

}  // namespace shardsim
