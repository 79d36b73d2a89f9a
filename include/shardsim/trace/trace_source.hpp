#pragma once
// Where an iteration's lookups come from. The synthetic power-law source is the first one;
// trace files come later behind this same interface.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/trace/access_profile.hpp"

namespace shardsim {

// A block of rows of one table that one GPU serves (a shard), as the trace source sees it.
struct RowBlock {
  RowRange rows;
  RowSpace space = RowSpace::row_id;
};

// The lookups of one table in one iteration, as the iteration builder consumes them.
struct TableIterationDraw {
  // lookups_by_block_gpu[b * num_gpus + g]: lookups from GPU g's local batch landing in block b.
  std::vector<double> lookups_by_block_gpu;
  // distinct rows of block b touched by the whole global batch.
  std::vector<double> distinct_by_block;
};

class TraceSource {
 public:
  virtual ~TraceSource() = default;
  virtual std::size_t num_tables() const = 0;
  virtual const AccessProfile& profile(std::size_t table) const = 0;
  // The lookups of `table` in `iteration`, for `num_gpus` GPUs each with `samples_per_gpu`
  // samples, split over `blocks` (which must partition the table's rows). Deterministic in
  // (seed, table, iteration): independent of call order and thread.
  virtual TableIterationDraw draw(std::size_t table, int iteration, int num_gpus,
                                  std::uint32_t samples_per_gpu,
                                  std::span<const RowBlock> blocks) const = 0;
};

// Synthetic power-law traces (DESIGN.md §5), in the workload's mode (`expected`: analytic
// expectations plus multinomial sampling of per-block counts; `sampled`: draw every index).
std::unique_ptr<TraceSource> make_synthetic_trace_source(const DlrmModel& model,
                                                         const Workload& workload);

}  // namespace shardsim
