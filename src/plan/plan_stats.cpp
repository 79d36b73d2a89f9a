#include "shardsim/plan/plan_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <span>
#include <unordered_map>

#include "plan/shard_estimate.hpp"
#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/cost/one_sided_cost.hpp"
#include "shardsim/cost/spread_traffic.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/plan/one_sided_traffic.hpp"
#include "shardsim/plan/peer_sync.hpp"
#include "shardsim/plan/replica_sync.hpp"
#include "shardsim/plan/serving.hpp"

namespace shardsim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename F>
BalanceStat balance_of(const std::vector<GpuPlanStats>& gpus, F value, double lower_bound) {
  BalanceStat b;
  if (gpus.empty()) return b;
  double sum = 0;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const double v = value(gpus[i]);
    sum += v;
    if (b.min_gpu < 0 || v < b.min) {
      b.min = v;
      b.min_gpu = gpus[i].gpu;
    }
    if (b.max_gpu < 0 || v > b.max) {
      b.max = v;
      b.max_gpu = gpus[i].gpu;
    }
  }
  b.mean = sum / static_cast<double>(gpus.size());
  b.lower_bound = std::isnan(lower_bound) ? b.mean : lower_bound;
  return b;
}

void pooled_costs(PlanStats& st, const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                  const Workload& workload, const CostParams& p,
                  const std::vector<EmbeddingWork>& work, const LevelTraffic& fwd);

void pooled_stats(PlanStats& st, const Plan& plan, const ServingMap& serving,
                  const std::vector<double>& served, const Cluster& cluster, const DlrmModel& model,
                  const Workload& workload, const TraceSource& trace, const CostParams& p) {
  const int n = cluster.num_gpus();
  const double batch = workload.batch_per_gpu;
  const double comm_elem = bytes_per_element(model.comm_precision);
  const auto& shards = plan.shards;
  // Work per shard: the lookups of the GPUs each replica serves (serving.hpp), expected.
  std::vector<EmbeddingWork> work(shards.size());
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    const ReplicaSet& set = serving.sets[k];
    const AccessProfile& profile = trace.profile(set.table);
    const double lookups_per_gpu = batch * model.tables[set.table].pooling.expected();
    // A whole table is the same rows in either space; rank space needs no row-id index.
    const bool whole = set.rows.begin == 0 && set.rows.end == profile.num_rows();
    const RowSpace space = whole ? RowSpace::rank : set.row_space;
    const double mass = profile.mass(set.rows, space);
    std::unordered_map<double, double> distinct_by_served;  // replicas often serve alike
    for (std::size_t s : set.shards) {
      EmbeddingWork& w = work[s];
      const double total = served[s] * lookups_per_gpu;
      w.lookups = total * mass;
      auto [it, fresh] = distinct_by_served.try_emplace(served[s], 0.0);
      if (fresh && total > 0) it->second = profile.expected_distinct(set.rows, space, total);
      w.distinct_rows = std::min(it->second, w.lookups);
      w.pooled_outputs = served[s] * batch;
      w.cols = set.cols.size();
      w.precision = model.table_precision;
      w.kernel = model.table_kernel;
      w.rows = static_cast<double>(set.rows.size());
    }
  }
  // Pooled-embedding bytes per GPU and level, forward; one-to-many traffic summed per owner
  // (cost/spread_traffic.hpp), so no pass over GPU pairs.
  LevelTraffic fwd(cluster);
  const LevelTable levels(cluster);
  const auto transfer = [&](int owner, int g, double cols) {
    fwd.add(owner, g, levels.level(owner, g), batch * cols * comm_elem);
  };
  SpreadTraffic spreads(cluster, serving.group_of);
  const auto spread = [&](int owner, double cols, bool in_group) {
    spreads.add(owner, cols, in_group);
  };
  for_each_pooled_flow(plan, serving, n, transfer, spread);
  for_each_bottom_mlp_transfer(plan, model, n, transfer);
  spreads.add_to(fwd, batch * comm_elem, false);
  pooled_costs(st, plan, cluster, model, workload, p, work, fwd);
}

