// nccl-tests' view of one collective over the whole cluster (cost/collective_predictor.hpp).
#include "shardsim/cost/collective_predictor.hpp"

#include <algorithm>
#include <stdexcept>

#include "cost/checks.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/collective_tail.hpp"
#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/hw/level_table.hpp"

namespace shardsim {

namespace {

constexpr CollectiveOp kOps[] = {CollectiveOp::allreduce, CollectiveOp::allgather,
                                 CollectiveOp::reduce_scatter, CollectiveOp::alltoall,
                                 CollectiveOp::sendrecv};

double uniform_alltoall_s(const Cluster& cluster, double size_bytes, const CostParams& p) {
  return alltoallv_s(cluster, uniform_alltoall_traffic(cluster, size_bytes), p);
}

// Rank g sends S to rank g + 1 (mod n) while receiving from g − 1: the slowest pair sets the
// time. Ranks in id order leave a node only from its last GPU, so the pairs' routes do not share
// a link (no contention to model). One rank sends to itself: nothing to time.
double ring_sendrecv_s(const Cluster& cluster, double size_bytes, const CostParams& p) {
  const int n = cluster.num_gpus();
  double worst = 0;
  if (n < 2) return 0.0;
  for (int g = 0; g < n; ++g) {
    worst = std::max(worst, p2p_s(cluster, g, (g + 1) % n, 1.0, size_bytes, p));
  }
  return worst;
}

}  // namespace

LevelTraffic uniform_alltoall_traffic(const Cluster& cluster, double size_bytes) {
  const int n = cluster.num_gpus();
  const LevelTable levels(cluster);
  LevelTraffic traffic(cluster);
  const double share = size_bytes / n;
  for (int src = 0; src < n; ++src) {
    for (int dst = 0; dst < n; ++dst) {
      if (src != dst) traffic.add(src, dst, levels.level(src, dst), share);
    }
  }
  return traffic;
}

const std::vector<std::string>& collective_op_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (CollectiveOp op : kOps) v.emplace_back(to_string(op));
    return v;
  }();
  return names;
}

std::optional<CollectiveOp> collective_op_named(std::string_view name) {
  for (CollectiveOp op : kOps) {
    if (to_string(op) == name) return op;
  }
  return std::nullopt;
}

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::allreduce:
      return "allreduce";
    case CollectiveOp::allgather:
      return "allgather";
    case CollectiveOp::reduce_scatter:
      return "reduce_scatter";
    case CollectiveOp::alltoall:
      return "alltoall";
    case CollectiveOp::sendrecv:
      return "sendrecv";
  }
  return "?";
}

double busbw_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::allreduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::allgather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::alltoall:
      return (n - 1) / n;
    case CollectiveOp::sendrecv:
      return 1.0;
  }
  return 1.0;
}

std::string_view redop_of(CollectiveOp op) {
  return op == CollectiveOp::allreduce || op == CollectiveOp::reduce_scatter ? "sum" : "none";
}

double element_count(CollectiveOp op, double size_bytes, double element_bytes, int ranks) {
  const double elements = size_bytes / element_bytes;
  if (op == CollectiveOp::allreduce || op == CollectiveOp::sendrecv) return elements;
  return elements / ranks;
}

CollectivePrediction predict_collective(const Cluster& cluster, CollectiveOp op, double size_bytes,
                                        const CostParams& p) {
  cost_detail::require_work(size_bytes, "collective size");
  const std::vector<int> all = all_gpu_ids(cluster.num_gpus());
  CollectivePrediction out;
  out.size_bytes = size_bytes;
  switch (op) {
    case CollectiveOp::allreduce:
      out.time_s = allreduce_s(cluster, all, size_bytes, p);
      break;
    case CollectiveOp::allgather:
      out.time_s = allgather_s(cluster, all, size_bytes, p);
      break;
    case CollectiveOp::reduce_scatter:
      out.time_s = reduce_scatter_s(cluster, all, size_bytes, p);
      break;
    case CollectiveOp::alltoall:
      out.time_s = uniform_alltoall_s(cluster, size_bytes, p);
      break;
    case CollectiveOp::sendrecv:
      out.time_s = ring_sendrecv_s(cluster, size_bytes, p);
      break;
  }
  // The slowest participant: nccl-tests times the mean over iterations of the slowest rank.
  if (p.collective_model == CollectiveModelKind::nccl && op != CollectiveOp::sendrecv) {
    out.time_s *= expected_max_lognormal(cluster.num_gpus(), p.collective_jitter_cv);
  }
  if (out.time_s > 0) {
    out.algbw_Bps = size_bytes / out.time_s;
    out.busbw_Bps = out.algbw_Bps * busbw_factor(op, cluster.num_gpus());
  }
  return out;
}

}  // namespace shardsim
