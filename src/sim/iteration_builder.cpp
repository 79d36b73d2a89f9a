#include "shardsim/sim/iteration_builder.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/sim/one_sided_iteration.hpp"

namespace shardsim {

IterationBuilder::IterationBuilder(const SimulationInputs& in)
    : cost_(in.cost),
      in_{in.cluster, in.model, in.workload, in.plan, in.trace, cost_},
      serving_(build_serving_map(in.plan, in.cluster)) {
  const int n = in.cluster.num_gpus();
  const auto& shards = in.plan.shards;
  const double batch = in.workload.batch_per_gpu;
  const double comm_bytes = bytes_per_element(in.model.comm_precision);

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

  // Samples served per shard, and the pooled-embedding traffic (forward: owner -> requester;
  // backward: requester -> owner, the gradients of the same vectors).
  comm_fwd_ = ByteMatrix(n);
  comm_bwd_ = ByteMatrix(n);
  served_gpus_by_shard_.assign(shards.size(), 0.0);
  for (std::size_t k = 0; k < serving_.sets.size(); ++k) {
    const double vector_bytes = batch * serving_.sets[k].cols.size() * comm_bytes;
    for (int g = 0; g < n; ++g) {
      const std::size_t s = serving_.server(k, g);
      served_gpus_by_shard_[s] += 1;
      const int owner = shards[s].gpu;
      if (owner == g) continue;
      comm_fwd_.at(owner, g) += vector_bytes;
      if (in.workload.mode == Mode::training) comm_bwd_.at(g, owner) += vector_bytes;
    }
  }
  // --- OPER one-sided plans (issue 6): rows fetched with gets, gradients returned with puts, no
  // AlltoAll (one_sided_iteration.hpp). The reported matrices are their expected bytes.
  if (in.plan.lookup_comm == LookupComm::one_sided) {
    const OneSidedTraffic expected = one_sided_traffic(
        in.plan, serving_, in.cluster, in.model, in.workload, in.trace,
        expected_lookups(serving_, in.cluster, in.model, in.workload, in.trace), in.cost);
    comm_fwd_ = expected.get_bytes;
    comm_bwd_ = expected.put_bytes;
  }
  // --- end OPER one-sided

  // One AlltoAll per sparse group (all GPUs when the plan has no groups).
  if (in.plan.groups.empty()) {
    std::vector<int> all(n);
    for (int g = 0; g < n; ++g) all[g] = g;
    a2a_groups_.push_back(std::move(all));
  } else {
    a2a_groups_ = in.plan.groups;
  }
  const bool one_sided = in.plan.lookup_comm == LookupComm::one_sided;
  for (const auto& members : a2a_groups_) {
    if (one_sided) {  // OPER: no AlltoAll (the backward puts are issued per iteration)
      a2a_fwd_bytes_.push_back(0);
      a2a_bwd_bytes_.push_back(0);
      a2a_fwd_s_.push_back(0);
      a2a_bwd_s_.push_back(0);
      continue;
    }
    ByteMatrix fwd(n), bwd(n);
    for (int a : members) {
      for (int b : members) {
        fwd.at(a, b) = comm_fwd_.at(a, b);
        bwd.at(a, b) = comm_bwd_.at(a, b);
      }
    }
    a2a_fwd_bytes_.push_back(fwd.total());
    a2a_bwd_bytes_.push_back(bwd.total());
    a2a_fwd_s_.push_back(alltoallv_s(in.cluster, fwd, in.cost));
    a2a_bwd_s_.push_back(alltoallv_s(in.cluster, bwd, in.cost));
  }

  // Gradient synchronisation of replicated blocks: one collective per distinct set of replica
  // GPUs, of every block they share, with the plan's ReplicaSync variant (dense AllReduce by
  // default; OPER §5.3's sparse variants).
  if (in.workload.mode == Mode::training) {
    replica_syncs_ = replica_sync_buckets(in.plan, serving_, in.cluster, in.model, in.workload,
                                          in.trace, in.cost);
  }

  // Dense part: identical on every GPU (data parallel MLPs, local batch).
  const GpuSpec& gpu = in.cluster.gpu();
  const auto& m = in.model;
  const std::uint32_t vec_dim = m.bottom_mlp.empty() ? 0 : m.bottom_mlp.back();
  const std::uint64_t vectors = m.tables.size() + 1;
  dense_.bottom_fwd_s =
      mlp_forward_s(gpu, m.dense_features, m.bottom_mlp, batch, m.mlp_precision, in.cost);
  dense_.interaction_fwd_s =
      interaction_forward_s(gpu, batch, vectors, vec_dim, m.mlp_precision, in.cost);
  dense_.top_fwd_s =
      mlp_forward_s(gpu, m.interaction_output_width(), m.top_mlp, batch, m.mlp_precision, in.cost);
  if (in.workload.mode == Mode::training) {
    dense_.top_bwd_s = mlp_backward_s(gpu, m.interaction_output_width(), m.top_mlp, batch,
                                      m.mlp_precision, in.cost);
    dense_.interaction_bwd_s =
        interaction_backward_s(gpu, batch, vectors, vec_dim, m.mlp_precision, in.cost);
    dense_.bottom_bwd_s =
        mlp_backward_s(gpu, m.dense_features, m.bottom_mlp, batch, m.mlp_precision, in.cost);
    dense_.mlp_allreduce_bytes = static_cast<double>(m.mlp_parameter_count()) * comm_bytes;
    std::vector<int> all(n);
    for (int g = 0; g < n; ++g) all[g] = g;
    dense_.mlp_allreduce_s = allreduce_s(in.cluster, all, dense_.mlp_allreduce_bytes, in.cost);
  }
}

IterationTasks IterationBuilder::append(TaskGraph& graph, int iteration,
                                        const IterationTasks* previous) const {
  const int n = in_.cluster.num_gpus();
  const auto& shards = in_.plan.shards;
  const bool training = in_.workload.mode == Mode::training;
  const double batch = in_.workload.batch_per_gpu;

  IterationTasks out;
  out.first_task = static_cast<int>(graph.tasks.size());
  out.lookups_by_gpu.assign(n, 0.0);
  out.lookup_s_by_gpu.assign(n, 0.0);

  // --- Embedding work of every shard in this iteration, from the trace.
  std::vector<double> shard_lookups(shards.size(), 0.0);
  std::vector<double> shard_distinct(shards.size(), 0.0);
  std::vector<double> table_lookups_by_gpu(n);
  std::vector<double> served_table_lookups(shards.size());
  const bool one_sided = in_.plan.lookup_comm == LookupComm::one_sided;  // OPER (issue 6)
  IterationLookups one_sided_lookups;
  if (one_sided) {
    one_sided_lookups.num_gpus = n;
    one_sided_lookups.set_lookups.assign(serving_.sets.size() * n, 0.0);
    one_sided_lookups.table_lookups.assign(table_blocks_.size() * n, 0.0);
  }
  for (std::size_t t = 0; t < table_blocks_.size(); ++t) {
    const auto& blocks = table_blocks_[t].blocks;
    if (blocks.empty()) continue;  // a table the plan does not place (validated elsewhere)
    const TableIterationDraw draw =
        in_.trace.draw(t, iteration, n, in_.workload.batch_per_gpu, blocks);
    std::fill(table_lookups_by_gpu.begin(), table_lookups_by_gpu.end(), 0.0);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      for (int g = 0; g < n; ++g) table_lookups_by_gpu[g] += draw.lookups_by_block_gpu[b * n + g];
    }
    if (one_sided) {  // OPER: the drawn lookups of every (replica set, GPU) and (table, GPU)
      std::copy(table_lookups_by_gpu.begin(), table_lookups_by_gpu.end(),
                one_sided_lookups.table_lookups.begin() + static_cast<std::ptrdiff_t>(t * n));
      for (std::size_t k : sets_of_table_[t]) {
        const std::size_t b = block_of_set_[k];
        std::copy_n(draw.lookups_by_block_gpu.begin() + static_cast<std::ptrdiff_t>(b * n), n,
                    one_sided_lookups.set_lookups.begin() + static_cast<std::ptrdiff_t>(k * n));
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
    lookup_fwd_s[g] = embedding_forward_s(gpu, works_by_gpu[g], in_.cost);
    if (training) {
      update_bwd_s[g] = embedding_backward_s(gpu, works_by_gpu[g], in_.model.optimizer, in_.cost);
    }
    out.lookup_s_by_gpu[g] = lookup_fwd_s[g] + update_bwd_s[g];
  }
  // --- OPER one-sided plans (issue 6): the all-in-one kernel with its gets, the update kernel
  // with the received gradients, and the puts (issued below as the backward collective).
  OneSidedIteration one_sided_it;
  if (one_sided) {
    one_sided_it = one_sided_iteration(in_, serving_, one_sided_lookups);
    lookup_fwd_s = one_sided_it.lookup_fwd_s;
    update_bwd_s = one_sided_it.update_bwd_s;
    out.lookups_by_gpu = one_sided_it.lookups_served;
    for (int g = 0; g < n; ++g) out.lookup_s_by_gpu[g] = lookup_fwd_s[g] + update_bwd_s[g];
  }
  // --- end OPER one-sided

  // --- The DAG (Neo App. B Eq. 1), phase by phase across GPUs so each stream stays in order.
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
  // Adds one collective per group of `groups`; returns each GPU's member task (-1 if none).
  auto collective_per_group = [&](const std::vector<std::vector<int>>& groups, Stream stream,
                                  Phase phase, const std::vector<double>& durations,
                                  const std::vector<double>& bytes,
                                  const std::vector<std::vector<int>>& deps_by_gpu) {
    std::vector<int> task_of_gpu(n, -1);
    for (std::size_t k = 0; k < groups.size(); ++k) {
      if (bytes[k] <= 0 || groups[k].size() < 2) continue;
      std::vector<std::vector<int>> deps;
      for (int g : groups[k]) deps.push_back(deps_by_gpu[g]);
      const int c = graph.add_collective(groups[k], stream, phase, durations[k], bytes[k], deps);
      const auto& members = graph.collectives[c].members;
      for (std::size_t i = 0; i < members.size(); ++i) task_of_gpu[groups[k][i]] = members[i];
    }
    return task_of_gpu;
  };

  std::vector<int> bot(n), look(n), inter(n), top(n);
  std::vector<std::vector<int>> deps_by_gpu(n);
  for (int g = 0; g < n; ++g) {
    bot[g] =
        local(g, Stream::dense_compute, Phase::bottom_mlp_fwd, dense_.bottom_fwd_s, barrier(g));
  }
  for (int g = 0; g < n; ++g) {
    look[g] =
        local(g, Stream::sparse_compute, Phase::embedding_lookup_fwd, lookup_fwd_s[g], barrier(g));
    deps_by_gpu[g] = {look[g]};
  }
  const std::vector<int> a2a =
      collective_per_group(a2a_groups_, Stream::sparse_comm, Phase::alltoall_fwd, a2a_fwd_s_,
                           a2a_fwd_bytes_, deps_by_gpu);
  for (int g = 0; g < n; ++g) {
    inter[g] = local(g, Stream::dense_compute, Phase::interaction_fwd, dense_.interaction_fwd_s,
                     {bot[g], a2a[g] >= 0 ? a2a[g] : look[g]});
  }
  for (int g = 0; g < n; ++g) {
    top[g] = local(g, Stream::dense_compute, Phase::top_mlp_fwd, dense_.top_fwd_s, {inter[g]});
  }

  out.last_by_gpu.assign(n, {-1, -1, -1, -1});
  auto set_last = [&](int task) {
    if (task < 0) return;
    const Task& t = graph.tasks[task];
    out.last_by_gpu[t.gpu][static_cast<int>(t.stream)] = task;
  };

  if (!training) {
    for (int g = 0; g < n; ++g) {
      set_last(look[g]);
      set_last(a2a[g]);
      set_last(top[g]);
    }
    out.end_task = static_cast<int>(graph.tasks.size());
    return out;
  }

  std::vector<int> top_b(n), inter_b(n), bot_b(n), update(n);
  for (int g = 0; g < n; ++g) {
    top_b[g] = local(g, Stream::dense_compute, Phase::top_mlp_bwd, dense_.top_bwd_s, {top[g]});
  }
  for (int g = 0; g < n; ++g) {
    inter_b[g] = local(g, Stream::dense_compute, Phase::interaction_bwd, dense_.interaction_bwd_s,
                       {top_b[g]});
    deps_by_gpu[g] = {inter_b[g]};
  }
  std::vector<int> all(n);
  for (int g = 0; g < n; ++g) all[g] = g;
  // OPER one-sided plans: the gradient puts of every GPU, which every holder waits for.
  const std::vector<int> a2a_b =
      one_sided
          ? collective_per_group({all}, Stream::sparse_comm, Phase::alltoall_bwd,
                                 {one_sided_it.puts_s}, {one_sided_it.puts_bytes}, deps_by_gpu)
          : collective_per_group(a2a_groups_, Stream::sparse_comm, Phase::alltoall_bwd, a2a_bwd_s_,
                                 a2a_bwd_bytes_, deps_by_gpu);
  // Eq. 1 overlaps the MLP gradient AllReduce with the whole backward pass (DDP buckets).
  std::vector<std::vector<int>> after_top(n);
  for (int g = 0; g < n; ++g) after_top[g] = {top[g]};
  const std::vector<int> mlp_ar =
      collective_per_group({all}, Stream::dense_comm, Phase::mlp_allreduce,
                           {dense_.mlp_allreduce_s}, {dense_.mlp_allreduce_bytes}, after_top);
  std::vector<std::vector<int>> replica_ar_by_gpu(n);
  for (const ReplicaSyncBucket& sync : replica_syncs_) {
    const std::vector<int> ids =
        collective_per_group({sync.gpus}, Stream::dense_comm, Phase::embedding_replica_allreduce,
                             {sync.duration_s}, {sync.bytes}, deps_by_gpu);
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
    bot_b[g] =
        local(g, Stream::dense_compute, Phase::bottom_mlp_bwd, dense_.bottom_bwd_s, {inter_b[g]});
  }
  for (int g = 0; g < n; ++g) {
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
