// The task DAG of one iteration (sim/iteration_dag.hpp).
#include "shardsim/sim/iteration_dag.hpp"

#include <utility>

#include "shardsim/core/rng.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/collective_tail.hpp"
#include "shardsim/sim/network_model.hpp"

namespace shardsim {

namespace {

using DepsByGpu = std::vector<std::vector<int>>;

// Purpose key of the collective tail stream (stream_seed(seed, {kCollectiveTailStream, c})).
constexpr std::uint64_t kCollectiveTailStream = 0x7461696c7300ULL;  // "tails"

// Adds tasks and collectives to the graph for one iteration, phase by phase across GPUs so each
// stream stays in order.
class Emitter {
 public:
  Emitter(TaskGraph& graph, const SimulationInputs& in, const PlanTraffic& traffic,
          std::span<const double> factor, const IterationTasks* previous, IterationTasks& out)
      : graph_(graph),
        in_(in),
        traffic_(traffic),
        factor_(factor),
        previous_(previous),
        out_(out) {}

  int num_gpus() const { return in_.cluster.num_gpus(); }
  double f(int g) const { return factor_[static_cast<std::size_t>(g)]; }
  const IterationTasks* previous() const { return previous_; }

  // The previous iteration's last task of every stream of `g`, and this batch's delivery.
  std::vector<int> barrier(int g) const {
    std::vector<int> deps = delivered(g);
    if (previous_) {
      for (int id : previous_->last_by_gpu[g]) {
        if (id >= 0) deps.push_back(id);
      }
    }
    return deps;
  }

  // This batch's input delivery to `g` (docs/model.md, "Data ingestion"): nothing of the batch
  // starts before it. Empty when the inputs are not modelled.
  // With a host that dispatches in series with the GPU (PlanTraffic::host_step_serial), also
  // the host's step of this iteration.
  std::vector<int> delivered(int g) const {
    std::vector<int> deps;
    if (!ingest_.empty()) deps.push_back(ingest_[g]);
    if (!host_gate_.empty()) deps.push_back(host_gate_[g]);
    return deps;
  }
  void set_delivery(std::vector<int> ingest) { ingest_ = std::move(ingest); }
  void set_host_gate(std::vector<int> host) { host_gate_ = std::move(host); }

  int local(int g, Stream stream, Phase phase, double d, std::vector<int> deps) {
    Task t;
    t.gpu = g;
    t.stream = stream;
    t.phase = phase;
    t.duration_s = d;
    t.deps = std::move(deps);
    return graph_.add_task(std::move(t));
  }

  // Adds a collective over `gpus` (nothing for fewer than 2 GPUs or no bytes) and records each
  // member's task in `task_of_gpu`.
  void collective(const std::vector<int>& gpus, Stream stream, Phase phase, double duration_s,
                  double bytes, int demand, const DepsByGpu& deps_by_gpu,
                  std::vector<int>& task_of_gpu) {
    if (bytes <= 0 || gpus.size() < 2) return;
    DepsByGpu deps;
    for (int g : gpus) deps.push_back(deps_by_gpu[g]);
    const int c = graph_.add_collective(gpus, stream, phase, duration_s, bytes, deps, demand);
    graph_.collectives[c].tail_s = tail_s(c, static_cast<int>(gpus.size()), duration_s);
    const auto& members = graph_.collectives[c].members;
    for (std::size_t i = 0; i < members.size(); ++i) task_of_gpu[gpus[i]] = members[i];
  }

  // The slowest member's lag (nccl model; cost/collective_tail.hpp): the collective's idle time
  // times (the maximum of n finishing factors − 1), drawn per collective from the workload seed.
  double tail_s(int collective, int n, double duration_s) const {
    const CostParams& p = in_.cost;
    if (p.collective_model != CollectiveModelKind::nccl || !(p.collective_jitter_cv > 0)) return 0;
    Rng rng(stream_seed(in_.workload.seed,
                        {kCollectiveTailStream, static_cast<std::uint64_t>(collective)}));
    return duration_s * (sample_max_lognormal(n, p.collective_jitter_cv, rng) - 1.0);
  }

  void shared(const SharedCollective& c, Stream stream, Phase phase, const DepsByGpu& deps_by_gpu,
              std::vector<int>& task_of_gpu) {
    const int demand = c.demand_slot >= 0 ? out_.shared_demands[c.demand_slot] : -1;
    collective(c.gpus, stream, phase, c.duration_s, c.bytes, demand, deps_by_gpu, task_of_gpu);
  }

  void set_last(int task) {
    if (task < 0) return;
    const Task& t = graph_.tasks[task];
    out_.last_by_gpu[t.gpu][static_cast<int>(t.stream)] = task;
  }

  TaskGraph& graph() { return graph_; }
  const SimulationInputs& in() const { return in_; }
  const PlanTraffic& traffic() const { return traffic_; }

