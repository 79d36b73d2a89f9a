#include "shardsim/metrics/report_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "metrics/gpu_time_report.hpp"
#include "metrics/time_attribution.hpp"
#include "shardsim/cost/replica_sync_cost.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

std::vector<double> iteration_times_s(const SimulationResult& result) {
  std::vector<double> finish;  // latest end of any task of each iteration
  for (const IterationTasks& it : result.iterations) {
    double end = 0;
    for (int id = it.first_task; id < it.end_task; ++id) {
      end = std::max(end, result.timeline.spans[id].end_s);
    }
    finish.push_back(end);
  }
  std::vector<double> times;
  for (std::size_t i = static_cast<std::size_t>(result.warmup); i < finish.size(); ++i) {
    times.push_back(finish[i] - (i == 0 ? 0.0 : finish[i - 1]));
  }
  return times;
}

namespace {

// The fields that do not depend on a plan.
void fill_header(Report& r, const ReportHeader& header, const std::string& planner,
                 const Cluster& cluster, const DlrmModel& model, const Workload& workload) {
  const int n = cluster.num_gpus();
  r.scenario = header.scenario;
  r.scenario_source = header.scenario_source;
  r.sweep_point = header.sweep_point;
  r.planner = planner;
  r.mode = to_string(workload.mode);
  r.preset = cluster.preset().name;
  r.num_gpus = n;
  r.num_nodes = cluster.num_nodes();
  r.num_tables = static_cast<int>(model.tables.size());
  r.iterations = workload.iterations;
  r.warmup = workload.warmup;
  r.seed = workload.seed;
  r.global_batch = static_cast<std::uint64_t>(n) * workload.batch_per_gpu;
  r.shardsim_version = SHARDSIM_VERSION;
  r.memory_capacity_bytes = cluster.gpu().hbm_capacity_bytes;
  r.pruning = report_pruning(model);
}

void fill_common(Report& r, const ReportHeader& header, const SimulationInputs& in,
                 const std::vector<GpuMemory>& memory) {
  const Cluster& cluster = in.cluster;
  const int n = cluster.num_gpus();
  fill_header(r, header, in.plan.planner, cluster, in.model, in.workload);
  r.planning_time_s = in.plan.planning_time_s;
  r.bottom_mlp_gpu = in.plan.bottom_mlp_gpu;
  r.per_gpu.resize(n);
  double max_mem = -1, sum_mem = 0;
  for (int g = 0; g < n; ++g) {
    GpuReport& gr = r.per_gpu[g];
    const GpuMemory& m = memory[g];
    gr.gpu = g;
    gr.node = cluster.node_of(g);
    gr.memory_bytes = m.total_bytes();
    gr.memory_capacity_bytes = cluster.gpu().hbm_capacity_bytes;
    gr.weights_bytes = m.weights_bytes;
    gr.optimizer_bytes = m.optimizer_bytes;
    gr.cache_bytes = m.cache_bytes;
    gr.host_memory_bytes = m.host_bytes;
    gr.activation_bytes = m.activation_bytes + m.dense_bytes;
    gr.reserved_bytes = m.reserved_bytes;
    sum_mem += gr.memory_bytes;
    if (gr.memory_bytes > max_mem) {
      max_mem = gr.memory_bytes;
      r.worst_memory_gpu = g;
    }
  }
  for (const Shard& sh : in.plan.shards) ++r.per_gpu.at(sh.gpu).shards;
  r.memory_max_bytes = max_mem;
  r.memory_mean_bytes = sum_mem / n;
  r.fits_in_memory = max_mem <= cluster.gpu().hbm_capacity_bytes;
}

// The route bottleneck bandwidth of each level (every pair at one level has the same: the
// topology is a symmetric tree); 0 where no pair is at that level.
std::vector<double> bottleneck_by_level(const Cluster& cluster) {
  std::vector<double> bw(static_cast<std::size_t>(cluster.num_levels()), 0.0);
  for (int dst = 1; dst < cluster.num_gpus(); ++dst) {
    const auto level = static_cast<std::size_t>(cluster.level_between(0, dst));
    if (bw[level] == 0) bw[level] = cluster.route(0, dst).bottleneck_Bps;
  }
  return bw;
}

void fill_comm(Report& r, const Cluster& cluster, const CommTraffic& comm) {
  const int n = cluster.num_gpus();
  r.comm_granularity = comm.granularity;
  r.comm_fwd = comm.fwd_matrix;
  r.comm_bwd = comm.bwd_matrix;
  // Degree of balance (OPER Table 3): min / max over GPUs of the communication cost, where a
  // GPU's cost is the time its embedding traffic (sent + received, forward + backward) would
  // take on each pair's route bandwidth, summed per level. No traffic at all is perfectly
  // balanced (1).
  const std::vector<double> bw = bottleneck_by_level(cluster);
  std::vector<double> cost(n, 0.0);
  for (int i = 0; i < n; ++i) {
    r.per_gpu[i].comm_sent_bytes = comm.fwd.sent_total(i) + comm.bwd.sent_total(i);
    r.per_gpu[i].comm_received_bytes = comm.fwd.received_total(i) + comm.bwd.received_total(i);
    for (int level = 1; level < cluster.num_levels(); ++level) {
      const double bytes = comm.fwd.sent(i, level) + comm.fwd.received(i, level) +
                           comm.bwd.sent(i, level) + comm.bwd.received(i, level);
      if (bytes > 0) cost[i] += bytes / bw[static_cast<std::size_t>(level)];
    }
  }
  const double mx = *std::max_element(cost.begin(), cost.end());
  const double mn = *std::min_element(cost.begin(), cost.end());
  r.degree_of_balance = mx > 0 ? mn / mx : 1.0;
}

// The class of a link for the utilisation summary: "scale_up", "gpu_nic", "nic_<tier 0>",
// "<tier k>_<tier k+1>".
std::string link_class(const Cluster& cluster, int link) {
  const Topology& topo = cluster.topology();
  const auto& tiers = cluster.preset().tiers;
  switch (topo.link_kind(link)) {
    case LinkKind::scale_up:
      return "scale_up";
    case LinkKind::gpu_nic:
      return "gpu_nic";
    case LinkKind::nic_tier:
      return "nic_" + tiers.front().name;
    case LinkKind::tier_tier: {
      const auto k = static_cast<std::size_t>(topo.link_lower_tier(link));
      return tiers[k].name + "_" + tiers[k + 1].name;
    }
  }
  return "?";
}

// Time-averaged utilisation of every link over [begin, end], grouped by class.
std::vector<LinkClassUse> link_utilization(const Cluster& cluster,
                                           const std::vector<LinkSample>& samples, double begin_s,
                                           double end_s) {
  std::vector<LinkClassUse> out;
  if (samples.empty() || !(end_s > begin_s)) return out;
  const auto& links = cluster.links();
  std::vector<double> area(links.size(), 0.0), last_t(links.size(), 0.0), last_u(links.size(), 0.0);
  auto accumulate = [&](std::size_t l, double until) {
    const double b = std::max(begin_s, last_t[l]), e = std::min(end_s, until);
    if (e > b) area[l] += last_u[l] * (e - b);
  };
  for (const LinkSample& s : samples) {
    const auto l = static_cast<std::size_t>(s.link);
    accumulate(l, s.time_s);
    last_t[l] = s.time_s;
    last_u[l] = s.utilization;
  }
  for (std::size_t l = 0; l < links.size(); ++l) accumulate(l, end_s);
  const double window = end_s - begin_s;
  for (std::size_t l = 0; l < links.size(); ++l) {
    const std::string cls = link_class(cluster, static_cast<int>(l));
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const LinkClassUse& u) { return u.link_class == cls; });
    if (it == out.end()) {
      out.push_back(LinkClassUse{cls, 0, 0, 0, ""});
      it = out.end() - 1;
    }
    const double u = area[l] / window;
    ++it->links;
    it->mean_utilization += u;
    if (u > it->max_utilization) {
      it->max_utilization = u;
      it->busiest_link = links[l].name;
    }
  }
  for (LinkClassUse& u : out) u.mean_utilization /= u.links;
  return out;
}

