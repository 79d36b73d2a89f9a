#pragma once
// Where an iteration's lookups come from: the synthetic power-law source
// (synthetic_trace_source.hpp) or a recorded trace replayed from a file
// (recorded_trace_source.hpp), behind one interface.
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
  // Empty when `uniform`.
  std::vector<double> lookups_by_block_gpu;
  // distinct rows of block b touched by the whole global batch.
  std::vector<double> distinct_by_block;
  // Every GPU's batch sends the same lookups to each block (TraceSource::compact_draw):
  // uniform_lookups_by_block[b] for every GPU, the GPU dimension implicit (issue 59).
  bool uniform = false;
  std::vector<double> uniform_lookups_by_block;

  // The lookups from GPU g's batch landing in block b, in either form.
  double lookups(std::size_t block, std::size_t gpu, std::size_t num_gpus) const {
    return uniform ? uniform_lookups_by_block[block] : lookups_by_block_gpu[block * num_gpus + gpu];
  }
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
  // When same_draw_for_every_gpu(): the lookups one GPU's batch sends to each block in
  // `iteration` (what draw() gives every GPU: lookups_by_block_gpu[b * num_gpus + g] for any g),
  // without draw()'s blocks x GPUs copies and distinct rows. The default takes draw()'s.
  virtual std::vector<double> uniform_lookups_by_block(std::size_t table, int iteration,
                                                       int num_gpus, std::uint32_t samples_per_gpu,
                                                       std::span<const RowBlock> blocks) const;
  // draw()'s lookups and distinct rows; when same_draw_for_every_gpu() may come in the uniform
  // form (one value per block, TableIterationDraw::uniform) instead of blocks x GPUs copies. The
  // default is draw().
  virtual TableIterationDraw compact_draw(std::size_t table, int iteration, int num_gpus,
                                          std::uint32_t samples_per_gpu,
                                          std::span<const RowBlock> blocks) const {
    return draw(table, iteration, num_gpus, samples_per_gpu, blocks);
  }
  // Whether draw() returns the same for every iteration (then a simulation draws once per plan).
  virtual bool same_draw_every_iteration() const { return false; }
  // Whether draw() gives every GPU the same lookups of each block (then one-sided plans keep one
  // value per block instead of one per block and GPU).
  virtual bool same_draw_for_every_gpu() const { return false; }
};

// Synthetic power-law traces (DESIGN.md §5), in the workload's mode (`expected`: analytic
// expectations of every per-block count, the same each iteration; `sampled`: draw every index).
std::unique_ptr<TraceSource> make_synthetic_trace_source(const DlrmModel& model,
                                                         const Workload& workload);

// The workload's trace: the recorded trace at workload.trace.file when one is set (an
// InputError when it is unreadable, corrupt or does not match the model), else the synthetic one.
std::unique_ptr<TraceSource> make_trace_source(const DlrmModel& model, const Workload& workload);

}  // namespace shardsim
