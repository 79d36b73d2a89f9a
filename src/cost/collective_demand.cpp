// Network demands of collectives and their α-β time on an idle network (docs/model.md).
#include "shardsim/cost/collective_demand.hpp"

#include <algorithm>
#include <cmath>

#include "cost/topology_terms.hpp"

namespace shardsim {

void CollectiveStage::add_flow(double bytes, std::span<const int> flow_links) {
  if (!(bytes > 0) || flow_links.empty()) return;
  DemandFlow f;
  f.bytes = bytes;
  f.first_link = static_cast<std::uint32_t>(links.size());
  f.num_links = static_cast<std::uint32_t>(flow_links.size());
  links.insert(links.end(), flow_links.begin(), flow_links.end());
  flows.push_back(f);
}

// launch + Σ_stages ( latency + max_links Σ bytes on the link / (bandwidth · efficiency) )
double idle_time_s(const Cluster& cluster, const CollectiveDemand& demand, const CostParams& p) {
  const auto& links = cluster.links();
  std::vector<double> per_link(links.size(), 0.0);
  std::vector<int> touched;
  double total = demand.launch_s;
  for (const CollectiveStage& stage : demand.stages) {
    for (const DemandFlow& f : stage.flows) {
      for (std::uint32_t k = 0; k < f.num_links; ++k) {
        const auto l = static_cast<std::size_t>(stage.links[f.first_link + k]);
        if (per_link[l] == 0) touched.push_back(static_cast<int>(l));
        per_link[l] += f.bytes;
      }
    }
    double worst_s = 0;
    for (int l : touched) {
      const auto li = static_cast<std::size_t>(l);
      const double bw =
          cost_detail::require_link_rate(links[li].spec.bandwidth_Bps, links[li].name, cluster);
      worst_s = std::max(worst_s, per_link[li] / (bw * p.collective_bandwidth_efficiency));
      per_link[li] = 0;
    }
    touched.clear();
    total += stage.latency_s + worst_s;
  }
  return total;
}

std::vector<double> achievable_link_Bps(const Cluster& cluster, const CostParams& p) {
  std::vector<double> out;
  out.reserve(cluster.links().size());
  for (const LinkInfo& l : cluster.links()) {
    out.push_back(l.spec.bandwidth_Bps * p.collective_bandwidth_efficiency);
  }
  return out;
}

}  // namespace shardsim