// Per-group statistics of a 2D plan (docs/report.md, "groups"), from the per-GPU figures;
// `sync_s_by_gpu` is each GPU's replica sync time per iteration, empty when not simulated.
void fill_groups(Report& r, const Plan& plan, const std::vector<double>& sync_s_by_gpu) {
  if (plan.groups.size() < 2) return;
  for (std::size_t k = 0; k < plan.groups.size(); ++k) {
    const std::vector<int>& members = plan.groups[k];
    GroupReport gr;
    gr.group = static_cast<int>(k);
    gr.num_gpus = static_cast<int>(members.size());
    gr.first_gpu = members.empty() ? 0 : *std::min_element(members.begin(), members.end());
    double lookup_sum = 0, memory_sum = 0;
    for (int g : members) {
      const GpuReport& pg = r.per_gpu[static_cast<std::size_t>(g)];
      gr.lookup_max_s = std::max(gr.lookup_max_s, pg.lookup_s);
      lookup_sum += pg.lookup_s;
      gr.memory_max_bytes = std::max(gr.memory_max_bytes, pg.memory_bytes);
      memory_sum += pg.memory_bytes;
      gr.lookups += pg.lookups;
      gr.comm_bytes += pg.comm_sent_bytes;
      if (!sync_s_by_gpu.empty()) {
        gr.sync_s = std::max(gr.sync_s, sync_s_by_gpu[static_cast<std::size_t>(g)]);
      }
    }
    const double count = std::max<double>(1, static_cast<double>(members.size()));
    gr.lookup_mean_s = lookup_sum / count;
    gr.memory_mean_bytes = memory_sum / count;
    gr.imbalance_ratio = gr.lookup_mean_s > 0 ? gr.lookup_max_s / gr.lookup_mean_s : 1.0;
    r.groups.push_back(gr);
  }
}

