#include "shardsim/sim/iteration_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "shardsim/core/rng.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/kernel_cost.hpp"

namespace shardsim {

namespace {

// Purpose key of the jitter stream (stream_seed(seed, {kJitterStream, iteration, gpu})).
constexpr std::uint64_t kJitterStream = 0x6a6974746572ULL;  // "jitter"

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
  if (o.link_sharing == LinkSharing::per_flow && n > kPerFlowMaxGpus) {
    throw std::invalid_argument(
        fmt::format("per-flow link sharing on {} GPUs (at most {})", n, kPerFlowMaxGpus));
  }
}

std::vector<int> all_gpus(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) v[static_cast<std::size_t>(g)] = g;
  return v;
}

}  // namespace

IterationBuilder::IterationBuilder(const SimulationInputs& in)
    : cost_(in.cost),
      in_{in.cluster, in.model, in.workload, in.plan, in.trace, cost_, in.options},
      serving_(build_serving_map(in.plan, in.cluster)),
      levels_(in.cluster) {
  const int n = in.cluster.num_gpus();
  check_options(in.options, n);
  const auto& shards = in.plan.shards;
  const double batch = in.workload.batch_per_gpu;
  const bool training = in.workload.mode == Mode::training;
  const bool per_flow = in.options.link_sharing == LinkSharing::per_flow;
  const double fwd_elem_bytes = bytes_per_element(in.model.comm_precision);
  const double bwd_elem_bytes = bytes_per_element(in.model.comm_bwd_precision);
  slowdown_by_gpu_.assign(static_cast<std::size_t>(n), 1.0);
  for (const Straggler& s : in.options.stragglers) {
    slowdown_by_gpu_[static_cast<std::size_t>(s.gpu)] *= s.slowdown;
  }
  link_capacity_Bps_ = achievable_link_Bps(in.cluster, cost_);

  // Row blocks per table: the distinct row ranges of its replica sets, sorted by begin. Sets that
  // differ only in columns share a block (the same lookups reach every column shard).
  table_blocks_.resize(in.model.tables.size());
  block_of_set_.resize(serving_.sets.size());
  {
    std::vector<std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t>> seen(
        in.model.tables.size());
    for (const ReplicaSet& set : serving_.sets) {
      seen[set.table].try_emplace({set.rows.begin, set.rows.end}, 0);
    }
    std::vector<RowSpace> space_of_table(seen.size(), RowSpace::row_id);
    for (const ReplicaSet& set : serving_.sets) space_of_table[set.table] = set.row_space;
    for (std::size_t t = 0; t < seen.size(); ++t) {
      const RowSpace space = space_of_table[t];
      for (auto& [range, idx] : seen[t]) {
        idx = table_blocks_[t].blocks.size();
        table_blocks_[t].blocks.push_back(RowBlock{{range.first, range.second}, space});
      }
    }
    sets_of_table_.resize(in.model.tables.size());
    for (std::size_t k = 0; k < serving_.sets.size(); ++k) {
      const ReplicaSet& set = serving_.sets[k];
      block_of_set_[k] = seen[set.table].at({set.rows.begin, set.rows.end});
      sets_of_table_[set.table].push_back(k);
    }
  }

  // One AlltoAll per sparse group (all GPUs when the plan has no groups).
  if (in.plan.groups.empty()) {
    a2a_groups_.push_back(all_gpus(n));
  } else {
    a2a_groups_ = in.plan.groups;
  }
  const std::size_t groups = a2a_groups_.size();

  // Pooled-embedding traffic (forward: owner -> requester; backward: requester -> owner, the
  // gradients of the same vectors), per GPU and level, per group, and for the report's matrix.
  // Never an N x N matrix at scale: per-flow sharing (small clusters) is the only user of one.
  const LevelTable& levels = levels_;
  const MatrixUnits units = comm_matrix_units(in.cluster);
  comm_.fwd = LevelTraffic(in.cluster);
  comm_.bwd = LevelTraffic(in.cluster);
  comm_.granularity = units.granularity;
  if (units.count > 0) {
    comm_.fwd_matrix = ByteMatrix(units.count);
    comm_.bwd_matrix = ByteMatrix(units.count);
  }
  std::vector<LevelTraffic> group_fwd(groups, LevelTraffic(in.cluster));
  std::vector<LevelTraffic> group_bwd(groups, LevelTraffic(in.cluster));
  std::vector<ByteMatrix> pair_fwd, pair_bwd;  // per-flow only (small clusters)
  if (per_flow) {
    pair_fwd.assign(groups, ByteMatrix(n));
    pair_bwd.assign(groups, ByteMatrix(n));
  }
  served_gpus_by_shard_.assign(shards.size(), 0.0);
  for (std::size_t k = 0; k < serving_.sets.size(); ++k) {
    const double fwd_bytes = batch * serving_.sets[k].cols.size() * fwd_elem_bytes;
    const double bwd_bytes = batch * serving_.sets[k].cols.size() * bwd_elem_bytes;
    for (int g = 0; g < n; ++g) {
      const std::size_t s = serving_.server(k, g);
      served_gpus_by_shard_[s] += 1;
      const int owner = shards[s].gpu;
      if (owner == g) continue;
      const int level = levels.level(owner, g);
      const auto grp = static_cast<std::size_t>(serving_.group_of[static_cast<std::size_t>(g)]);
      comm_.fwd.add(owner, g, level, fwd_bytes);
      group_fwd[grp].add(owner, g, level, fwd_bytes);
      if (per_flow) pair_fwd[grp].at(owner, g) += fwd_bytes;
      if (units.count > 0) {
        comm_.fwd_matrix.at(units.unit_of[static_cast<std::size_t>(owner)],
                            units.unit_of[static_cast<std::size_t>(g)]) += fwd_bytes;
      }
      if (!training) continue;
      comm_.bwd.add(g, owner, level, bwd_bytes);
      group_bwd[grp].add(g, owner, level, bwd_bytes);
      if (per_flow) pair_bwd[grp].at(g, owner) += bwd_bytes;
      if (units.count > 0) {
        comm_.bwd_matrix.at(units.unit_of[static_cast<std::size_t>(g)],
                            units.unit_of[static_cast<std::size_t>(owner)]) += bwd_bytes;
      }
    }
  }
  for (std::size_t k = 0; k < groups; ++k) {
    a2a_fwd_.push_back(
        share(a2a_groups_[k], alltoall_demand(group_fwd[k], per_flow ? &pair_fwd[k] : nullptr)));
    a2a_bwd_.push_back(
        share(a2a_groups_[k], alltoall_demand(group_bwd[k], per_flow ? &pair_bwd[k] : nullptr)));
  }

  const FlowGranularity granularity =
      per_flow ? FlowGranularity::per_flow : FlowGranularity::aggregated;
  // Gradient synchronisation of replicated blocks (data-parallel tables): one AllReduce per
  // distinct set of replica GPUs, of the dense gradient of every block they share.
  if (training) {
    std::map<std::vector<int>, double> bytes_by_gpus;
    for (const ReplicaSet& set : serving_.sets) {
      if (set.shards.size() < 2) continue;
      std::vector<int> gpus;
      for (std::size_t s : set.shards) gpus.push_back(shards[s].gpu);
      std::sort(gpus.begin(), gpus.end());
      gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
      bytes_by_gpus[gpus] +=
          static_cast<double>(set.rows.size()) * set.cols.size() * bwd_elem_bytes;
    }
    for (auto& [gpus, bytes] : bytes_by_gpus) {
      replica_syncs_.push_back(
          share(gpus, allreduce_demand(in.cluster, gpus, bytes, cost_, granularity)));
    }
  }

  // Dense part: identical on every GPU (data parallel MLPs, local batch).
  const GpuSpec& gpu = in.cluster.gpu();
  const auto& m = in.model;
  const std::uint32_t vec_dim = m.bottom_mlp.empty() ? 0 : m.bottom_mlp.back();
  const std::uint64_t vectors = m.tables.size() + 1;
  dense_.bottom_fwd_s =
      mlp_forward_s(gpu, m.dense_features, m.bottom_mlp, batch, m.mlp_precision, cost_);
  dense_.interaction_fwd_s =
      interaction_forward_s(gpu, batch, vectors, vec_dim, m.mlp_precision, cost_);
  dense_.top_fwd_s =
      mlp_forward_s(gpu, m.interaction_output_width(), m.top_mlp, batch, m.mlp_precision, cost_);
  if (training) {
    dense_.top_bwd_s =
        mlp_backward_s(gpu, m.interaction_output_width(), m.top_mlp, batch, m.mlp_precision, cost_);
    dense_.interaction_bwd_s =
        interaction_backward_s(gpu, batch, vectors, vec_dim, m.mlp_precision, cost_);
    dense_.bottom_bwd_s =
        mlp_backward_s(gpu, m.dense_features, m.bottom_mlp, batch, m.mlp_precision, cost_);
    const double bytes = static_cast<double>(m.mlp_parameter_count()) * bwd_elem_bytes;
    const std::vector<int> all = all_gpus(n);
    mlp_allreduce_ = share(all, allreduce_demand(in.cluster, all, bytes, cost_, granularity));
  }
}

