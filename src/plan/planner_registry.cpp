#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "shardsim/plan/planner.hpp"

#include "plan/planners.hpp"
#include "shardsim/core/named_registry.hpp"
#include "shardsim/plan/planner_options.hpp"

namespace shardsim {

namespace {

// Applies the options every planner accepts that only label the plan (`communication`,
// `replica_sync`: how the simulator communicates for it) to whatever the planner returns.
class CommonOptions final : public Planner {
 public:
  CommonOptions(std::unique_ptr<Planner> inner, std::optional<LookupComm> comm,
                std::optional<ReplicaSync> sync)
      : inner_(std::move(inner)), comm_(comm), sync_(sync) {}
  std::string name() const override { return inner_->name(); }
  Plan plan(const PlanningContext& ctx) const override {
    Plan p = inner_->plan(ctx);
    if (comm_) p.lookup_comm = *comm_;
    if (sync_) p.replica_sync = *sync_;
    return p;
  }

 private:
  std::unique_ptr<Planner> inner_;
  std::optional<LookupComm> comm_;
  std::optional<ReplicaSync> sync_;
};

using Factory = std::unique_ptr<Planner> (*)(const PlannerOptions&);

std::function<std::unique_ptr<Planner>(const PlannerOptions&)> with_common(Factory make) {
  return [make](const PlannerOptions& options) -> std::unique_ptr<Planner> {
    std::unique_ptr<Planner> inner = make(options);
    const std::optional<LookupComm> comm = options.lookup_comm();
    const std::optional<ReplicaSync> sync = options.replica_sync();
    if (!comm && !sync) return inner;
    return std::make_unique<CommonOptions>(std::move(inner), comm, sync);
  };
}

// Shape bounds (plan/plan_shape_bound.hpp) shared by several planners.
namespace shape {
PlanShapeBound whole_tables(const PlanShapeInput& in) {
  return {in.tables, 1, false};
}
PlanShapeBound rows_across_all_gpus(const PlanShapeInput& in) {
  return {in.tables * in.gpus, in.gpus, false};
}
PlanShapeBound column_blocks(const PlanShapeInput& in) {
  return {in.column_blocks, 1, false};
}
PlanShapeBound replicated_tables(const PlanShapeInput& in) {
  return {in.tables * in.gpus, 1, true};
}
PlanShapeBound rows_in_a_node(const PlanShapeInput& in) {
  return {in.tables * in.gpus_per_node, in.gpus_per_node, false};
}
PlanShapeBound columns_in_a_node(const PlanShapeInput& in) {
  return {std::min(in.tables * in.gpus_per_node, in.column_blocks), 1, false};
}
PlanShapeBound cuts_where_a_gpu_is_full(const PlanShapeInput& in) {
  return {in.tables + in.gpus, in.gpus, false};
}
// Whole tables, or with `split_oversized` the tables above a GPU's share cut into at most
// (bytes / share) + 1 ranges each: T + N shards, N ranges a table.
// With `row_wise_above_bytes: B`, at most min(T, table_bytes / B) tables (all T when the bytes
// are unknown) are cut into one range on each of the N GPUs.
PlanShapeBound whole_or_oversized_split(const PlanShapeInput& in) {
  PlanShapeBound b =
      in.options.boolean("split_oversized") ? cuts_where_a_gpu_is_full(in) : whole_tables(in);
  const double above_bytes = in.options.number("row_wise_above_bytes");
  if (above_bytes > 0) {
    const double row_wise_tables =
        in.table_bytes > 0 ? std::min(in.tables, std::floor(in.table_bytes / above_bytes))
                           : in.tables;
    b.max_shards += row_wise_tables * in.gpus;
    b.max_blocks_per_table = in.gpus;
  }
  return b;
}
// A chunk ends by access carrying at least 1/(chunks_per_gpu N) of the lookups, or by memory
// holding max_rows rows, at least half of its 1/chunks_per_gpu of a GPU's free bytes; plus each
// table's last chunk: T + c N + 2 c table_bytes / free per GPU chunks (merged neighbours only
// lower it). One table may be cut into all of them. Without the memory figures (or with no free
// memory, where a chunk is a row), the bound of chunks_per_gpu 4096 with access cuts alone.
PlanShapeBound rank_chunks(const PlanShapeInput& in) {
  const auto per_gpu = static_cast<double>(in.options.integer("chunks_per_gpu"));
  const double headroom = in.options.number("headroom");
  const double free_bytes = in.hbm_bytes_per_gpu * (1 - headroom) - in.base_bytes_per_gpu;
  if (!(per_gpu <= 4096) || !(free_bytes > 0)) {  // above 4096: the planner refuses it
    const double chunks = in.tables + 4096 * in.gpus;
    return {chunks, chunks, false};
  }
  const double chunks =
      2 * in.tables + per_gpu * in.gpus + 2 * per_gpu * in.table_bytes / free_bytes;
  return {chunks, chunks, false};
}
// One option a table: at most one shard on every GPU (row-wise, data-parallel), or the column
// blocks of a table. Far above most plans (its options are kept as runs while it plans,
// plan/torchrec/shard_list.hpp), so the rest is checked with the plan.
PlanShapeBound torchrec_shards(const PlanShapeInput& in) {
  PlanShapeBound b{std::max(in.tables * in.gpus, in.column_blocks), in.gpus, true};
  b.checked_after_planning = true;
  return b;
}
// Any table may end up row-wise over all GPUs (hybrid's fallback; a cheapest part on a large
// cluster) or in data-parallel replicas, and two_d's inner planner may do so in each group: the
// worst case, which most models' plans are far below (hybrid-65536: 67,535 shards of 131 M), so
// the guard checks the rest of the plan's memory with the plan itself.
PlanShapeBound any_table_anywhere(const PlanShapeInput& in) {
  PlanShapeBound b = worst_case_shape(in);
  b.checked_after_planning = true;
  return b;
}
// One shard a table, plus one a halving (at most `steps` <= 1000 of them).
PlanShapeBound tables_and_halvings(const PlanShapeInput& in) {
  return {std::min(in.column_blocks, in.tables + 1000), 1, false};
}
}  // namespace shape

}  // namespace

PlanShapeBound worst_case_shape(const PlanShapeInput& in) {
  return {in.tables * in.gpus, in.gpus, true};
}

const std::vector<PlannerInfo>& planner_registry() {
  static const std::vector<PlannerInfo> registry = {
      {"random", "whole tables to random GPUs with room (NeuroShard App. E baseline)",
       random_planner_options(), with_common(make_random_planner), shape::whole_tables},
      {"round_robin", "whole tables to GPUs in turn (OPER §6.4's table-wise baseline)",
       round_robin_planner_options(), with_common(make_round_robin_planner), shape::whole_tables},
      {"table_wise",
       "whole tables, largest cost first, to the least-loaded GPU with room (Neo §4.1; "
       "NeuroShard App. E costs)",
       table_wise_planner_options(), with_common(make_table_wise_planner),
       shape::whole_or_oversized_split, true},
      {"row_wise", "every table split into contiguous row ranges across all GPUs (Neo §4.1)",
       row_wise_planner_options(), with_common(make_row_wise_planner), shape::rows_across_all_gpus},
      {"column_wise", "every table split into column blocks placed greedily (Neo §4.1)",
       column_wise_planner_options(), with_common(make_column_wise_planner), shape::column_blocks,
       true},
      {"data_parallel", "every table replicated on every GPU (Neo §4.1)",
       data_parallel_planner_options(), with_common(make_data_parallel_planner),
       shape::replicated_tables},
      {"table_row_wise", "tables to nodes, rows across the node's GPUs (Neo §4.1 hierarchical)",
       table_row_wise_planner_options(), with_common(make_table_row_wise_planner),
       shape::rows_in_a_node, true},
      {"table_column_wise", "tables to nodes, columns across the node's GPUs (TorchRec TWCW)",
       table_column_wise_planner_options(), with_common(make_table_column_wise_planner),
       shape::columns_in_a_node, true},
      {"karmarkar_karp", "whole tables by multi-way largest differencing (Neo §4.1)",
       karmarkar_karp_planner_options(), with_common(make_karmarkar_karp_planner),
       shape::whole_tables},
      {"memory_greedy", "equal bytes of embedding rows on every GPU (OPER §6.4 MG)",
       memory_greedy_planner_options(), with_common(make_memory_greedy_planner),
       shape::cuts_where_a_gpu_is_full},
      {"access_greedy",
       "hottest rank chunks first to the GPU with the fewest lookups (OPER §6.4 AG)",
       access_greedy_planner_options(), with_common(make_access_greedy_planner),
       shape::rank_chunks},
      {"hybrid",
       "per table TW / CW / TWRW / RW / DP by the cost model, packed greedily (TorchRec-like)",
       hybrid_planner_options(), with_common(make_hybrid_planner), shape::any_table_anywhere, true},
      {"oper",
       "fine-grained partitions by access and footprint, balanced, hot ones duplicated (OPER "
       "§4)",
       oper_planner_options(), with_common(make_oper_planner), oper_shape_bound},
      {"torchrec",
       "TorchRec's planner: its options per table, estimates (bytes / its default bandwidths, "
       "no skew), greedy proposers and partitioner",
       torchrec_planner_options(), with_common(make_torchrec_planner), shape::torchrec_shards,
       true},
      {"neuroshard",
       "NeuroShard's search: beam search over column halvings around a greedy grid search "
       "of table placement, by the cost model or a simulation (NeuroShard §3.3)",
       neuroshard_planner_options(), with_common(make_neuroshard_planner),
       shape::tables_and_halvings},
      {"nvidia_dlrm",
       "NVIDIA's PyTorch DLRM: the bottom MLP on GPU 0 for the global batch, whole tables by "
       "size into buckets of at most ceil(tables / GPUs), GPU 0 free of tables above 4 GPUs",
       nvidia_dlrm_planner_options(), with_common(make_nvidia_dlrm_planner), shape::whole_tables},
      {"two_d",
       "2D sparse parallelism: M groups of T/M GPUs, each a replica sharded by an inner planner, "
       "synchronised across groups (2D paper §3)",
       two_d_planner_options(), with_common(make_two_d_planner), shape::any_table_anywhere},
  };
  return registry;
}

std::vector<std::string> planner_names() {
  return registry_names(std::span<const PlannerInfo>(planner_registry()));
}

const PlannerInfo& find_planner(const std::string& name, const SourceLocation& where,
                                const std::string& key) {
  return find_in_registry(std::span<const PlannerInfo>(planner_registry()), name, "planner", where,
                          key);
}

PlannerOptions planner_options_of(const std::string& name, OptionValues values) {
  return PlannerOptions(find_planner(name, {}, "planner").options, std::move(values));
}

std::unique_ptr<Planner> make_planner(const std::string& name, OptionValues values) {
  return find_planner(name, {}, "planner").make(planner_options_of(name, std::move(values)));
}

}  // namespace shardsim