// The replica synchronisation of a plan with two or more groups: what one sync moves, the
// paper's Eq. 1 estimate for it, and (when simulated) the slowest GPU's sync time per syncing
// iteration.
void fill_replica_sync(Report& r, const SimulationInputs& in, const PeerSyncs& syncs,
                       double simulated_s) {
  if (in.plan.groups.size() < 2 || in.workload.mode != Mode::training) return;
  ReplicaSyncReport rs;
  rs.mode = to_string(syncs.sync.mode);
  rs.interval = syncs.sync.interval;
  rs.peers = static_cast<int>(in.plan.groups.size());
  std::vector<double> per_gpu(static_cast<std::size_t>(in.cluster.num_gpus()), 0.0);
  double slowest_Bps = 0;
  for (const PeerSyncBucket& b : syncs.peer) {
    rs.bytes_per_sync += b.bytes;
    for (int g : b.gpus) per_gpu[static_cast<std::size_t>(g)] += b.bytes;
    for (std::size_t j = 1; j < b.gpus.size(); ++j) {
      const double bw = in.cluster.route(b.gpus.front(), b.gpus[j]).bottleneck_Bps;
      slowest_Bps = slowest_Bps > 0 ? std::min(slowest_Bps, bw) : bw;
    }
  }
  rs.max_gpu_bytes = *std::max_element(per_gpu.begin(), per_gpu.end());
  rs.sync_Bps = slowest_Bps * in.cost.collective_bandwidth_efficiency;
  rs.eq1_s = rs.sync_Bps > 0 ? replica_sync_eq1_s(rs.bytes_per_sync, rs.peers,
                                                  in.cluster.num_gpus(), rs.sync_Bps)
                             : 0.0;
  rs.simulated_s = simulated_s;
  r.replica_sync = rs;
}