IterationBuilder::SharedCollective IterationBuilder::share(std::vector<int> gpus,
                                                           CollectiveDemand demand) {
  SharedCollective c;
  c.gpus = std::move(gpus);
  c.bytes = demand.payload_bytes;
  c.duration_s = idle_time_s(in_.cluster, demand, cost_);
  if (in_.options.link_sharing != LinkSharing::none && !demand.empty()) {
    c.demand_slot = static_cast<int>(shared_demands_.size());
    shared_demands_.push_back(std::move(demand));
  }
  return c;
}

CollectiveDemand IterationBuilder::alltoall_demand(const LevelTraffic& traffic,
                                                   const ByteMatrix* matrix) const {
  if (matrix) return alltoallv_demand(in_.cluster, *matrix, cost_, FlowGranularity::per_flow);
  return alltoallv_demand(in_.cluster, traffic, cost_);
}

// Stragglers multiply a GPU's kernel times by their slowdown; jitter by a lognormal factor of
// mean 1 and coefficient of variation cv (σ² = ln(1 + cv²), μ = −σ²/2), drawn per iteration and
// GPU from the workload seed.
double IterationBuilder::slowdown(int gpu, int iteration) const {
  double f = slowdown_by_gpu_[static_cast<std::size_t>(gpu)];
  const double cv = in_.options.jitter_cv;
  if (cv > 0) {
    const double sigma2 = std::log1p(cv * cv);
    Rng rng(stream_seed(in_.workload.seed, {kJitterStream, static_cast<std::uint64_t>(iteration),
                                            static_cast<std::uint64_t>(gpu)}));
    f *= rng.lognormal(-0.5 * sigma2, std::sqrt(sigma2));
  }
  return f;
}

