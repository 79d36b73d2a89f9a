// Point-to-point transfers with the small-message model (docs/model.md, "Point-to-point
// transfers").
#include <fmt/format.h>

#include <stdexcept>

#include "cost/checks.hpp"
#include "cost/demand_builder.hpp"
#include "cost/topology_terms.hpp"
#include "shardsim/cost/collective_cost.hpp"

namespace shardsim {

namespace {

void check_pair(const Cluster& cluster, int a, int b) {
  const int n = cluster.num_gpus();
  if (a < 0 || a >= n || b < 0 || b >= n) {
    throw std::invalid_argument(
        fmt::format("transfer between GPUs {} and {} in a cluster of {} GPUs", a, b, n));
  }
}

// `messages` messages of `message_bytes` from src to dst: one flow over the route carrying
// messages · (message_bytes + n½(level)), after one route latency.
CollectiveDemand message_demand(const Cluster& cluster, int src, int dst, double messages,
                                double message_bytes, double launch_s, const CostParams& p) {
  check_pair(cluster, src, dst);
  cost_detail::require_work(messages, "message count");
  cost_detail::require_work(message_bytes, "message bytes");
  CollectiveDemand d;
  d.payload_bytes = messages * message_bytes;
  if (src == dst || messages <= 0 || message_bytes <= 0) return d;         // local: free
  cost_detail::StageBuilder stage(cluster, FlowGranularity::per_flow, p);  // one route, one flow
  stage.add_route(messages * (message_bytes + small_message_half_bytes(cluster, src, dst, p)), src,
                  dst);
  d.launch_s = launch_s;
  d.stages.push_back(stage.finish(cost_detail::route_latency_s(cluster, src, dst)));
  return d;
}

}  // namespace

double small_message_half_bytes(const Cluster& cluster, int src, int dst, const CostParams& p) {
  return cluster.level_between(src, dst) <= 1 ? p.small_message_half_bytes_scale_up
                                              : p.small_message_half_bytes_scale_out;
}

double message_efficiency(const Cluster& cluster, int src, int dst, double message_bytes,
                          const CostParams& p) {
  const double half = small_message_half_bytes(cluster, src, dst, p);
  return message_bytes / (message_bytes + half);
}

// T = launch + α_route + messages · (m + n½) / (bandwidth · efficiency)
CollectiveDemand p2p_demand(const Cluster& cluster, int src, int dst, double messages,
                            double message_bytes, const CostParams& p) {
  return message_demand(cluster, src, dst, messages, message_bytes, p.collective_launch_s, p);
}

double p2p_s(const Cluster& cluster, int src, int dst, double messages, double message_bytes,
             const CostParams& p) {
  return idle_time_s(cluster, p2p_demand(cluster, src, dst, messages, message_bytes, p), p);
}

}  // namespace shardsim