// Iteration times over the measured iterations, and the QPS they give.
void fill_timing(Report& r, const SimulationResult& result) {
  r.iteration_times_s = iteration_times_s(result);
  const auto& times = r.iteration_times_s;
  const double mean = std::accumulate(times.begin(), times.end(), 0.0) / times.size();
  r.iteration_time = TimeStats{mean, percentile(times, 0.5), percentile(times, 0.99),
                               *std::min_element(times.begin(), times.end()),
                               *std::max_element(times.begin(), times.end())};
  r.qps = mean > 0 ? static_cast<double>(r.global_batch) / mean : 0;
}

// Per-GPU times per measured iteration, the critical GPU and the imbalance ratios.
void fill_balance(Report& r) {
  const int n = static_cast<int>(r.per_gpu.size());
  const auto measured = static_cast<double>(r.iteration_times_s.size());
  double lookup_sum = 0, lookup_max = 0, busy_sum = 0, busy_max = 0;
  int critical = 0;
  for (int g = 0; g < n; ++g) {
    GpuReport& gr = r.per_gpu[g];
    for (double* x : {&gr.lookup_s, &gr.lookups, &gr.host_link_bytes, &gr.busy_s, &gr.compute_s,
                      &gr.comm_transfer_s, &gr.comm_wait_s, &gr.idle_s, &gr.shares.embedding_s,
                      &gr.shares.dense_compute_s, &gr.shares.comm_s, &gr.shares.comm_wait_s,
                      &gr.shares.host_s, &gr.shares.idle_s}) {
      *x /= measured;
    }
    lookup_sum += gr.lookup_s;
    lookup_max = std::max(lookup_max, gr.lookup_s);
    busy_sum += gr.busy_s;
    busy_max = std::max(busy_max, gr.busy_s);
    if (gr.busy_s > r.per_gpu[critical].busy_s) critical = g;
  }
  r.critical_gpu = critical;
  // The imbalance of all the GPUs' work: max / mean of the time each GPU was busy.
  r.busy_imbalance_ratio = busy_sum > 0 ? busy_max / (busy_sum / n) : 1.0;
  // Imbalance ratio (2D paper §4.2): max over GPUs of embedding lookup time / mean.
  const double lookup_mean = lookup_sum / n;
  r.imbalance_ratio = lookup_mean > 0 ? lookup_max / lookup_mean : 1.0;
}

void fill_links(Report& r, const Cluster& cluster, const SimulationResult& result) {
  const auto& spans = result.timeline.spans;
  // Links over the measured window: from the end of the warm-up to the end of the last
  // iteration.
  {
    double begin = 0, end = 0;
    for (std::size_t i = 0; i < result.iterations.size(); ++i) {
      const IterationTasks& it = result.iterations[i];
      for (int id = it.first_task; id < it.end_task; ++id) end = std::max(end, spans[id].end_s);
      if (static_cast<int>(i) + 1 == result.warmup) begin = end;
    }
    r.link_utilization = link_utilization(cluster, result.timeline.link_samples, begin, end);
  }
}

