// One iteration's draw from the trace, as work and bytes (sim/iteration_draw.hpp).
#include "shardsim/sim/iteration_draw.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "shardsim/core/repeated_sum.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/sim/network_model.hpp"
#include "sim/one_sided_iteration.hpp"
#include "sim/uniform_gather.hpp"

namespace shardsim {

namespace {

// What the draw of every table adds up to, per shard.
struct ShardDraw {
  std::vector<double> lookups;   // per shard
  std::vector<double> distinct;  // per shard
};

// GPU g sends its indices of each block of table t (and one offset per bag) to the GPU serving
// it: the input AlltoAll. A block with one server, when every GPU draws alike, goes through
// `gather` (by containers, bit for bit the pairs' sums) while it is set; the first block that
// cannot flushes it and clears it, and every block after goes pair by pair.
void add_input_traffic(const SimulationInputs& in, const PlanAnalysis& a, std::size_t t,
                       const TableIterationDraw& draw, const LevelTable& levels,
                       UniformGather*& gather, IterationDraw& out) {
  const int n = in.cluster.num_gpus();
  const auto un = static_cast<std::size_t>(n);
  const auto& shards = in.plan.shards;
  const ServingMap& serving = a.serving;
  const bool per_flow = in.network().needs_pair_traffic();
  const double offsets = in.workload.batch_per_gpu * in.cost.offset_bytes_per_output;
  for (std::size_t k : a.blocks.sets_of_table[t]) {
    const std::size_t b = a.blocks.block_of_set[k];
    const bool one_server = serving.single_server(k);
    int owner = shards[serving.sets[k].shards.front()].gpu;
    if (gather != nullptr) {
      if (one_server && draw.uniform) {
        gather->add(out.input_traffic.front(), owner,
                    draw.uniform_lookups_by_block[b] * in.cost.index_bytes_per_lookup + offsets);
        continue;
      }
      gather->flush(out.input_traffic.front());
      gather = nullptr;
    }
    for (int g = 0; g < n; ++g) {
      if (!one_server) owner = shards[serving.server(k, g)].gpu;
      if (owner == g) continue;
      const double bytes =
          draw.lookups(b, static_cast<std::size_t>(g), un) * in.cost.index_bytes_per_lookup +
          offsets;
      const auto grp = static_cast<std::size_t>(serving.group_of[static_cast<std::size_t>(g)]);
      // Levels are symmetric: the owner's row of the node table serves every g.
      out.input_traffic[grp].add(g, owner, levels.row_of(owner)[levels.node_of(g)], bytes);
      if (per_flow) out.input_pairs[grp].at(g, owner) += bytes;
    }
  }
}

// The lookups and distinct rows of the shards of table t.
void add_shard_work(const SimulationInputs& in, const PlanAnalysis& a, std::size_t t,
                    const TableIterationDraw& draw, std::span<const double> table_lookups_by_gpu,
                    std::vector<double>& served_table_lookups, ReplicaDistinctMemo& memo,
                    ShardDraw& sd) {
  const int n = in.cluster.num_gpus();
  const ServingMap& serving = a.serving;
  for (std::size_t k : a.blocks.sets_of_table[t]) {
    const ReplicaSet& set = serving.sets[k];
    const std::size_t b = a.blocks.block_of_set[k];
    if (set.shards.size() == 1) {
      const std::size_t s = set.shards.front();
      if (draw.uniform) {
        // Every GPU's lookups of the block, added one GPU at a time as the loop below does.
        sd.lookups[s] = repeated_sum(sd.lookups[s], draw.uniform_lookups_by_block[b],
                                     static_cast<std::uint64_t>(n));
      } else {
        for (int g = 0; g < n; ++g) sd.lookups[s] += draw.lookups_by_block_gpu[b * n + g];
      }
      sd.distinct[s] = draw.distinct_by_block[b];
      continue;
    }
    for (std::size_t s : set.shards) served_table_lookups[s] = 0;
    for (int g = 0; g < n; ++g) {
      const std::size_t s = serving.server(k, g);
      sd.lookups[s] += draw.lookups(b, static_cast<std::size_t>(g), static_cast<std::size_t>(n));
      served_table_lookups[s] += table_lookups_by_gpu[g];
    }
    // A replica serving only some GPUs touches the distinct rows of their lookups only.
    const AccessProfile& profile = in.trace.profile(t);
    for (std::size_t s : set.shards) {
      sd.distinct[s] = served_table_lookups[s] > 0
                           ? memo.distinct(profile, k, set, served_table_lookups[s])
                           : 0.0;
    }
  }
}

// Every table's draw: shard work and the input AlltoAll's traffic (pooled plans).
ShardDraw draw_tables(const SimulationInputs& in, const PlanAnalysis& a, const LevelTable& levels,
                      int iteration, ReplicaDistinctMemo& memo, IterationDraw& out) {
  const int n = in.cluster.num_gpus();
  ShardDraw sd;
  sd.lookups.assign(in.plan.shards.size(), 0.0);
  sd.distinct.assign(in.plan.shards.size(), 0.0);
  std::vector<double> table_lookups_by_gpu(n);
  std::vector<double> served_table_lookups(in.plan.shards.size());
  // One group and no pair matrices: single-server blocks gather by containers (issue 59).
  std::optional<UniformGather> uniform_gather;
  UniformGather* gather = nullptr;
  const bool one_group = std::all_of(a.serving.group_of.begin(), a.serving.group_of.end(),
                                     [](int grp) { return grp == 0; });
  if (out.inputs && out.input_traffic.size() == 1 && one_group &&
      !in.network().needs_pair_traffic()) {
    uniform_gather.emplace(in.cluster);
    if (uniform_gather->nested()) gather = &*uniform_gather;
  }
  for (std::size_t t = 0; t < a.blocks.of_table.size(); ++t) {
    const auto& blocks = a.blocks.of_table[t];
    if (blocks.empty()) continue;  // a table the plan does not place (validated elsewhere)
    // Expected mode: one value per block, not blocks x GPUs copies of it (issue 59).
    const TableIterationDraw draw =
        in.trace.compact_draw(t, iteration, n, in.workload.batch_per_gpu, blocks);
    if (draw.uniform) {
      double table_lookups = 0;  // one GPU's, summed over the blocks in their order
      for (double l : draw.uniform_lookups_by_block) table_lookups += l;
      std::fill(table_lookups_by_gpu.begin(), table_lookups_by_gpu.end(), table_lookups);
    } else {
      std::fill(table_lookups_by_gpu.begin(), table_lookups_by_gpu.end(), 0.0);
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        for (int g = 0; g < n; ++g) {
          table_lookups_by_gpu[g] += draw.lookups_by_block_gpu[b * n + g];
        }
      }
    }
    if (out.inputs) add_input_traffic(in, a, t, draw, levels, gather, out);
    add_shard_work(in, a, t, draw, table_lookups_by_gpu, served_table_lookups, memo, sd);
  }
  if (gather != nullptr) gather->flush(out.input_traffic.front());
  return sd;
}

// Shards in host memory (docs/model.md, "Memory tiers"): the kernels wait for their rows over
// the GPU's host link. The analysis's expected bytes scale with this draw's lookups of the shard.
void add_host_tier_times(const SimulationInputs& in, const PlanAnalysis& a, const ShardDraw& sd,
                         IterationDraw& out) {
  std::vector<double> scale(in.plan.shards.size(), 0.0);
  for (std::size_t s = 0; s < scale.size(); ++s) {
    const double expected = a.host_tier.shards[s].lookups;
    if (expected > 0) scale[s] = sd.lookups[s] / expected;
  }
  const std::vector<GpuHostLink> link = host_link_by_gpu(in.plan, a.host_tier, in.cluster, scale);
  for (std::size_t g = 0; g < link.size(); ++g) {
    out.lookup_fwd_s[g] += link[g].forward_s;
    out.update_bwd_s[g] += link[g].backward_s;
    out.host_link_bytes_by_gpu[g] = link[g].total_bytes();
  }
}

// All shards of a GPU run in one fused kernel (FBGEMM's table-batched embedding, Neo §5.1), so
// each GPU's works are costed together: one launch per GPU, not one per shard.
void kernel_times(const SimulationInputs& in, const PlanAnalysis& a, const ShardDraw& sd,
                  IterationDraw& out) {
  const int n = in.cluster.num_gpus();
  const bool training = in.workload.mode == Mode::training;
  const auto& shards = in.plan.shards;
  const GpuSpec& gpu = in.cluster.gpu();
  std::vector<std::vector<EmbeddingWork>> works_by_gpu(n);
  for (std::size_t s = 0; s < shards.size(); ++s) {
    const Shard& sh = shards[s];
    EmbeddingWork work;
    work.lookups = sd.lookups[s];
    work.distinct_rows = sd.distinct[s];
    work.pooled_outputs = a.served_gpus_by_shard[s] * in.workload.batch_per_gpu;
    work.cols = sh.cols.size();
    work.precision = in.model.table_precision;
    work.kernel = in.model.table_kernel;
    work.rows = static_cast<double>(sh.rows.size());
    works_by_gpu[sh.gpu].push_back(work);
    out.lookups_by_gpu[sh.gpu] += work.lookups;
  }
  for (int g = 0; g < n; ++g) {
    out.lookup_fwd_s[g] = embedding_forward_s(gpu, works_by_gpu[g], in.cost);
    if (training) {
      out.update_bwd_s[g] = embedding_backward_s(gpu, works_by_gpu[g], in.model.optimizer, in.cost);
    }
  }
  if (!a.host_tier.empty()) add_host_tier_times(in, a, sd, out);
}

// OPER one-sided plans: the all-in-one kernel with its gets, the update kernel with the
// received gradients, and the puts (issued as the backward collective).
void one_sided_times(const SimulationInputs& in, const OneSidedTraffic& traffic,
                     const OneSidedTransferTimes& times, IterationDraw& out) {
  const int n = in.cluster.num_gpus();
  const bool training = in.workload.mode == Mode::training;
  const OneSidedIteration it = one_sided_iteration(in, traffic, times);
  out.lookups_by_gpu = it.lookups_served;
  for (int g = 0; g < n; ++g) {
    out.lookup_fwd_s[g] = it.lookup_fwd_s[g];
    out.update_bwd_s[g] = training ? it.update_bwd_s[g] : 0.0;
  }
  out.puts_s = it.puts_s;
  out.puts_bytes = it.puts_bytes;
}

}  // namespace