 private:
  TaskGraph& graph_;
  const SimulationInputs& in_;
  const PlanTraffic& traffic_;
  std::span<const double> factor_;
  const IterationTasks* previous_;
  IterationTasks& out_;
  std::vector<int> ingest_;     // per GPU, this batch's input delivery; empty: not modelled
  std::vector<int> host_gate_;  // per GPU, the host's step the GPU's work waits for; or empty
};

// Input AlltoAll of this batch: serial (after the previous iteration), or overlapped with the
// previous batch's top MLP forward (Neo §4.2: "we overlap the input AlltoAll of batch i + 1
// with the forward propagation of top MLP of batch i").
std::vector<int> input_alltoall(Emitter& e, IterationDraw& draw) {
  const int n = e.num_gpus();
  const SimulationInputs& in = e.in();
  std::vector<int> input(n, -1);
  if (!draw.inputs) return input;
  const bool sharing = in.network().shares_links();
  const bool per_flow = in.network().needs_pair_traffic();
  DepsByGpu deps_by_gpu(n);
  for (int g = 0; g < n; ++g) {
    const IterationTasks* previous = e.previous();
    const bool overlap = in.options.input_alltoall == InputAlltoall::overlapped && previous &&
                         previous->interaction_fwd_by_gpu[g] >= 0;
    if (overlap) {
      deps_by_gpu[g] = e.delivered(g);
      deps_by_gpu[g].push_back(previous->interaction_fwd_by_gpu[g]);
    } else {
      deps_by_gpu[g] = e.barrier(g);
    }
  }
  for (std::size_t k = 0; k < e.traffic().a2a_groups.size(); ++k) {
    CollectiveDemand d = alltoall_demand(in, e.traffic().a2a_groups[k], draw.input_traffic[k],
                                         per_flow ? &draw.input_pairs[k] : nullptr);
    const double duration = in.collective_model().idle_time_s(in.cluster, d, in.cost);
    const double bytes = d.payload_bytes;
    const int demand = sharing && !d.empty() ? e.graph().add_demand(std::move(d)) : -1;
    e.collective(e.traffic().a2a_groups[k], Stream::input_comm, Phase::input_alltoall, duration,
                 bytes, demand, deps_by_gpu, input);
  }
  return input;
}

// The forward tasks of each GPU.
struct Forward {
  std::vector<int> input, look, bot, a2a, inter, top;
};

// Lookup, bottom MLP, the pooled-embedding AlltoAll (overlapping the bottom MLP forward, Neo
// §4.2, Eq. 1, or, serial, after it), interaction and top MLP.
Forward forward(Emitter& e, IterationDraw& draw) {
  const int n = e.num_gpus();
  const DenseTimes& dense = e.traffic().dense;
  Forward fw;
  fw.input = input_alltoall(e, draw);
  fw.look.resize(n);
  fw.bot.resize(n);
  fw.inter.resize(n);
  fw.top.resize(n);
  for (int g = 0; g < n; ++g) {
    std::vector<int> deps = e.barrier(g);
    if (fw.input[g] >= 0) deps.push_back(fw.input[g]);
    fw.look[g] = e.local(g, Stream::sparse_compute, Phase::embedding_lookup_fwd,
                         draw.lookup_fwd_s[g], std::move(deps));
  }
  // A bottom MLP on one GPU (Plan::bottom_mlp_gpu) runs there for the global batch; its output
  // travels in the AlltoAll, which that GPU joins only once it is computed.
  const int bottom_gpu = e.in().plan.bottom_mlp_gpu;
  fw.bot.assign(n, -1);
  for (int g = 0; g < n; ++g) {
    if (bottom_gpu >= 0 && g != bottom_gpu) continue;
    fw.bot[g] = e.local(g, Stream::dense_compute, Phase::bottom_mlp_fwd,
                        e.f(g) * dense.bottom_fwd_s, e.barrier(g));
  }
  DepsByGpu deps_by_gpu(n);
  for (int g = 0; g < n; ++g) {
    deps_by_gpu[g] = {fw.look[g]};
    if (fw.bot[g] >= 0 &&
        (e.in().options.pooled_alltoall == PooledAlltoall::serial || g == bottom_gpu))
      deps_by_gpu[g].push_back(fw.bot[g]);
  }
  fw.a2a.assign(n, -1);
  for (const SharedCollective& c : e.traffic().a2a_fwd) {
    e.shared(c, Stream::sparse_comm, Phase::alltoall_fwd, deps_by_gpu, fw.a2a);
  }
  for (int g = 0; g < n; ++g) {
    std::vector<int> deps = {fw.a2a[g] >= 0 ? fw.a2a[g] : fw.look[g]};
    if (fw.bot[g] >= 0) deps.push_back(fw.bot[g]);
    fw.inter[g] = e.local(g, Stream::dense_compute, Phase::interaction_fwd,
                          e.f(g) * dense.interaction_fwd_s, std::move(deps));
  }
  for (int g = 0; g < n; ++g) {
    fw.top[g] = e.local(g, Stream::dense_compute, Phase::top_mlp_fwd, e.f(g) * dense.top_fwd_s,
                        {fw.inter[g]});
  }
  return fw;
}

// Collectives over some GPUs, one per SharedCollective, after `deps_by_gpu`: each GPU's
// member tasks.
DepsByGpu sync_collectives(Emitter& e, const std::vector<SharedCollective>& syncs, Stream stream,
                           Phase phase, const DepsByGpu& deps_by_gpu) {
  const int n = e.num_gpus();
  DepsByGpu by_gpu(n);
  for (const SharedCollective& sync : syncs) {
    std::vector<int> ids(n, -1);
    e.shared(sync, stream, phase, deps_by_gpu, ids);
    for (int g : sync.gpus) {
      if (ids[g] >= 0) by_gpu[g].push_back(ids[g]);
    }
  }
  return by_gpu;
}

// The backward pass (training): top MLP, interaction, the gradient AlltoAll (or one-sided
// puts), the MLP AllReduce (overlapping the whole backward pass, Eq. 1: DDP buckets), replica
// gradient syncs, the embedding update, bottom MLP, then 2D peer syncs; records every stream's
// last task.
void backward(Emitter& e, const Forward& fw, const IterationDraw& draw, const PeerSyncs& peer,
              int iteration) {
  const int n = e.num_gpus();
  const DenseTimes& dense = e.traffic().dense;
  std::vector<int> top_b(n), inter_b(n), bot_b(n), update(n);
  DepsByGpu deps_by_gpu(n);
  for (int g = 0; g < n; ++g) {
    top_b[g] = e.local(g, Stream::dense_compute, Phase::top_mlp_bwd, e.f(g) * dense.top_bwd_s,
                       {fw.top[g]});
  }
  for (int g = 0; g < n; ++g) {
    inter_b[g] = e.local(g, Stream::dense_compute, Phase::interaction_bwd,
                         e.f(g) * dense.interaction_bwd_s, {top_b[g]});
    deps_by_gpu[g] = {inter_b[g]};
  }
  std::vector<int> a2a_b(n, -1);
  for (const SharedCollective& c : e.traffic().a2a_bwd) {
    e.shared(c, Stream::sparse_comm, Phase::alltoall_bwd, deps_by_gpu, a2a_b);
  }
  if (e.in().plan.lookup_comm == LookupComm::one_sided) {
    // OPER: the gradient puts of every GPU, which every holder waits for.
    e.collective(all_gpu_ids(n), Stream::sparse_comm, Phase::alltoall_bwd, draw.puts_s,
                 draw.puts_bytes, -1, deps_by_gpu, a2a_b);
  }
  DepsByGpu after_top(n);
  for (int g = 0; g < n; ++g) after_top[g] = {fw.top[g]};
  std::vector<int> mlp_ar(n, -1);
  e.shared(e.traffic().mlp_allreduce, Stream::dense_comm, Phase::mlp_allreduce, after_top, mlp_ar);
  const DepsByGpu replica_ar_by_gpu =
      sync_collectives(e, e.traffic().replica_syncs, Stream::dense_comm,
                       Phase::embedding_replica_allreduce, deps_by_gpu);
  for (int g = 0; g < n; ++g) {
    std::vector<int> deps = {inter_b[g]};
    if (a2a_b[g] >= 0) deps.push_back(a2a_b[g]);
    for (int id : replica_ar_by_gpu[g]) deps.push_back(id);
    update[g] = e.local(g, Stream::sparse_compute, Phase::embedding_update_bwd,
                        draw.update_bwd_s[g], std::move(deps));
  }
  // A bottom MLP on one GPU needs its output's gradient from every GPU: the backward AlltoAll.
  const int bottom_gpu = e.in().plan.bottom_mlp_gpu;
  bot_b.assign(n, -1);
  for (int g = 0; g < n; ++g) {
    if (bottom_gpu >= 0 && g != bottom_gpu) continue;
    std::vector<int> deps = {inter_b[g]};
    if (g == bottom_gpu && a2a_b[g] >= 0) deps.push_back(a2a_b[g]);
    bot_b[g] = e.local(g, Stream::dense_compute, Phase::bottom_mlp_bwd, e.f(g) * dense.bottom_bwd_s,
                       std::move(deps));
  }
  // 2D replica sync (Algorithm 1, lines 9-10): after every peer's update, on the sparse
  // communication stream (it follows the backward AlltoAll there and does not queue behind the
  // MLP AllReduce, which it does not depend on); the next iteration waits for it.
  DepsByGpu peer_sync_by_gpu(n);
  if (!e.traffic().peer_syncs.empty() && peer.syncs_after(iteration)) {
    DepsByGpu after_update(n);
    for (int g = 0; g < n; ++g) after_update[g] = {update[g]};
    peer_sync_by_gpu = sync_collectives(e, e.traffic().peer_syncs, Stream::sparse_comm,
                                        Phase::embedding_replica_sync, after_update);
  }
  // The dense optimizer's step: once the bottom MLP's gradients exist and every dense gradient
  // is reduced (DDP, then optimizer.step()); the next forward pass reads its weights.
  std::vector<int> dense_opt(n, -1);
  if (dense.optimizer_s > 0) {
    for (int g = 0; g < n; ++g) {
      std::vector<int> deps = {bot_b[g] >= 0 ? bot_b[g] : inter_b[g]};
      if (mlp_ar[g] >= 0) deps.push_back(mlp_ar[g]);
      const double step_s = bot_b[g] >= 0 ? dense.optimizer_s : dense.optimizer_without_bottom_s;
      dense_opt[g] = e.local(g, Stream::dense_compute, Phase::dense_optimizer, e.f(g) * step_s,
                             std::move(deps));
    }
  }
  for (int g = 0; g < n; ++g) {
    e.set_last(fw.input[g]);
    e.set_last(update[g]);
    e.set_last(a2a_b[g]);
    e.set_last(bot_b[g]);
    e.set_last(mlp_ar[g]);
    e.set_last(dense_opt[g]);
    for (int id : replica_ar_by_gpu[g]) e.set_last(id);
    for (int id : peer_sync_by_gpu[g]) e.set_last(id);
  }
}

}  // namespace

IterationTasks emit_iteration(TaskGraph& graph, const SimulationInputs& in,
                              const PlanTraffic& traffic, const PeerSyncs& peer_syncs,
                              IterationDraw draw, std::span<const double> factor, int iteration,
                              const IterationTasks* previous) {
  const int n = in.cluster.num_gpus();
  IterationTasks out;
  out.first_task = static_cast<int>(graph.tasks.size());
  out.lookups_by_gpu = std::move(draw.lookups_by_gpu);
  out.lookup_s_by_gpu = std::move(draw.lookup_s_by_gpu);
  out.host_link_bytes_by_gpu = std::move(draw.host_link_bytes_by_gpu);
  if (previous) {
    out.shared_demands = previous->shared_demands;
  } else {
    for (const CollectiveDemand& d : traffic.shared_demands)
      out.shared_demands.push_back(graph.add_demand(d));
  }
  Emitter e(graph, in, traffic, factor, previous, out);
  // The batch's inputs (docs/model.md, "Data ingestion"): delivered on their own stream, which
  // runs ahead of training (the readers stream batches continuously), so a delivery slower than
  // the GPU's iteration sets the pace and a faster one hides.
  if (const double ingest_s = traffic.input_delivery_s; ingest_s > 0) {
    std::vector<int> ingest(n);
    for (int g = 0; g < n; ++g) {
      ingest[g] = e.local(g, Stream::ingest, Phase::input_ingest, ingest_s, {});
    }
    e.set_delivery(std::move(ingest));
  }
  // The host's step (docs/model.md, "Host overhead"): it starts when the previous iteration has
  // ended on this GPU (the host waits for it) and runs while the GPU works; the next iteration
  // waits for it, so an iteration lasts at least the host's time. A host whose collectives
  // return to it before what follows is dispatched (host_step_serial) runs before the GPU's
  // work instead, which waits for it: the iteration lasts the host's time plus the GPU's.
  const bool host_step = !traffic.host_step_s_by_gpu.empty();
  std::vector<int> host(host_step ? n : 0, -1);
  const auto emit_host = [&] {
    for (int g = 0; g < n; ++g) {
      host[g] =
          e.local(g, Stream::host, Phase::host_step, traffic.host_step_s_by_gpu[g], e.barrier(g));
    }
  };
  if (host_step && traffic.host_step_serial) {
    emit_host();
    e.set_host_gate(host);
  }
  const Forward fw = forward(e, draw);
  out.interaction_fwd_by_gpu = fw.inter;
  std::array<int, kNumStreams> none{};
  none.fill(-1);
  out.last_by_gpu.assign(n, none);
  if (host_step && !traffic.host_step_serial) emit_host();
  for (int id : host) e.set_last(id);
  if (in.workload.mode == Mode::training) {
    backward(e, fw, draw, peer_syncs, iteration);
  } else {
    for (int g = 0; g < n; ++g) {
      e.set_last(fw.input[g]);
      e.set_last(fw.look[g]);
      e.set_last(fw.a2a[g]);
      e.set_last(fw.top[g]);
    }
  }
  out.end_task = static_cast<int>(graph.tasks.size());
  return out;
}

}  // namespace shardsim
