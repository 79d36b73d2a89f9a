// α-β costs of the ring collectives: AllReduce (flat ring and hierarchical), ReduceScatter and
// AllGather (docs/model.md, "Ring collectives"), as network demands over the topology.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "cost/checks.hpp"
#include "cost/collective_shape.hpp"
#include "cost/demand_builder.hpp"
#include "cost/ring_shapes.hpp"
#include "cost/topology_terms.hpp"
#include "shardsim/cost/collective_cost.hpp"

namespace shardsim {

namespace {

using cost_detail::add_ring;
using cost_detail::CollectiveShape;
using cost_detail::fastest;
using cost_detail::model_candidates;
using cost_detail::require_work;
using cost_detail::ring_shape;
using cost_detail::RingShape;
using cost_detail::route_latency_s;
using cost_detail::StageBuilder;
using cost_detail::StageSteps;

bool nothing_to_do(const RingShape& s, double bytes) {
  return s.size <= 1 || bytes <= 0;
}

std::vector<int> sorted(std::span<const int> gpus) {
  std::vector<int> v(gpus.begin(), gpus.end());
  std::sort(v.begin(), v.end());
  return v;
}

// The GPUs of each spanned scale-up domain, in domain order, each list ascending.
std::vector<std::vector<int>> by_domain(const Cluster& cluster, std::span<const int> gpus) {
  std::map<int, std::vector<int>> m;  // ordered: deterministic
  for (int g : sorted(gpus)) m[cluster.scale_up_domain_of(g)].push_back(g);
  std::vector<std::vector<int>> out;
  for (auto& [domain, members] : m) out.push_back(std::move(members));
  return out;
}

// NCCL's rings over several scale-up domains (one channel per rail): ring r visits every
// domain's GPUs rotated so that it leaves each domain from its r-th GPU and enters the next at
// that domain's (r+1)-th, so each GPU's NIC carries one ring's crossing. c rings, c = the fewest
// GPUs of a spanned domain; one domain, or one GPU in some domain: the single ring in id order.
std::vector<std::vector<int>> rail_rings(const Cluster& cluster, std::span<const int> gpus,
                                         const RingShape& s) {
  if (s.domains < 2 || s.min_gpus_per_domain < 2) return {sorted(gpus)};
  const std::vector<std::vector<int>> domains = by_domain(cluster, gpus);
  std::vector<std::vector<int>> rings;
  for (int r = 0; r < s.min_gpus_per_domain; ++r) {
    std::vector<int> ring;
    ring.reserve(gpus.size());
    for (const std::vector<int>& members : domains) {
      const std::size_t g = members.size();
      for (std::size_t k = 0; k < g; ++k) {
        ring.push_back(members[(static_cast<std::size_t>(r) + 1 + k) % g]);
      }
    }
    rings.push_back(std::move(ring));
  }
  return rings;
}

}  // namespace

// `phases` passes of a ring over the n GPUs: every hop carries phases · (n−1)/n · S, split over
// the rails' rings; phases · (n−1) steps of the farthest hop's α (ideal), of which
// phases · (d−1) cross between the d domains (NCCL's step counts).
CollectiveShape cost_detail::flat_ring(const Cluster& cluster, std::span<const int> gpus,
                                       double bytes, int phases, const CostParams& p,
                                       FlowGranularity granularity) {
  CollectiveShape shape;
  shape.demand.payload_bytes = bytes;
  const RingShape s = ring_shape(cluster, gpus);  // validates
  shape.algorithm =
      phases == 2 ? cost_detail::ShapeAlgorithm::ring_allreduce : cost_detail::ShapeAlgorithm::ring;
  shape.ranks = s.size;
  if (nothing_to_do(s, bytes)) return shape;
  const double steps = s.size - 1;
  const std::vector<std::vector<int>> rings = rail_rings(cluster, gpus, s);
  const double per_ring = phases * (steps / s.size * bytes) / static_cast<double>(rings.size());
  StageBuilder stage(cluster, granularity, p);
  for (const std::vector<int>& ring : rings) add_ring(stage, cluster, ring, per_ring);
  shape.demand.launch_s = p.collective_launch_s;
  const double alpha = route_latency_s(cluster, s.far_src, s.far_dst);
  shape.demand.stages.push_back(stage.finish(phases * steps * alpha));
  const double out = s.domains > 1 ? phases * (s.domains - 1.0) : 0.0;
  shape.steps.push_back(StageSteps{phases * steps - out, out, alpha});
  return shape;
}

namespace {

using cost_detail::flat_ring;

// The three stages of the hierarchical AllReduce (see allreduce_hierarchical_demand); as NCCL's
// tree when `tree`: the same link loads in one pipelined stage, with tuning.cc's tree step
// counts 2·((g−1) scale-up + ⌊log2 d⌋ scale-out).
CollectiveShape hierarchical(const Cluster& cluster, std::span<const int> gpus, double bytes,
                             const RingShape& s, bool tree, const CostParams& p,
                             FlowGranularity granularity) {
  const std::vector<std::vector<int>> domains = by_domain(cluster, gpus);
  const double alpha_up = route_latency_s(cluster, s.local_src, s.local_dst);
  const double alpha_out = route_latency_s(cluster, s.far_src, s.far_dst);
  const int g_max = s.max_gpus_per_domain;
  const int g_min = s.min_gpus_per_domain;
  auto intra = [&]() {
    StageBuilder stage(cluster, granularity, p);
    for (const std::vector<int>& members : domains) {
      const double g = static_cast<double>(members.size());
      add_ring(stage, cluster, members, (g - 1) / g * bytes);
    }
    return stage.finish((g_max - 1) * alpha_up);
  };
  CollectiveShape shape;
  CollectiveDemand& d = shape.demand;
  d.payload_bytes = bytes;
  d.launch_s = p.collective_launch_s;
  d.stages.push_back(intra());
  {
    StageBuilder stage(cluster, granularity, p);
    const double chunk = bytes / g_min;
    for (int r = 0; r < g_max; ++r) {
      std::vector<int> ring;
      for (const std::vector<int>& members : domains) {
        if (static_cast<int>(members.size()) > r) ring.push_back(members[static_cast<size_t>(r)]);
      }
      const double dr = static_cast<double>(ring.size());
      add_ring(stage, cluster, ring, 2 * ((dr - 1) / dr * chunk));
    }
    d.stages.push_back(stage.finish(2 * (s.domains - 1) * alpha_out));
  }
  d.stages.push_back(intra());
  if (!tree) {
    shape.steps = {StageSteps{g_max - 1.0, 0, 0}, StageSteps{0, 2.0 * (s.domains - 1), alpha_out},
                   StageSteps{g_max - 1.0, 0, 0}};
    return shape;
  }
  // NCCL's tree pipelines its chunks through the whole tree: one stage with every link's load.
  CollectiveStage merged;
  for (const CollectiveStage& st : d.stages) {
    for (const DemandFlow& f : st.flows) {
      merged.add_flow(f.bytes, std::span<const int>(st.links).subspan(f.first_link, f.num_links));
    }
    merged.latency_s += st.latency_s;
  }
  d.stages = {std::move(merged)};
  shape.algorithm = cost_detail::ShapeAlgorithm::tree_allreduce;
  shape.ranks = s.size;
  const double tree_out = 2.0 * std::floor(std::log2(static_cast<double>(s.domains)));
  shape.steps = {StageSteps{2.0 * (g_max - 1.0), tree_out, alpha_out}};
  return shape;
}

bool has_hierarchy(const RingShape& s) {
  return s.domains >= 2 && s.max_gpus_per_domain >= 2;
}

}  // namespace

// The shapes an AllReduce can take under the model: the rail rings, and the hierarchical ring
// (ideal) or NCCL's tree (nccl) where the GPUs span several domains with two or more in one.
std::vector<CollectiveShape> cost_detail::allreduce_shapes(const Cluster& cluster,
                                                           std::span<const int> gpus, double bytes,
                                                           const CostParams& p,
                                                           FlowGranularity granularity) {
  // A forced algorithm (nccl model, NCCL_ALGO) keeps one shape; `tree` where the GPUs span no
  // hierarchy falls back to the ring.
  const bool nccl = p.collective_model == CollectiveModelKind::nccl;
  const NcclAlgorithm algorithm = nccl ? p.nccl_algorithm : NcclAlgorithm::any;
  const RingShape s = ring_shape(cluster, gpus);
  const bool hierarchy = !nothing_to_do(s, bytes) && has_hierarchy(s);
  std::vector<CollectiveShape> shapes;
  if (algorithm != NcclAlgorithm::tree || !hierarchy) {
    shapes.push_back(flat_ring(cluster, gpus, bytes, 2, p, granularity));
  }
  if (hierarchy && algorithm != NcclAlgorithm::ring) {
    shapes.push_back(hierarchical(cluster, gpus, bytes, s, nccl, p, granularity));
  }
  return shapes;
}

namespace {

using cost_detail::allreduce_shapes;

CollectiveDemand priced(const Cluster& cluster, const CollectiveShape& shape, const CostParams& p) {
  return fastest(cluster, model_candidates(cluster, shape, p), p);
}

}  // namespace

// Flat ring (Patarasuk & Yuan's bandwidth-optimal ring, as used by NCCL), over the rails:
//   2(N−1)/N · S / (rings · bw_slowest_hop) + 2(N−1)·α + launch   (ideal)
CollectiveDemand allreduce_ring_demand(const Cluster& cluster, std::span<const int> gpus,
                                       double bytes, const CostParams& p,
                                       FlowGranularity granularity) {
  require_work(bytes, "AllReduce bytes");
  return priced(cluster, flat_ring(cluster, gpus, bytes, 2, p, granularity), p);
}

// Hierarchical (Neo App. B: AllReduce "utilizes both scale-out and NVLINK bandwidths"):
//   reduce-scatter inside each domain          (g−1)/g · S per hop,        (g_max−1)·α_up
//   AllReduce of S/g across the d domains,     2(d−1)/d · S/g per hop,     2(d−1)·α_out
//     in g parallel rings (ring r: the r-th GPU of every domain)
//   all-gather inside each domain              (g−1)/g · S per hop,        (g_max−1)·α_up
//   + launch once.
// With unequal GPUs per domain it is conservative: the cross-domain chunk is S / g_min.
// Under the nccl model this variant stands for NCCL's tree: the same link loads (a documented
// choice: NCCL's chains and double binary tree move about as much per NIC), pipelined in one
// stage, with NCCL's tree step counts.
CollectiveDemand allreduce_hierarchical_demand(const Cluster& cluster, std::span<const int> gpus,
                                               double bytes, const CostParams& p,
                                               FlowGranularity granularity) {
  require_work(bytes, "AllReduce bytes");
  const RingShape s = ring_shape(cluster, gpus);
  if (nothing_to_do(s, bytes)) {
    CollectiveDemand none;
    none.payload_bytes = bytes;
    return none;
  }
  if (!has_hierarchy(s)) return allreduce_ring_demand(cluster, gpus, bytes, p, granularity);
  const bool tree = p.collective_model == CollectiveModelKind::nccl;
  return priced(cluster, hierarchical(cluster, gpus, bytes, s, tree, p, granularity), p);
}

CollectiveDemand allreduce_demand(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                  const CostParams& p, FlowGranularity granularity) {
  require_work(bytes, "AllReduce bytes");
  std::vector<CollectiveDemand> candidates;
  for (const CollectiveShape& shape : allreduce_shapes(cluster, gpus, bytes, p, granularity)) {
    for (CollectiveDemand& d : model_candidates(cluster, shape, p)) {
      candidates.push_back(std::move(d));
    }
  }
  return fastest(cluster, std::move(candidates), p);
}

double allreduce_ring_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                        const CostParams& p) {
  return idle_time_s(cluster, allreduce_ring_demand(cluster, gpus, bytes, p), p);
}