double ReplicaDistinctMemo::distinct(const AccessProfile& profile, std::size_t set,
                                     const ReplicaSet& replicas, double lookups) {
  auto& known = by_set_[set];
  if (const auto it = known.find(lookups); it != known.end()) return it->second;
  const double d = profile.expected_distinct(replicas.rows, replicas.row_space, lookups);
  if (known.size() < kMaxPerSet) known.emplace(lookups, d);
  return d;
}

namespace {

// The draw before the GPUs' slowdowns: kernel times as the cost model gives them.
IterationDraw unslowed_draw(const SimulationInputs& in, const PlanAnalysis& a,
                            const LevelTable& levels, std::size_t groups, int iteration,
                            ReplicaDistinctMemo& memo) {
  const int n = in.cluster.num_gpus();
  const bool one_sided = in.plan.lookup_comm == LookupComm::one_sided;
  IterationDraw out;
  out.lookups_by_gpu.assign(n, 0.0);
  out.lookup_s_by_gpu.assign(n, 0.0);
  out.lookup_fwd_s.assign(n, 0.0);
  out.update_bwd_s.assign(n, 0.0);
  out.host_link_bytes_by_gpu.assign(n, 0.0);
  // One-sided plans send no indices: each GPU fetches the rows its own lookups need (OPER §5).
  out.inputs = in.options.input_alltoall != InputAlltoall::none && !one_sided;
  if (out.inputs) {
    out.input_traffic.assign(groups, LevelTraffic(in.cluster));
    if (in.network().needs_pair_traffic()) {
      out.input_pairs.assign(groups, ByteMatrix(n));
    }
  }
  if (one_sided) {
    // Expected mode: the analysis's expected traffic is this draw's (plan/one_sided_traffic.hpp).
    if (a.one_sided_expected && draws_are_expectations(in.trace)) {
      one_sided_times(in, *a.one_sided_expected, *a.one_sided_expected_times, out);
    } else {
      const IterationLookups lookups =
          drawn_lookups(a.serving, a.blocks, n, in.workload.batch_per_gpu, in.trace, iteration);
      const OneSidedTraffic traffic = one_sided_traffic(in.plan, a.serving, in.cluster, in.model,
                                                        in.workload, in.trace, lookups, in.cost);
      one_sided_times(in, traffic,
                      one_sided_transfer_times(in.cluster, traffic, in.workload.mode, in.cost),
                      out);
    }
    return out;
  }
  kernel_times(in, a, draw_tables(in, a, levels, iteration, memo, out), out);
  return out;
}

// Applies each GPU's slowdown to its kernel times.
IterationDraw slowed(IterationDraw d, std::span<const double> factor) {
  for (std::size_t g = 0; g < d.lookup_fwd_s.size(); ++g) {
    d.lookup_fwd_s[g] *= factor[g];
    d.update_bwd_s[g] *= factor[g];
    d.lookup_s_by_gpu[g] = d.lookup_fwd_s[g] + d.update_bwd_s[g];
  }
  return d;
}

}  // namespace

IterationDraw draw_iteration(const SimulationInputs& in, const PlanAnalysis& a,
                             const LevelTable& levels, std::size_t groups,
                             std::span<const double> factor, int iteration,
                             ReplicaDistinctMemo& memo, std::optional<IterationDraw>& repeated) {
  if (!in.trace.same_draw_every_iteration()) {
    return slowed(unslowed_draw(in, a, levels, groups, iteration, memo), factor);
  }
  if (!repeated) repeated = unslowed_draw(in, a, levels, groups, iteration, memo);
  return slowed(*repeated, factor);
}

}  // namespace shardsim
