#include "plan/neuroshard/sub_tables.hpp"

#include "plan/neuroshard/cost_model.hpp"

namespace shardsim::neuroshard {

namespace {

double sub_table_bytes(const PlanningContext& ctx, const MemoryBudget& budget, const SubTable& s) {
  Shard sh = whole_table_shard(s.table, ctx.model.tables[s.table].rows, 0);
  sh.cols = s.cols;
  return budget.shard_bytes(sh, ctx.cluster.num_gpus());
}

}  // namespace

bool can_halve(const SubTable& s) {
  const std::uint32_t half = s.dim() / 2;
  return s.dim() % 2 == 0 && half > 0 && half % 4 == 0;
}

SubTableSet initial_sub_tables(const PlanningContext& ctx, const MemoryBudget& budget,
                               ComputeCost& compute) {
  SubTableSet set;
  for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
    const SubTable s{t, ColRange{0, ctx.model.tables[t].dim}};
    set.subs.push_back(s);
    set.bytes.push_back(sub_table_bytes(ctx, budget, s));
    set.single_compute_s.push_back(compute.single_s(s));
    set.total_dim += s.dim();
  }
  return set;
}

SubTableSet halved(const SubTableSet& set, std::size_t i, const MemoryBudget& budget,
                   ComputeCost& compute) {
  SubTableSet out = set;
  const SubTable whole = set.subs[i];
  const std::uint32_t mid = whole.cols.begin + whole.dim() / 2;
  const SubTable first{whole.table, ColRange{whole.cols.begin, mid}};
  const SubTable second{whole.table, ColRange{mid, whole.cols.end}};
  // Both halves have the same bytes and cost (only their width matters).
  const double bytes = sub_table_bytes(compute.context(), budget, first);
  const double cost_s = compute.single_s(first);
  out.subs[i] = first;
  out.bytes[i] = bytes;
  out.single_compute_s[i] = cost_s;
  out.subs.push_back(second);
  out.bytes.push_back(bytes);
  out.single_compute_s.push_back(cost_s);
  return out;
}

}  // namespace shardsim::neuroshard