// The critical GPU's breakdown by phase and each phase's largest time on any GPU.
void fill_breakdown(Report& r, const PhaseTimesByGpu& phases) {
  const int n = static_cast<int>(r.per_gpu.size());
  const int critical = r.critical_gpu;
  const auto measured = static_cast<double>(r.iteration_times_s.size());
  const auto& serialized = phases.serialized;
  const auto& exposed = phases.exposed;
  const auto& waiting = phases.waiting;
  // Breakdown on the critical GPU (the one with the most busy time); the time nothing covers
  // is the pseudo-phase "idle", so the exposed times add up to the iteration time.
  for (int p = 0; p < kNumPhases; ++p) {
    if (serialized[critical][p] <= 0 && exposed[critical][p] <= 0) continue;
    r.breakdown.push_back(
        PhaseTime{to_string(static_cast<Phase>(p)), serialized[critical][p] / measured,
                  exposed[critical][p] / measured, waiting[critical][p] / measured});
  }
  if (r.per_gpu[critical].shares.idle_s > 0) {
    const double idle = r.per_gpu[critical].shares.idle_s;
    r.breakdown.push_back(PhaseTime{"idle", idle, idle, 0.0});
  }
  // The largest time any GPU spent in each phase (2D Fig. 6), with that GPU's exposed part.
  for (int p = 0; p < kNumPhases; ++p) {
    int worst = 0;
    for (int g = 1; g < n; ++g) {
      if (serialized[g][p] > serialized[worst][p]) worst = g;
    }
    if (serialized[worst][p] <= 0) continue;
    r.phase_max.push_back(PhaseTime{to_string(static_cast<Phase>(p)),
                                    serialized[worst][p] / measured, exposed[worst][p] / measured,
                                    waiting[worst][p] / measured});
  }
}

// 2D: per-group statistics and the replica sync (its time per syncing iteration).
void fill_two_d(Report& r, const SimulationInputs& in, const SimulationResult& result,
                const PhaseTimesByGpu& phases) {
  const int n = static_cast<int>(r.per_gpu.size());
  const int measured = static_cast<int>(r.iteration_times_s.size());
  const auto& serialized = phases.serialized;
  const auto sync_phase = static_cast<std::size_t>(Phase::embedding_replica_sync);
  std::vector<double> sync_s_by_gpu(static_cast<std::size_t>(n), 0.0);
  double sync_max = 0;
  for (int g = 0; g < n; ++g) {
    sync_s_by_gpu[static_cast<std::size_t>(g)] = serialized[g][sync_phase] / measured;
    sync_max = std::max(sync_max, serialized[g][sync_phase]);
  }
  fill_groups(r, in.plan, sync_s_by_gpu);
  int syncing = 0;
  for (int k = 0; k < measured; ++k) syncing += result.syncs.syncs_after(result.warmup + k);
  fill_replica_sync(r, in, result.syncs, syncing > 0 ? sync_max / syncing : 0.0);
}

}  // namespace

Report build_report(const ReportHeader& header, const SimulationInputs& in,
                    const SimulationResult& result, const std::vector<GpuMemory>& memory) {
  Report r;
  fill_common(r, header, in, memory);
  fill_comm(r, in.cluster, result.comm);
  fill_timing(r, result);
  const PhaseTimesByGpu phases = attribute_gpu_times(r.per_gpu, result);
  fill_balance(r);
  fill_links(r, in.cluster, result);
  fill_breakdown(r, phases);
  fill_two_d(r, in, result, phases);
  return r;
}

Report build_unfit_report(const ReportHeader& header, const SimulationInputs& in,
                          const PlanAnalysis& analysis, const DoesNotFitError& error) {
  Report r;
  fill_common(r, header, in, analysis.memory);
  const IterationBuilder builder(in, analysis);
  fill_comm(r, in.cluster, builder.comm());
  fill_groups(r, in.plan, {});
  fill_replica_sync(r, in, builder.replica_syncs(), std::nan(""));
  r.fits_in_memory = false;
  r.fit_error = error.what();
  return r;
}

Report build_unplaced_report(const ReportHeader& header, const std::string& planner,
                             const Cluster& cluster, const DlrmModel& model,
                             const Workload& workload, const DoesNotFitError& error) {
  Report r;
  fill_header(r, header, planner, cluster, model, workload);
  r.fits_in_memory = false;
  r.fit_error = error.what();
  r.worst_memory_gpu = error.gpu();
  r.memory_max_bytes = error.needed_bytes();
  return r;
}

}  // namespace shardsim
