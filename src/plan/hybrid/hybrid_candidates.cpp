#include "plan/hybrid/hybrid_candidates.hpp"

#include <algorithm>
#include <numeric>

#include "plan/peer_sync_pricing.hpp"
#include "plan/splits.hpp"
#include "shardsim/cost/collective_cost.hpp"

namespace shardsim::hybrid {

CandidateBuilder::CandidateBuilder(const PlanningContext& ctx, const MemoryBudget& budget,
                                   std::span<const ShardStorage> storage)
    : ctx_(ctx),
      budget_(budget),
      storage_(storage),
      n_(ctx.cluster.num_gpus()),
      peers_(all_gpu_peers(ctx.cluster)),
      table_row_wise_peers_(table_row_wise_peers(ctx.cluster)),
      clustered_(ctx.workload.trace.layout == HotRowLayout::clustered),
      gpu_rows_(expected_gpu_rows(ctx)) {}

Candidate CandidateBuilder::table_wise(std::size_t t) const {
  return make(Scheme::table_wise, t, whole_rows(t), {{0, dim(t)}}, ShardKind::table_wise);
}

Candidate CandidateBuilder::column_wise(std::size_t t, std::uint32_t blocks) const {
  return make(Scheme::column_wise, t, whole_rows(t), column_blocks(dim(t), blocks),
              ShardKind::column_wise);
}

Candidate CandidateBuilder::table_row_wise(std::size_t t) const {
  // Its partial sums are reduced inside the host, as the engine moves them (TorchRec's TWRW).
  return make(Scheme::table_row_wise, t,
              row_ranges(t, static_cast<std::uint64_t>(ctx_.cluster.gpus_per_node())),
              {{0, dim(t)}}, ShardKind::row_wise, &table_row_wise_peers_);
}

Candidate CandidateBuilder::row_wise(std::size_t t, bool keep_parts) const {
  Candidate c = make(Scheme::row_wise, t, row_ranges(t, static_cast<std::uint64_t>(n_)),
                     {{0, dim(t)}}, ShardKind::row_wise, nullptr, keep_parts);
  for (std::size_t i = 0; i < c.parts.size(); ++i) c.parts[i].shard.gpu = static_cast<int>(i);
  return c;
}

// Built on first use: the demands of an AllReduce over every GPU (two per cluster, not two per
// table: at 4096 GPUs each costs milliseconds).
const AllReduceTimes& CandidateBuilder::allreduce_over_all_gpus() const {
  if (!allreduce_all_) {
    allreduce_all_.emplace(ctx_.cluster, all_gpu_ids(n_), ctx_.cost_params());
  }
  return *allreduce_all_;
}

Candidate CandidateBuilder::data_parallel(std::size_t t) const {
  Candidate c;
  c.scheme = Scheme::data_parallel;
  Shard sh{t,          {0, rows(t)}, RowSpace::row_id, {0, dim(t)}, 0, 0, ShardKind::data_parallel,
           storage_[t]};
  // Each replica serves its own GPU's batch: no pooled-embedding traffic, but the whole
  // table's gradient is AllReduced over all GPUs in training (what the engine simulates).
  ShardCost one = estimate_shard_cost(ctx_, t, sh.rows, sh.row_space, sh.cols, 1, {}, gpu_rows_);
  add_host_tier_cost(ctx_, sh, 1, one);
  double sync_s = 0;
  if (ctx_.workload.mode == Mode::training && n_ > 1) {
    const double grad_bytes =
        static_cast<double>(rows(t)) * dim(t) * bytes_per_element(ctx_.model.comm_precision);
    sync_s = allreduce_over_all_gpus().at(grad_bytes);
  }
  const double bytes = budget_.shard_bytes(sh, 1);
  c.parts.push_back(Part{sh, one.total_s() + sync_s, 0, bytes, 1});
  c.every_gpu = n_;
  summarise(c);
  return c;
}

CandidateBuilder::Ranges CandidateBuilder::whole_rows(std::size_t t) const {
  return Ranges{{RowRange{0, rows(t)}}, RowSpace::row_id};
}

CandidateBuilder::Ranges CandidateBuilder::row_ranges(std::size_t t, std::uint64_t parts) const {
  if (clustered_) return {rank_balanced_ranges(ctx_.trace.profile(t), parts), RowSpace::rank};
  return {even_row_ranges(rows(t), parts), RowSpace::row_id};
}

Candidate CandidateBuilder::make(Scheme scheme, std::size_t t, const Ranges& ranges,
                                 const std::vector<ColRange>& cols, ShardKind kind,
                                 const ServedPeers* peers, bool keep_parts) const {
  Candidate c;
  c.scheme = scheme;
  c.summary_only = !keep_parts;
  const bool whole = ranges.rows.size() == 1 && cols.size() == 1;
  for (const RowRange& r : ranges.rows) {
    // One profile query per row range; its column blocks differ only in width.
    EmbeddingWork work = expected_work(ctx_, t, r, ranges.space, {0, dim(t)}, n_);
    for (const ColRange& col : cols) {
      Shard sh{t, r, ranges.space, col, -1, 0, whole ? ShardKind::table_wise : kind, storage_[t]};
      work.cols = col.size();
      ShardCost cost = cost_of_work(ctx_, work, peers != nullptr ? *peers : peers_, gpu_rows_);
      add_host_tier_cost(ctx_, sh, n_, cost);
      // Under two_d with `sync_aware`, the replica sync this shard adds to its GPU.
      const double sync_s = peer_sync_time_s(ctx_, t, r, ranges.space, col.size());
      const Part part{sh, cost.total_s() + sync_s, cost.input_comm_s, budget_.shard_bytes(sh, n_),
                      static_cast<double>(n_)};
      count(c, part);
      if (keep_parts) c.parts.push_back(part);
    }
  }
  return c;
}

void CandidateBuilder::count(Candidate& c, const Part& p) {
  // A replicated part counts once per GPU, added as often (the same sum as one part per GPU).
  const int copies = c.every_gpu > 0 ? c.every_gpu : 1;
  for (int k = 0; k < copies; ++k) c.total_s += p.cost_s;
  c.max_part_s = std::max(c.max_part_s, p.cost_s);
  c.max_part_bytes = std::max(c.max_part_bytes, p.bytes);
}

void CandidateBuilder::summarise(Candidate& c) {
  for (const Part& p : c.parts) count(c, p);
}

}  // namespace shardsim::hybrid