double allreduce_hierarchical_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                const CostParams& p) {
  return idle_time_s(cluster, allreduce_hierarchical_demand(cluster, gpus, bytes, p), p);
}

double allreduce_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                   const CostParams& p) {
  return idle_time_s(cluster, allreduce_demand(cluster, gpus, bytes, p), p);
}

// ReduceScatter / AllGather of an S-byte buffer: (N−1)/N · S per hop (over the rails' rings)
// + (N−1)·α + launch (row-wise sharding's forward uses ReduceScatter: Neo §4).
CollectiveDemand reduce_scatter_demand(const Cluster& cluster, std::span<const int> gpus,
                                       double bytes, const CostParams& p,
                                       FlowGranularity granularity) {
  require_work(bytes, "ReduceScatter bytes");
  return priced(cluster, flat_ring(cluster, gpus, bytes, 1, p, granularity), p);
}

CollectiveDemand allgather_demand(const Cluster& cluster, std::span<const int> gpus, double bytes,
                                  const CostParams& p, FlowGranularity granularity) {
  require_work(bytes, "AllGather bytes");
  return priced(cluster, flat_ring(cluster, gpus, bytes, 1, p, granularity), p);
}

double reduce_scatter_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                        const CostParams& p) {
  return idle_time_s(cluster, reduce_scatter_demand(cluster, gpus, bytes, p), p);
}