// Kernels: all shards of a GPU in one fused kernel (as the iteration builder costs them), and
// each GPU's share of the AlltoAlls.
void pooled_costs(PlanStats& st, const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                  const Workload& workload, const CostParams& p,
                  const std::vector<EmbeddingWork>& work, const LevelTraffic& fwd) {
  const int n = cluster.num_gpus();
  const auto un = static_cast<std::size_t>(n);
  const bool training = workload.mode == Mode::training;
  const double comm_elem = bytes_per_element(model.comm_precision);
  const auto& shards = plan.shards;
  // Per GPU: in its scale-up domain (level 1) and outside it.
  std::vector<double> sent_up(un), sent_off(un), recv_up(un), recv_off(un);
  for (int g = 0; g < n; ++g) {
    sent_up[g] = fwd.sent(g, 1);
    sent_off[g] = fwd.sent_from(g, 2);
    recv_up[g] = fwd.received(g, 1);
    recv_off[g] = fwd.received_from(g, 2);
  }
  std::vector<std::vector<EmbeddingWork>> works(un);
  for (std::size_t s = 0; s < shards.size(); ++s) {
    GpuPlanStats& g = st.gpus[shards[s].gpu];
    g.lookups += work[s].lookups;
    g.input_bytes += work[s].lookups * p.index_bytes_per_lookup;
    g.output_bytes += work[s].pooled_outputs * work[s].cols * comm_elem;
    works[shards[s].gpu].push_back(work[s]);
  }
  const GpuSpec& spec = cluster.gpu();
  for (int g = 0; g < n; ++g) {
    GpuPlanStats& s = st.gpus[g];
    s.fwd_compute_s = embedding_forward_s(spec, works[g], p);
    if (training) s.bwd_compute_s = embedding_backward_s(spec, works[g], model.optimizer, p);
    s.fwd_comm_s =
        gpu_alltoall_share_s(cluster, p, sent_up[g], recv_up[g], sent_off[g], recv_off[g]);
    s.comm_sent_bytes = sent_up[g] + sent_off[g];
    s.comm_received_bytes = recv_up[g] + recv_off[g];
    if (training) {
      // Gradients flow back the same pairs in reverse.
      s.bwd_comm_s =
          gpu_alltoall_share_s(cluster, p, recv_up[g], sent_up[g], recv_off[g], sent_off[g]);
      s.comm_sent_bytes *= 2;
      s.comm_received_bytes *= 2;
    }
  }
  // Each GPU exchanges with its own sparse-parallel group (2D), so the per-peer costs of the
  // nccl model count the largest group's members, not every GPU.
  std::span<const int> peers;
  for (const std::vector<int>& g : plan.groups) {
    if (g.size() > peers.size()) peers = g;
  }
  st.alltoall_fwd_s = idle_time_s(cluster, alltoallv_demand(cluster, fwd, p, peers), p);
  if (training) {
    // The transpose: gradients go back to the owners.
    st.alltoall_bwd_s =
        idle_time_s(cluster, alltoallv_demand(cluster, fwd.transposed(), p, peers), p);
  }
}

