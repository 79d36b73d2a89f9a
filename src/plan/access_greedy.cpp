// Access-greedy placement, OPER §6.4's AG baseline: "starts from the embedding with the highest
// access frequency and assigns embeddings one by one to the GPUs for model parallelism to
// balance the embedding access on GPUs".
//
// Rows one by one would mean billions of steps, so rows are taken in chunks of consecutive
// popularity ranks (RowSpace::rank), cut from each table's hottest rank on: a chunk ends when it
// carries 1/(chunks_per_gpu · N) of all the lookups of an iteration, or holds 1/chunks_per_gpu
// of a GPU's free memory, whichever comes first (a single row hotter than that is a chunk of its
// own). Chunks are then taken hottest first (expected lookups per iteration), each to the GPU
// with the fewest lookups so far that has room. Chunks of one table that end up next to each
// other on one GPU are merged. A larger chunks_per_gpu is closer to the paper's row-by-row
// greedy, and slower.
#include <fmt/format.h>

#include <algorithm>

#include "plan/packing.hpp"
#include "plan/planners.hpp"
#include "shardsim/plan/memory.hpp"

namespace shardsim {

namespace {

class AccessGreedyPlanner final : public Planner {
 public:
  AccessGreedyPlanner(std::uint64_t chunks_per_gpu, double headroom)
      : chunks_per_gpu_(static_cast<double>(chunks_per_gpu)), headroom_(headroom) {}
  std::string name() const override { return "access_greedy"; }

  Plan plan(const PlanningContext& ctx) const override {
    const auto& tables = ctx.model.tables;
    const int n = ctx.cluster.num_gpus();
    const double global_batch = static_cast<double>(n) * ctx.workload.batch_per_gpu;
    MemoryBudget budget(ctx, headroom_);
    double total_lookups = 0;
    for (const auto& t : tables) total_lookups += global_batch * t.pooling.expected();
    const double chunk_lookups = total_lookups / (chunks_per_gpu_ * n);
    const double chunk_bytes =
        std::max(0.0, budget.capacity_bytes() - budget.base_bytes()) / chunks_per_gpu_;

    std::vector<PackItem> items;
    for (std::size_t t = 0; t < tables.size(); ++t) {
      const auto& table = tables[t];
      const AccessProfile& profile = ctx.trace.profile(t);
      const double lookups = global_batch * table.pooling.expected();
      Shard one_row{t, {0, 1}, RowSpace::rank, {0, table.dim}, 0, 0, ShardKind::fine_grained, {}};
      const double row_bytes = shard_weight_bytes(one_row, ctx.model) +
                               shard_optimizer_bytes(one_row, ctx.model, ctx.workload.mode);
      const auto max_rows =
          static_cast<std::uint64_t>(std::max(1.0, std::floor(chunk_bytes / row_bytes)));
      const double mass_step = lookups > 0 ? chunk_lookups / lookups : 2.0;
      std::uint64_t begin = 0;
      double mass_before = 0;
      while (begin < table.rows) {
        const std::uint64_t by_access = profile.ranks_covering(mass_before + mass_step);
        std::uint64_t end = std::min({by_access, begin + max_rows, table.rows});
        end = std::max(end, begin + 1);
        const double mass = profile.mass({begin, end}, RowSpace::rank);
        Shard sh = one_row;
        sh.rows = {begin, end};
        items.push_back(PackItem{
            sh, lookups * mass, static_cast<double>(n),
            fmt::format("access_greedy: table '{}' ranks [{}, {})", table.name, begin, end)});
        mass_before += mass;
        begin = end;
      }
    }
    sort_largest_first(items, budget);
    LoadTracker loads(n);
    Plan packed;
    pack_least_loaded(items, budget, loads, packed);

    // Merge neighbouring chunks of a table on the same GPU; a table in one chunk is table-wise.
    std::sort(packed.shards.begin(), packed.shards.end(), [](const Shard& a, const Shard& b) {
      return a.table != b.table ? a.table < b.table : a.rows.begin < b.rows.begin;
    });
    Plan plan;
    plan.planner = name();
    for (const Shard& s : packed.shards) {
      if (!plan.shards.empty()) {
        Shard& last = plan.shards.back();
        if (last.table == s.table && last.gpu == s.gpu && last.rows.end == s.rows.begin) {
          last.rows.end = s.rows.end;
          continue;
        }
      }
      plan.shards.push_back(s);
    }
    for (Shard& s : plan.shards) {
      if (s.rows.begin == 0 && s.rows.end == tables[s.table].rows) s.kind = ShardKind::table_wise;
    }
    return plan;
  }

 private:
  double chunks_per_gpu_;
  double headroom_;
};

}  // namespace

OptionSchema access_greedy_planner_options() {
  return planner_schema({OptionSpec::integer("chunks_per_gpu", OptionKind::positive_int, 16,
                                             "chunks per GPU, at most 4096: the granularity")},
                        0.0);
}

std::unique_ptr<Planner> make_access_greedy_planner(const PlannerOptions& options) {
  const std::uint64_t chunks = options.integer("chunks_per_gpu");
  if (chunks > 4096) {
    throw options.error("chunks_per_gpu",
                        fmt::format("chunks_per_gpu must be at most 4096 (found {})", chunks),
                        "16 to 64 is usually fine-grained enough");
  }
  return std::make_unique<AccessGreedyPlanner>(chunks, options.number("headroom"));
}

}  // namespace shardsim