double allgather_s(const Cluster& cluster, std::span<const int> gpus, double bytes,
                   const CostParams& p) {
  return idle_time_s(cluster, allgather_demand(cluster, gpus, bytes, p), p);
}

AllReduceTimes::AllReduceTimes(const Cluster& cluster, std::span<const int> gpus,
                               const CostParams& p)
    : params_(p) {
  const RingShape s = ring_shape(cluster, gpus);  // validates
  trivial_ = s.size <= 1;
  ranks_ = s.size;
  if (trivial_) return;
  // The lines at a bandwidth correction of 1 and without the plateau: at() applies both.
  CostParams flat = p;
  flat.nccl_tree_size_correction = false;
  flat.nccl_simple_ring_plateau_factor = 1;
  const bool nccl = p.collective_model == CollectiveModelKind::nccl;
  const NcclProtocolChoice allowed = cost_detail::effective_protocol(cluster, p);
  for (const CollectiveShape& shape :
       allreduce_shapes(cluster, gpus, 1.0, flat, FlowGranularity::aggregated)) {
    if (shape.demand.empty()) continue;
    const bool multi_domain = std::any_of(shape.steps.begin(), shape.steps.end(),
                                          [](const StageSteps& st) { return st.scale_out > 0; });
    if (!nccl) {
      lines_.push_back(line_of(cluster, shape.demand, flat));
      continue;
    }
    for (cost_detail::NcclProtocol protocol :
         {cost_detail::NcclProtocol::ll, cost_detail::NcclProtocol::ll128,
          cost_detail::NcclProtocol::simple}) {
      if (!cost_detail::protocol_allowed(allowed, protocol)) continue;
      Line line =
          line_of(cluster, cost_detail::with_protocol(cluster, shape, protocol, flat), flat);
      line.launch_s = cluster.gpu().kernel_launch_s;
      line.latency_s -= line.launch_s;
      line.protocol = static_cast<int>(protocol);
      line.algorithm = static_cast<int>(shape.algorithm);
      line.multi_domain = multi_domain;
      lines_.push_back(line);
    }
  }
}