// One-sided plans (OPER §5): each GPU fetches the rows it looks up; gradients go back as puts.
void one_sided_stats(PlanStats& st, const OneSidedTraffic& traffic,
                     const OneSidedTransferTimes& times, const Cluster& cluster,
                     const DlrmModel& model, const Workload& workload, const CostParams& p) {
  const int n = cluster.num_gpus();
  const bool training = workload.mode == Mode::training;
  const std::vector<double>& get_s = times.get_s;
  const GpuSpec& spec = cluster.gpu();
  std::vector<EmbeddingWork> scratch;
  const PairMatrix::Sums get = traffic.get_bytes.sums();  // O(GPUs) each, not O(GPUs²)
  const PairMatrix::Sums put = traffic.put_bytes.sums();
  for (int g = 0; g < n; ++g) {
    GpuPlanStats& s = st.gpus[g];
    const auto ug = static_cast<std::size_t>(g);
    s.lookups = traffic.lookups_served[g];
    s.input_bytes = 0;  // no indices travel: requesters fetch rows themselves
    s.output_bytes = get.sent[ug];
    s.fwd_compute_s =
        embedding_forward_s(spec, traffic.pooling_works, traffic.fwd_works.of(g, scratch), p);
    if (training) {
      s.bwd_compute_s =
          embedding_backward_s(spec, traffic.bwd_works.of(g, scratch), model.optimizer, p);
    }
    s.fwd_comm_s = get_s[g];
    s.bwd_comm_s = training ? times.put_s[g] : 0.0;
    s.comm_sent_bytes = get.sent[ug] + put.sent[ug];
    s.comm_received_bytes = get.received[ug] + put.received[ug];
  }
  // No AlltoAll: alltoall_fwd_s and alltoall_bwd_s stay 0.
}

void sync_stats(PlanStats& st, const PlanAnalysis& analysis, const Cluster& cluster,
                const CostParams& p);
void balance_stats(PlanStats& st, const Cluster& cluster, const DlrmModel& model,
                   const Workload& workload);

}  // namespace

int GpuPlanStats::shards() const {
  return std::accumulate(shards_by_kind.begin(), shards_by_kind.end(), 0);
}

double BalanceStat::max_over_mean() const {
  return mean > 0 ? max / mean : kNaN;
}

double BalanceStat::gap_to_bound() const {
  if (!(lower_bound > 0)) return kNaN;
  const double gap = max / lower_bound - 1.0;
  // max >= bound by construction; a last-bit difference (the mean as bound) is no gap.
  return gap < 0 && gap > -1e-12 ? 0.0 : gap;
}

// Shards in host memory (docs/model.md "Memory tiers"): each GPU's kernels wait for their
// expected host-link bytes, as the simulation adds them (plan/host_tier.hpp).
void host_tier_stats(PlanStats& st, const Plan& plan, const HostTierTraffic& host_tier,
                     const Cluster& cluster) {
  const std::vector<GpuHostLink> link = host_link_by_gpu(plan, host_tier, cluster);
  for (std::size_t g = 0; g < link.size(); ++g) {
    st.gpus[g].fwd_compute_s += link[g].forward_s;
    st.gpus[g].bwd_compute_s += link[g].backward_s;
  }
}

PlanStats compute_plan_stats(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                             const Workload& workload, const TraceSource& trace,
                             const CostParams& p) {
  return compute_plan_stats(plan, analyze_plan(plan, cluster, model, workload, trace, p), cluster,
                            model, workload, trace, p);
}

PlanStats compute_plan_stats(const Plan& plan, const PlanAnalysis& analysis, const Cluster& cluster,
                             const DlrmModel& model, const Workload& workload,
                             const TraceSource& trace, const CostParams& p) {
  const int n = cluster.num_gpus();
  const auto un = static_cast<std::size_t>(n);
  const bool training = workload.mode == Mode::training;
  const auto& shards = plan.shards;

  PlanStats st;
  st.planner = plan.planner;
  st.planner_counts = plan.planner_counts;
  st.num_gpus = n;
  st.num_tables = static_cast<int>(model.tables.size());
  st.hbm_capacity_bytes = cluster.gpu().hbm_capacity_bytes;
  st.gpus.resize(un);
  const std::vector<GpuMemory>& memory = analysis.memory;
  for (int g = 0; g < n; ++g) {
    GpuPlanStats& s = st.gpus[g];
    s.gpu = g;
    s.node = cluster.node_of(g);
    s.memory = memory[g];
    s.hbm_used_bytes = memory[g].total_bytes();
    s.hbm_capacity_bytes = st.hbm_capacity_bytes;
  }
  for (const Shard& sh : shards) {
    st.gpus.at(sh.gpu).shards_by_kind[static_cast<int>(sh.kind)] += 1;
    st.shards_by_kind[static_cast<int>(sh.kind)] += 1;
  }

  // Work and traffic per GPU: pooled (AlltoAll) or one-sided (gets and puts), from the lookups
  // of the GPUs each replica serves (serving.hpp), expected.
  if (analysis.one_sided_expected) {
    one_sided_stats(st, *analysis.one_sided_expected, *analysis.one_sided_expected_times, cluster,
                    model, workload, p);
  } else {
    pooled_stats(st, plan, analysis.serving, analysis.served_gpus_by_shard, cluster, model,
                 workload, trace, p);
  }
  if (!analysis.host_tier.empty()) host_tier_stats(st, plan, analysis.host_tier, cluster);
  if (training) sync_stats(st, analysis, cluster, p);
  balance_stats(st, cluster, model, workload);
  return st;
}

