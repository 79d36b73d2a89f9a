// OPER §4.1: access- and memory-aware adaptive partitioning over rank ranges.
#include "plan/oper/partitioning.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "shardsim/plan/memory.hpp"

namespace shardsim::oper {

double row_footprint_bytes(const PlanningContext& ctx, std::size_t table) {
  const Shard one_row{table, {0, 1}, RowSpace::rank,          {0, ctx.model.tables[table].dim},
                      0,     0,      ShardKind::fine_grained, {}};
  return shard_weight_bytes(one_row, ctx.model) +
         shard_optimizer_bytes(one_row, ctx.model, ctx.workload.mode);
}

double row_fetch_bytes(const PlanningContext& ctx, std::size_t table) {
  return ctx.model.tables[table].dim * bytes_per_element(ctx.model.table_precision);
}

PartitionTotals partition_totals(const PlanningContext& ctx) {
  PartitionTotals t;
  for (std::size_t k = 0; k < ctx.model.tables.size(); ++k) {
    const EmbeddingTable& table = ctx.model.tables[k];
    t.access += ctx.workload.batch_per_gpu * table.pooling.expected();
    t.bytes += static_cast<double>(table.rows) * row_footprint_bytes(ctx, k);
  }
  return t;
}

std::vector<Partition> partition_tables(const PlanningContext& ctx, double threshold) {
  if (!(threshold > 0) || threshold > 1) {
    throw std::invalid_argument("OPER partitioning threshold must be in (0, 1]");
  }
  const PartitionTotals totals = partition_totals(ctx);
  const double max_access = threshold * totals.access;
  const double max_bytes = threshold * totals.bytes;
  std::vector<Partition> out;
  for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
    const EmbeddingTable& table = ctx.model.tables[t];
    const AccessProfile& profile = ctx.trace.profile(t);
    const double table_access = ctx.workload.batch_per_gpu * table.pooling.expected();
    const double row_bytes = row_footprint_bytes(ctx, t);
    const double fetch_bytes = row_fetch_bytes(ctx, t);
    // Rows per partition allowed by the memory threshold (at least one).
    const auto max_rows =
        static_cast<std::uint64_t>(std::max(1.0, std::floor(max_bytes / row_bytes)));
    // The partition's share of the table's access allowed by the access threshold.
    const double mass_step = table_access > 0 ? max_access / table_access : 2.0;
    std::uint64_t begin = 0;
    double mass_before = 0;  // mass of ranks [0, begin), queried directly (no drift)
    while (begin < table.rows) {
      // The largest end whose access stays within the threshold, and at most max_rows rows: the
      // crossing of the target mass gives the smallest prefix reaching it; one rank less stays
      // below it. The memory cap brackets the crossing: a cap below the target ends the
      // partition there with one query (most of a table's cold tail).
      const double target = mass_before + mass_step;
      const std::uint64_t cap = begin + std::min(max_rows, table.rows - begin);
      std::uint64_t end = cap;
      double prefix = 1.0;  // mass of ranks [0, end)
      if (target < 1) {
        const double mass_at_cap = profile.mass({0, cap}, RowSpace::rank);
        prefix = mass_at_cap;
        if (mass_at_cap >= target) {
          const AccessProfile::Crossing c =
              profile.crossing_within(target, begin + 1, mass_before, cap, mass_at_cap);
          end = c.rank;
          prefix = c.mass_at;
          if (end > begin + 1 && c.mass_at > target * (1 + 1e-12)) {
            --end;
            prefix = c.mass_below;
          }
        }
      } else if (end < table.rows) {
        prefix = profile.mass({0, end}, RowSpace::rank);
      }
      if (end == table.rows) prefix = 1.0;
      Partition p;
      p.table = t;
      p.ranks = {begin, end};
      p.access = table_access * std::max(0.0, prefix - mass_before);
      p.bytes = static_cast<double>(end - begin) * row_bytes;
      p.row_bytes = fetch_bytes;
      p.access_bound = p.access / max_access >= p.bytes / max_bytes;
      out.push_back(p);
      mass_before = prefix;
      begin = end;
    }
  }
  return out;
}

}  // namespace shardsim::oper