// The terms of idle_time_s (collective_demand.cpp) for a demand built for S = 1 byte: what does
// not scale with S, and what does.
AllReduceTimes::Line AllReduceTimes::line_of(const Cluster& cluster, const CollectiveDemand& unit,
                                             const CostParams& p) {
  Line line;
  line.launch_s = 0;
  line.latency_s = unit.launch_s;
  for (const CollectiveStage& stage : unit.stages) {
    line.latency_s += stage.latency_s;
    CollectiveDemand one;
    one.stages.push_back(stage);
    one.stages.back().latency_s = 0;
    line.per_byte_s += idle_time_s(cluster, one, p);
  }
  return line;
}

double AllReduceTimes::at(double bytes) const {
  require_work(bytes, "AllReduce bytes");
  if (trivial_ || bytes <= 0) return 0.0;
  double best = std::numeric_limits<double>::infinity();
  for (const Line& l : lines_) {
    double latency = l.latency_s;
    double per_byte = l.per_byte_s;
    if (l.protocol >= 0) {
      // The refinements of cost_detail::protocol_terms, by size.
      cost_detail::ShapeFacts facts;
      facts.algorithm = static_cast<cost_detail::ShapeAlgorithm>(l.algorithm);
      facts.multi_domain = l.multi_domain;
      facts.payload_bytes = bytes;
      facts.ranks = ranks_;
      const auto protocol = static_cast<cost_detail::NcclProtocol>(l.protocol);
      latency *= cost_detail::protocol_terms(params_, protocol, facts).latency_factor;
      if (facts.algorithm == cost_detail::ShapeAlgorithm::tree_allreduce &&
          params_.nccl_tree_size_correction) {
        per_byte /= cost_detail::tree_size_correction(protocol, bytes);
      }
    }
    best = std::min(best, l.launch_s + latency + bytes * per_byte);
  }
  return best;
}

}  // namespace shardsim