namespace {

// Replica synchronisation: gradients of replicas inside a group every iteration
// (plan/replica_sync.hpp); 2D peer syncs every `interval` iterations, amortised per iteration
// (plan/peer_sync.hpp).
void sync_stats(PlanStats& st, const PlanAnalysis& analysis, const Cluster& cluster,
                const CostParams& p) {
  {
    for (const ReplicaSyncBucket& b : analysis.replica_syncs) {
      for (int g : b.gpus) {
        st.gpus[g].sync_comm_s += b.duration_s;
        st.gpus[g].sync_bytes += b.bytes;
      }
    }
    const PeerSyncs& peer = analysis.peer_syncs;
    const double per_iteration = 1.0 / peer.sync.interval;
    for (const PeerSyncBucket& b : peer.peer) {
      const double t = allreduce_s(cluster, b.gpus, b.bytes, p) * per_iteration;
      for (int g : b.gpus) {
        st.gpus[g].sync_comm_s += t;
        st.gpus[g].sync_bytes += b.bytes * per_iteration;
      }
    }
  }
}

// Balance and lower bounds.
void balance_stats(PlanStats& st, const Cluster& cluster, const DlrmModel& model,
                   const Workload& workload) {
  const int n = cluster.num_gpus();
  const double batch = workload.batch_per_gpu;
  const GpuMemory base = base_gpu_memory(cluster, model, workload);
  double table_bytes = 0, all_lookups = 0;
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    const auto& table = model.tables[t];
    const Shard whole{
        t, {0, table.rows}, RowSpace::row_id, {0, table.dim}, 0, 0, ShardKind::table_wise, {}};
    table_bytes +=
        shard_weight_bytes(whole, model) + shard_optimizer_bytes(whole, model, workload.mode);
    all_lookups += n * batch * table.pooling.expected();
  }
  st.memory_bytes = balance_of(
      st.gpus, [](const GpuPlanStats& g) { return g.hbm_used_bytes; },
      base.total_bytes() + table_bytes / n);
  st.lookups = balance_of(
      st.gpus, [](const GpuPlanStats& g) { return g.lookups; }, all_lookups / n);
  st.compute_s = balance_of(
      st.gpus, [](const GpuPlanStats& g) { return g.compute_s(); }, kNaN);
  st.comm_bytes = balance_of(
      st.gpus, [](const GpuPlanStats& g) { return g.comm_bytes(); }, kNaN);
  st.comm_s = balance_of(
      st.gpus, [](const GpuPlanStats& g) { return g.comm_s(); }, kNaN);
  st.total_s = balance_of(
      st.gpus, [](const GpuPlanStats& g) { return g.total_s(); }, kNaN);
  st.estimated_degree_of_balance = st.comm_s.max > 0 ? st.comm_s.min / st.comm_s.max : 1.0;
  st.estimated_embedding_s = st.total_s.max;
}

}  // namespace

}  // namespace shardsim