IterationTasks IterationBuilder::append(TaskGraph& graph, int iteration,
                                        const IterationTasks* previous) const {
  const int n = in_.cluster.num_gpus();
  const auto& shards = in_.plan.shards;
  const bool training = in_.workload.mode == Mode::training;
  const bool sharing = in_.options.link_sharing != LinkSharing::none;
  const bool per_flow = in_.options.link_sharing == LinkSharing::per_flow;
  const InputAlltoall input_mode = in_.options.input_alltoall;
  const double batch = in_.workload.batch_per_gpu;
  const std::size_t groups = a2a_groups_.size();

  IterationTasks out;
  out.first_task = static_cast<int>(graph.tasks.size());
  out.lookups_by_gpu.assign(n, 0.0);
  out.lookup_s_by_gpu.assign(n, 0.0);
  if (previous) {
    out.shared_demands = previous->shared_demands;
  } else {
    for (const CollectiveDemand& d : shared_demands_)
      out.shared_demands.push_back(graph.add_demand(d));
  }
  std::vector<double> factor(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) factor[static_cast<std::size_t>(g)] = slowdown(g, iteration);

  // The input AlltoAll of this batch: each GPU sends the indices of its samples (and one offset
  // per bag) to the GPU serving each block.
  std::vector<LevelTraffic> input_traffic;
  std::vector<ByteMatrix> input_pairs;
  const bool inputs = input_mode != InputAlltoall::none;
  if (inputs) {
    input_traffic.assign(groups, LevelTraffic(in_.cluster));
    if (per_flow) input_pairs.assign(groups, ByteMatrix(n));
  }

  // --- Embedding work of every shard in this iteration, from the trace.
  std::vector<double> shard_lookups(shards.size(), 0.0);
  std::vector<double> shard_distinct(shards.size(), 0.0);
  std::vector<double> table_lookups_by_gpu(n);
  std::vector<double> served_table_lookups(shards.size());
  for (std::size_t t = 0; t < table_blocks_.size(); ++t) {
    const auto& blocks = table_blocks_[t].blocks;
    if (blocks.empty()) continue;  // a table the plan does not place (validated elsewhere)
    const TableIterationDraw draw =
        in_.trace.draw(t, iteration, n, in_.workload.batch_per_gpu, blocks);
    std::fill(table_lookups_by_gpu.begin(), table_lookups_by_gpu.end(), 0.0);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      for (int g = 0; g < n; ++g) table_lookups_by_gpu[g] += draw.lookups_by_block_gpu[b * n + g];
    }
    if (inputs) {
      // GPU g sends its indices of block b (and one offset per bag) to the GPU serving it.
      const double offsets = batch * cost_.offset_bytes_per_output;
      for (std::size_t k : sets_of_table_[t]) {
        const double* lookups = draw.lookups_by_block_gpu.data() + block_of_set_[k] * n;
        const bool one_server = serving_.served_by[k].empty();
        int owner = shards[serving_.sets[k].shards.front()].gpu;
        for (int g = 0; g < n; ++g) {
          if (!one_server) owner = shards[serving_.server(k, g)].gpu;
          if (owner == g) continue;
          const double bytes = lookups[g] * cost_.index_bytes_per_lookup + offsets;
          const auto grp = static_cast<std::size_t>(serving_.group_of[static_cast<std::size_t>(g)]);
          // Levels are symmetric: the owner's row of the node table serves every g.
          input_traffic[grp].add(g, owner, levels_.row_of(owner)[levels_.node_of(g)], bytes);
          if (per_flow) input_pairs[grp].at(g, owner) += bytes;
        }
      }
    }
    for (std::size_t k : sets_of_table_[t]) {
      const ReplicaSet& set = serving_.sets[k];
      const std::size_t b = block_of_set_[k];
      if (set.shards.size() == 1) {
        const std::size_t s = set.shards.front();
        for (int g = 0; g < n; ++g) shard_lookups[s] += draw.lookups_by_block_gpu[b * n + g];
        shard_distinct[s] = draw.distinct_by_block[b];
        continue;
      }
      for (std::size_t s : set.shards) served_table_lookups[s] = 0;
      for (int g = 0; g < n; ++g) {
        const std::size_t s = serving_.server(k, g);
        shard_lookups[s] += draw.lookups_by_block_gpu[b * n + g];
        served_table_lookups[s] += table_lookups_by_gpu[g];
      }
      // A replica serving only some GPUs touches the distinct rows of their lookups only.
      const AccessProfile& profile = in_.trace.profile(t);
      for (std::size_t s : set.shards) {
        shard_distinct[s] =
            served_table_lookups[s] > 0
                ? profile.expected_distinct(set.rows, set.row_space, served_table_lookups[s])
                : 0.0;
      }
    }
  }
  // All shards of a GPU run in one fused kernel (FBGEMM's table-batched embedding, Neo §5.1),
  // so each GPU's works are costed together: one launch per GPU, not one per shard.
  const GpuSpec& gpu = in_.cluster.gpu();
  std::vector<std::vector<EmbeddingWork>> works_by_gpu(n);
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const Shard& sh = shards[s];
    EmbeddingWork work;
    work.lookups = shard_lookups[s];
    work.distinct_rows = shard_distinct[s];
    work.pooled_outputs = served_gpus_by_shard_[s] * batch;
    work.cols = sh.cols.size();
    work.precision = in_.model.table_precision;
    works_by_gpu[sh.gpu].push_back(work);
    out.lookups_by_gpu[sh.gpu] += work.lookups;
  }
  std::vector<double> lookup_fwd_s(n, 0.0), update_bwd_s(n, 0.0);
  for (int g = 0; g < n; ++g) {
    const double f = factor[static_cast<std::size_t>(g)];
    lookup_fwd_s[g] = f * embedding_forward_s(gpu, works_by_gpu[g], cost_);
    if (training) {
      update_bwd_s[g] = f * embedding_backward_s(gpu, works_by_gpu[g], in_.model.optimizer, cost_);
    }
    out.lookup_s_by_gpu[g] = lookup_fwd_s[g] + update_bwd_s[g];
  }

  // --- The DAG (Neo App. B Eq. 1, §4.2), phase by phase across GPUs so each stream stays in
  // order.
  auto barrier = [&](int g) {
    std::vector<int> deps;
    if (previous) {
      for (int id : previous->last_by_gpu[g]) {
        if (id >= 0) deps.push_back(id);
      }
    }
    return deps;
  };
  auto local = [&](int g, Stream stream, Phase phase, double d, std::vector<int> deps) {
    Task t;
    t.gpu = g;
    t.stream = stream;
    t.phase = phase;
    t.duration_s = d;
    t.deps = std::move(deps);
    return graph.add_task(std::move(t));
  };
  // Adds a collective over `gpus` (nothing for fewer than 2 GPUs or no bytes) and records each
  // member's task in `task_of_gpu`.
  auto collective = [&](const std::vector<int>& gpus, Stream stream, Phase phase, double duration_s,
                        double bytes, int demand, const std::vector<std::vector<int>>& deps_by_gpu,
                        std::vector<int>& task_of_gpu) {
    if (bytes <= 0 || gpus.size() < 2) return;
    std::vector<std::vector<int>> deps;
    for (int g : gpus) deps.push_back(deps_by_gpu[g]);
    const int c = graph.add_collective(gpus, stream, phase, duration_s, bytes, deps, demand);
    const auto& members = graph.collectives[c].members;
    for (std::size_t i = 0; i < members.size(); ++i) task_of_gpu[gpus[i]] = members[i];
  };
  auto shared = [&](const SharedCollective& c, Stream stream, Phase phase,
                    const std::vector<std::vector<int>>& deps_by_gpu,
                    std::vector<int>& task_of_gpu) {
    const int demand = c.demand_slot >= 0 ? out.shared_demands[c.demand_slot] : -1;
    collective(c.gpus, stream, phase, c.duration_s, c.bytes, demand, deps_by_gpu, task_of_gpu);
  };
  auto f = [&](int g) { return factor[static_cast<std::size_t>(g)]; };

  // Input AlltoAll of this batch: serial (after the previous iteration), or overlapped with the
  // previous batch's top MLP forward (Neo §4.2: "we overlap the input AlltoAll of batch i + 1
  // with the forward propagation of top MLP of batch i").
  std::vector<int> input(n, -1);
  if (input_mode != InputAlltoall::none) {
    std::vector<std::vector<int>> deps_by_gpu(n);
    for (int g = 0; g < n; ++g) {
      const bool overlap = input_mode == InputAlltoall::overlapped && previous &&
                           previous->interaction_fwd_by_gpu[g] >= 0;
      deps_by_gpu[g] = overlap ? std::vector<int>{previous->interaction_fwd_by_gpu[g]} : barrier(g);
    }
    for (std::size_t k = 0; k < groups; ++k) {
      CollectiveDemand d = per_flow ? alltoall_demand(input_traffic[k], &input_pairs[k])
                                    : alltoall_demand(input_traffic[k], nullptr);
      const double duration = idle_time_s(in_.cluster, d, cost_);
      const double bytes = d.payload_bytes;
      const int demand = sharing && !d.empty() ? graph.add_demand(std::move(d)) : -1;
      collective(a2a_groups_[k], Stream::input_comm, Phase::input_alltoall, duration, bytes, demand,
                 deps_by_gpu, input);
    }
  }

  std::vector<int> bot(n), look(n), inter(n), top(n);
  std::vector<std::vector<int>> deps_by_gpu(n);
  for (int g = 0; g < n; ++g) {
    std::vector<int> deps = barrier(g);
    if (input[g] >= 0) deps.push_back(input[g]);
    look[g] = local(g, Stream::sparse_compute, Phase::embedding_lookup_fwd, lookup_fwd_s[g],
                    std::move(deps));
  }
  for (int g = 0; g < n; ++g) {
    bot[g] = local(g, Stream::dense_compute, Phase::bottom_mlp_fwd, f(g) * dense_.bottom_fwd_s,
                   barrier(g));
  }
  // The pooled-embedding AlltoAll overlaps the bottom MLP forward (Neo §4.2, Eq. 1), or, serial,
  // waits for it.
  for (int g = 0; g < n; ++g) {
    deps_by_gpu[g] = {look[g]};
    if (in_.options.pooled_alltoall == PooledAlltoall::serial) deps_by_gpu[g].push_back(bot[g]);
  }
  std::vector<int> a2a(n, -1);
  for (const SharedCollective& c : a2a_fwd_) {
    shared(c, Stream::sparse_comm, Phase::alltoall_fwd, deps_by_gpu, a2a);
  }
  for (int g = 0; g < n; ++g) {
    inter[g] = local(g, Stream::dense_compute, Phase::interaction_fwd,
                     f(g) * dense_.interaction_fwd_s, {bot[g], a2a[g] >= 0 ? a2a[g] : look[g]});
  }
  for (int g = 0; g < n; ++g) {
    top[g] =
        local(g, Stream::dense_compute, Phase::top_mlp_fwd, f(g) * dense_.top_fwd_s, {inter[g]});
  }
  out.interaction_fwd_by_gpu = inter;

  out.last_by_gpu.assign(n, {-1, -1, -1, -1, -1});
  auto set_last = [&](int task) {
    if (task < 0) return;
    const Task& t = graph.tasks[task];
    out.last_by_gpu[t.gpu][static_cast<int>(t.stream)] = task;
  };

  if (!training) {
    for (int g = 0; g < n; ++g) {
      set_last(input[g]);
      set_last(look[g]);
      set_last(a2a[g]);
      set_last(top[g]);
    }
    out.end_task = static_cast<int>(graph.tasks.size());
    return out;
  }

  std::vector<int> top_b(n), inter_b(n), bot_b(n), update(n);
  for (int g = 0; g < n; ++g) {
    top_b[g] =
        local(g, Stream::dense_compute, Phase::top_mlp_bwd, f(g) * dense_.top_bwd_s, {top[g]});
  }
  for (int g = 0; g < n; ++g) {
    inter_b[g] = local(g, Stream::dense_compute, Phase::interaction_bwd,
                       f(g) * dense_.interaction_bwd_s, {top_b[g]});
    deps_by_gpu[g] = {inter_b[g]};
  }
  std::vector<int> a2a_b(n, -1);
  for (const SharedCollective& c : a2a_bwd_) {
    shared(c, Stream::sparse_comm, Phase::alltoall_bwd, deps_by_gpu, a2a_b);
  }
  // Eq. 1 overlaps the MLP gradient AllReduce with the whole backward pass (DDP buckets).
  std::vector<std::vector<int>> after_top(n);
  for (int g = 0; g < n; ++g) after_top[g] = {top[g]};
  std::vector<int> mlp_ar(n, -1);
  shared(mlp_allreduce_, Stream::dense_comm, Phase::mlp_allreduce, after_top, mlp_ar);
  std::vector<std::vector<int>> replica_ar_by_gpu(n);
  for (const SharedCollective& sync : replica_syncs_) {
    std::vector<int> ids(n, -1);
    shared(sync, Stream::dense_comm, Phase::embedding_replica_allreduce, deps_by_gpu, ids);
    for (int g : sync.gpus) {
      if (ids[g] >= 0) replica_ar_by_gpu[g].push_back(ids[g]);
    }
  }
  for (int g = 0; g < n; ++g) {
    std::vector<int> deps = {inter_b[g]};
    if (a2a_b[g] >= 0) deps.push_back(a2a_b[g]);
    for (int id : replica_ar_by_gpu[g]) deps.push_back(id);
    update[g] = local(g, Stream::sparse_compute, Phase::embedding_update_bwd, update_bwd_s[g],
                      std::move(deps));
  }
  for (int g = 0; g < n; ++g) {
    bot_b[g] = local(g, Stream::dense_compute, Phase::bottom_mlp_bwd, f(g) * dense_.bottom_bwd_s,
                     {inter_b[g]});
  }
  for (int g = 0; g < n; ++g) {
    set_last(input[g]);
    set_last(update[g]);
    set_last(a2a_b[g]);
    set_last(bot_b[g]);
    set_last(mlp_ar[g]);
    for (int id : replica_ar_by_gpu[g]) set_last(id);
  }
  out.end_task = static_cast<int>(graph.tasks.size());
  return out;
}

}  // namespace shardsim
