// The hybrid planner's sharding candidates (steps 1-2 of hybrid_planner.cpp): for one table, one
// candidate per allowed scheme, each split into parts costed with estimate_shard_cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "plan/packing.hpp"
#include "plan/shard_estimate.hpp"
#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::hybrid {

enum class Scheme { table_wise, column_wise, table_row_wise, row_wise, data_parallel };
inline constexpr const char* kSchemeNames[] = {"table_wise", "column_wise", "table_row_wise",
                                               "row_wise", "data_parallel"};
inline constexpr int kNumSchemes = 5;

struct Part {
  Shard shard;         // gpu set for fixed candidates (row_wise, data_parallel)
  double cost_s = 0;   // estimated time (estimate_shard_cost's total, sync included)
  double input_s = 0;  // its input AlltoAll share, balanced beside cost_s (LoadTracker)
  double bytes = 0;
  double served_gpus = 1;
};

struct Candidate {
  Scheme scheme = Scheme::table_wise;
  // Data-parallel: one part, replicated on each of `every_gpu` GPUs (its shard's gpu and replica
  // are the GPU's id), so a candidate per table is not one part per GPU; 0 otherwise.
  std::vector<Part> parts;
  int every_gpu = 0;
  // A row_wise candidate built as its summary alone (row_wise(t, false)): its parts, one per GPU,
  // are built again when it is placed (CandidateBuilder::row_wise(t)), so the candidates of
  // 2000 tables on 65,536 GPUs are not 131 M parts in memory.
  bool summary_only = false;
  double total_s = 0;
  double max_part_s = 0;
  double max_part_bytes = 0;
  bool fixed() const { return scheme == Scheme::row_wise || scheme == Scheme::data_parallel; }
};

// Builds one table's candidate of each scheme; memory from `budget`, costs from the context.
class CandidateBuilder {
  struct Ranges {
    std::vector<RowRange> rows;
    RowSpace space = RowSpace::row_id;
  };

 public:
  // `storage`: each table's (plan/storage_tiers.hpp), given to every shard of its candidates.
  CandidateBuilder(const PlanningContext& ctx, const MemoryBudget& budget,
                   std::span<const ShardStorage> storage);

  Candidate table_wise(std::size_t t) const;
  Candidate column_wise(std::size_t t, std::uint32_t blocks) const;
  Candidate table_row_wise(std::size_t t) const;
  // With `keep_parts` false, the summary only (Candidate::summary_only): the same total_s,
  // max_part_s and max_part_bytes, bit for bit.
  Candidate row_wise(std::size_t t, bool keep_parts = true) const;
  Candidate data_parallel(std::size_t t) const;

 private:
  std::uint64_t rows(std::size_t t) const { return ctx_.model.tables[t].rows; }
  std::uint32_t dim(std::size_t t) const { return ctx_.model.tables[t].dim; }
  Ranges whole_rows(std::size_t t) const;
  Ranges row_ranges(std::size_t t, std::uint64_t parts) const;
  // `peers`: whom each part sends its pooled vectors (or partial sums) to; every GPU unless
  // given (table_row_wise: reduced inside the host first).
  Candidate make(Scheme scheme, std::size_t t, const Ranges& ranges,
                 const std::vector<ColRange>& cols, ShardKind kind,
                 const ServedPeers* peers = nullptr, bool keep_parts = true) const;
  // Adds one part to c's total_s, max_part_s and max_part_bytes; summarise, every part in order.
  static void count(Candidate& c, const Part& p);
  static void summarise(Candidate& c);
  const AllReduceTimes& allreduce_over_all_gpus() const;

  const PlanningContext& ctx_;
  const MemoryBudget& budget_;
  std::span<const ShardStorage> storage_;
  int n_;
  ServedPeers peers_;
  ServedPeers table_row_wise_peers_;
  bool clustered_;
  double gpu_rows_;  // expected_gpu_rows: the backward sort's key rows of any candidate's GPU
  mutable std::optional<AllReduceTimes> allreduce_all_;
};

}  // namespace shardsim::hybrid
