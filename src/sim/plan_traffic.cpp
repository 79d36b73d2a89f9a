// The per-plan half of an iteration (sim/plan_traffic.hpp): collectives, dense times, link
// capacities and the reported traffic, from the plan analysis.
#include "shardsim/sim/plan_traffic.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/host_step_cost.hpp"
#include "shardsim/cost/input_delivery_cost.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/cost/spread_traffic.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/sim/network_model.hpp"
#include "sim/host_work.hpp"
#include "sim/pair_traffic.hpp"

namespace shardsim {

namespace {

void check_options(const SimulationOptions& o, int n) {
  for (const Straggler& s : o.stragglers) {
    if (s.gpu < 0 || s.gpu >= n) {
      throw std::invalid_argument(
          fmt::format("straggler on GPU {} in a cluster of {} GPUs", s.gpu, n));
    }
    if (!(s.slowdown > 0) || !std::isfinite(s.slowdown)) {
      throw std::invalid_argument(fmt::format("straggler slowdown {}", s.slowdown));
    }
  }
  if (!(o.jitter_cv >= 0) || !std::isfinite(o.jitter_cv)) {
    throw std::invalid_argument(fmt::format("jitter cv {}", o.jitter_cv));
  }
  const NetworkModelInfo& network = network_model(o.link_sharing);  // invalid_argument if unknown
  if (network.max_gpus > 0 && n > network.max_gpus) {
    throw std::invalid_argument(fmt::format("network model '{}' on {} GPUs (at most {})",
                                            network.name, n, network.max_gpus));
  }
}

// Makes a SharedCollective from a demand (keeping the demand unless link sharing is off).
SharedCollective share(const SimulationInputs& in, PlanTraffic& t, std::vector<int> gpus,
                       CollectiveDemand demand) {
  SharedCollective c;
  c.gpus = std::move(gpus);
  c.bytes = demand.payload_bytes;
  c.duration_s = in.collective_model().idle_time_s(in.cluster, demand, in.cost);
  if (in.network().shares_links() && !demand.empty()) {
    c.demand_slot = static_cast<int>(t.shared_demands.size());
    t.shared_demands.push_back(std::move(demand));
  }
  return c;
}

// Pooled-embedding traffic of the AlltoAll groups (and of per-flow sharing's GPU pairs).
struct GroupTraffic {
  std::vector<LevelTraffic> fwd, bwd;
  std::vector<ByteMatrix> pair_fwd, pair_bwd;  // per-flow only (small clusters)
};

// One direction of the spreads: into the reported traffic and matrix, and each group's traffic
// (the pairs whose requester is in the group).
void add_spreads(const SpreadTraffic& spreads, double scale, bool reversed,
                 const MatrixUnits& units, LevelTraffic& reported, ByteMatrix& reported_units,
                 std::vector<LevelTraffic>& by_group) {
  spreads.add_to(reported, scale, reversed);
  if (units.count > 0) {
    spreads.add_to_units(reported_units, units.unit_of, units.count, scale, reversed);
  }
  if (by_group.size() == 1) {
    spreads.add_to(by_group.front(), scale, reversed);
    return;
  }
  for (std::size_t k = 0; k < by_group.size(); ++k) {
    spreads.add_to(by_group[k], scale, reversed, static_cast<int>(k));
  }
}

// Pooled-embedding traffic (forward: owner -> requester; backward: requester -> owner, the
// gradients of the same vectors), per GPU and level, per group, and for the report's matrix.
// Never an N x N matrix at scale: per-flow sharing (small clusters) is the only user of one.
GroupTraffic pooled_traffic(const SimulationInputs& in, const PlanAnalysis& a,
                            const LevelTable& levels, const MatrixUnits& units, std::size_t groups,
                            CommTraffic& comm) {
  const int n = in.cluster.num_gpus();
  const ServingMap& serving = a.serving;
  const double batch = in.workload.batch_per_gpu;
  const bool training = in.workload.mode == Mode::training;
  const bool per_flow = in.network().needs_pair_traffic();
  const double fwd_elem_bytes = bytes_per_element(in.model.comm_precision);
  const double bwd_elem_bytes = bytes_per_element(in.model.comm_bwd_precision);
  GroupTraffic gt;
  gt.fwd.assign(groups, LevelTraffic(in.cluster));
  gt.bwd.assign(groups, LevelTraffic(in.cluster));
  if (per_flow) {
    gt.pair_fwd.assign(groups, ByteMatrix(n));
    gt.pair_bwd.assign(groups, ByteMatrix(n));
  }
  // One direction of one transfer: into the reported traffic and matrix, its group's traffic
  // and (per-flow sharing) its group's pairs.
  const auto add = [&](LevelTraffic& reported, ByteMatrix& reported_units,
                       std::vector<LevelTraffic>& by_group, std::vector<ByteMatrix>& pairs, int src,
                       int dst, int level, std::size_t grp, double bytes) {
    reported.add(src, dst, level, bytes);
    by_group[grp].add(src, dst, level, bytes);
    if (per_flow) pairs[grp].at(src, dst) += bytes;
    if (units.count > 0) {
      reported_units.at(units.unit_of[static_cast<std::size_t>(src)],
                        units.unit_of[static_cast<std::size_t>(dst)]) += bytes;
    }
  };
  const auto transfer = [&](int owner, int g, double cols) {
    const double fwd_bytes = batch * cols * fwd_elem_bytes;
    const double bwd_bytes = batch * cols * bwd_elem_bytes;
    const int level = levels.level(owner, g);
    const auto grp = static_cast<std::size_t>(serving.group_of[static_cast<std::size_t>(g)]);
    add(comm.fwd, comm.fwd_matrix, gt.fwd, gt.pair_fwd, owner, g, level, grp, fwd_bytes);
    if (training) {
      add(comm.bwd, comm.bwd_matrix, gt.bwd, gt.pair_bwd, g, owner, level, grp, bwd_bytes);
    }
  };
  if (per_flow) {  // every pair, for the per-flow demands (small clusters)
    for_each_pooled_transfer(in.plan, serving, n, transfer);
  } else {  // one-to-many traffic summed per owner, spread without its pairs
    SpreadTraffic spreads(in.cluster, serving.group_of);
    const auto spread = [&](int owner, double cols, bool in_group) {
      spreads.add(owner, cols, in_group);
    };
    for_each_pooled_flow(in.plan, serving, n, transfer, spread);
    add_spreads(spreads, batch * fwd_elem_bytes, false, units, comm.fwd, comm.fwd_matrix, gt.fwd);
    if (training) {
      add_spreads(spreads, batch * bwd_elem_bytes, true, units, comm.bwd, comm.bwd_matrix, gt.bwd);
    }
  }
  for_each_bottom_mlp_transfer(in.plan, in.model, n, transfer);
  return gt;
}

// OPER one-sided plans (OPER §5): rows fetched with gets, gradients returned with puts, no
// AlltoAll (one_sided_iteration.hpp). The reported traffic is their expected bytes; the gets
// and puts are costed per iteration by the one-sided cost model and do not take part in link
// sharing (docs/model.md, "One-sided gets").
void one_sided_comm(const SimulationInputs& in, const OneSidedTraffic& expected,
                    const LevelTable& levels, const MatrixUnits& units, CommTraffic& comm) {
  comm.fwd = LevelTraffic(in.cluster);
  comm.bwd = LevelTraffic(in.cluster);
  if (units.count > 0) {
    comm.fwd_matrix = ByteMatrix(units.count);
    comm.bwd_matrix = ByteMatrix(units.count);
  }
  add_pair_traffic(expected.get_bytes, levels, units, comm.fwd, comm.fwd_matrix);
  add_pair_traffic(expected.put_bytes, levels, units, comm.bwd, comm.bwd_matrix);
}

// The AlltoAlls of every group: pooled embeddings, or nothing for one-sided plans (whose
// reported traffic replaces the pooled one).
void alltoalls(const SimulationInputs& in, const PlanAnalysis& a, PlanTraffic& t) {
  const std::size_t groups = t.a2a_groups.size();
  const bool per_flow = in.network().needs_pair_traffic();
  const LevelTable levels(in.cluster);
  const MatrixUnits units = comm_matrix_units(in.cluster);
  t.comm.fwd = LevelTraffic(in.cluster);
  t.comm.bwd = LevelTraffic(in.cluster);
  t.comm.granularity = units.granularity;
  if (units.count > 0) {
    t.comm.fwd_matrix = ByteMatrix(units.count);
    t.comm.bwd_matrix = ByteMatrix(units.count);
  }
  GroupTraffic gt;
  if (!a.one_sided_expected) {
    gt = pooled_traffic(in, a, levels, units, groups, t.comm);
  } else {
    one_sided_comm(in, *a.one_sided_expected, levels, units, t.comm);
    gt.fwd.assign(groups, LevelTraffic(in.cluster));  // no AlltoAll
    gt.bwd.assign(groups, LevelTraffic(in.cluster));
    if (per_flow) {
      gt.pair_fwd.assign(groups, ByteMatrix(in.cluster.num_gpus()));
      gt.pair_bwd.assign(groups, ByteMatrix(in.cluster.num_gpus()));
    }
  }
  for (std::size_t k = 0; k < groups; ++k) {
    t.a2a_fwd.push_back(share(
        in, t, t.a2a_groups[k],
        alltoall_demand(in, t.a2a_groups[k], gt.fwd[k], per_flow ? &gt.pair_fwd[k] : nullptr)));
    t.a2a_bwd.push_back(share(
        in, t, t.a2a_groups[k],
        alltoall_demand(in, t.a2a_groups[k], gt.bwd[k], per_flow ? &gt.pair_bwd[k] : nullptr)));
  }
}

DenseTimes dense_times(const SimulationInputs& in) {
  const GpuSpec& gpu = in.cluster.gpu();
  const auto& m = in.model;
  const CostParams& cost = in.cost;
  const double batch = in.workload.batch_per_gpu;
  const std::uint32_t vec_dim = m.bottom_mlp.empty() ? 0 : m.bottom_mlp.back();
  const std::uint64_t vectors = m.tables.size() + 1;
  DenseTimes d;
  // The bottom MLP's batch: each GPU's own samples, or the global batch on the one GPU that runs
  // it (Plan::bottom_mlp_gpu; plans with it have no sparse groups, so every GPU has `batch`).
  const bool bottom_on_one = in.plan.bottom_mlp_gpu >= 0;
  const double bottom_batch = bottom_on_one ? batch * in.cluster.num_gpus() : batch;
  d.bottom_fwd_s =
      mlp_forward_s(gpu, m.dense_features, m.bottom_mlp, bottom_batch, m.mlp_precision, cost);
  const bool concat = m.interaction == InteractionKind::concat;
  const double concat_s =
      concat ? concat_interaction_s(gpu, batch, m.interaction_output_width(), m.mlp_precision)
             : 0.0;
  d.interaction_fwd_s =
      concat ? concat_s
             : interaction_forward_s(gpu, batch, vectors, vec_dim, m.mlp_precision, cost);
  // A dense arch (model.dense_arch) runs between the interaction and the top MLP; its time is
  // counted in the top MLP's phases.
  d.top_fwd_s =
      mlp_forward_s(gpu, m.interaction_output_width(), m.top_mlp, batch, m.mlp_precision, cost) +
      dense_arch_forward_s(gpu, m.dense_arch.flops_per_sample, batch, m.mlp_precision, cost);
  if (in.workload.mode != Mode::training) return d;
  d.top_bwd_s =
      mlp_backward_s(gpu, m.interaction_output_width(), m.top_mlp, batch, m.mlp_precision, cost) +
      dense_arch_backward_s(gpu, m.dense_arch.flops_per_sample, batch, m.mlp_precision, cost);
  d.interaction_bwd_s =
      concat ? concat_s
             : interaction_backward_s(gpu, batch, vectors, vec_dim, m.mlp_precision, cost);
  d.bottom_bwd_s =
      mlp_backward_s(gpu, m.dense_features, m.bottom_mlp, bottom_batch, m.mlp_precision, cost);
  d.optimizer_s = dense_optimizer_step_s(gpu, m.dense_parameter_count(), m.dense_optimizer);
  d.optimizer_without_bottom_s =
      bottom_on_one
          ? dense_optimizer_step_s(gpu, m.dense_parameter_count() - m.bottom_mlp_parameter_count(),
                                   m.dense_optimizer)
          : d.optimizer_s;
  return d;
}

}  // namespace

CollectiveDemand alltoall_demand(const SimulationInputs& in, std::span<const int> group,
                                 const LevelTraffic& traffic, const ByteMatrix* pairs) {
  return in.network().alltoall_demand(in.cluster, group, traffic, pairs, in.cost);
}

PlanTraffic plan_traffic(const SimulationInputs& in, const PlanAnalysis& a) {
  const int n = in.cluster.num_gpus();
  check_options(in.options, n);
  const bool training = in.workload.mode == Mode::training;
  const NetworkModelType& network = in.network();
  PlanTraffic t;
  t.link_capacity_Bps = achievable_link_Bps(in.cluster, in.cost);
  // One AlltoAll per sparse group (all GPUs when the plan has no groups).
  t.a2a_groups =
      in.plan.groups.empty() ? std::vector<std::vector<int>>{all_gpu_ids(n)} : in.plan.groups;
  alltoalls(in, a, t);
  // Gradient synchronisation of replicated blocks inside a group, before the update, and 2D's
  // weights + optimizer state across the groups' peers after the update (Algorithm 1, §5).
  for (const ReplicaSyncBucket& b : a.replica_syncs) {
    t.replica_syncs.push_back(share(
        in, t, b.gpus, network.replica_sync_demand(in.cluster, b, in.plan.replica_sync, in.cost)));
  }
  for (const PeerSyncBucket& b : a.peer_syncs.peer) {
    t.peer_syncs.push_back(
        share(in, t, b.gpus, network.allreduce_demand(in.cluster, b.gpus, b.bytes, in.cost)));
  }
  t.dense = dense_times(in);
  t.input_delivery_s =
      input_delivery(in.cluster, in.model, in.workload.batch_per_gpu, in.cost).time_s();
  double dense_grad_bytes = 0;
  if (training) {
    // DDP's gradients (Neo §7.2), in the dense_grads format: QComms covers the embedding
    // traffic only (Neo §8.4 quantizes the AlltoAlls).
    // A bottom MLP on one GPU (Plan::bottom_mlp_gpu) has no replicas to reduce.
    const std::uint64_t params =
        in.model.dense_parameter_count() -
        (in.plan.bottom_mlp_gpu >= 0 ? in.model.bottom_mlp_parameter_count() : 0);
    dense_grad_bytes =
        static_cast<double>(params) * bytes_per_element(in.model.dense_grad_precision);
    const std::vector<int> all = all_gpu_ids(n);
    t.mlp_allreduce =
        share(in, t, all, network.allreduce_demand(in.cluster, all, dense_grad_bytes, in.cost));
  }
  if (host_step_modelled(in.cost)) {
    const std::vector<HostWork> work = host_work_by_gpu(in, a, dense_grad_bytes);
    t.host_step_s_by_gpu.resize(n);
    for (int g = 0; g < n; ++g) t.host_step_s_by_gpu[g] = host_step_s(work[g], in.cost);
    // One GPU issues no collective, so nothing returns to its host mid-step.
    t.host_step_serial = n > 1 && in.cost.host_launch_mode == HostLaunchMode::eager &&
                         plan_host_framework(in.plan, in.cost).collectives_return_to_host;
  }
  return t;
}

}  // namespace shardsim
