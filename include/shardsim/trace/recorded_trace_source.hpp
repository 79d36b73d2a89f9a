#pragma once
// Replays a recorded trace (workload.trace.file; docs/traces.md §10) as a TraceSource.
//
// The trace is a stream of samples per table; iteration i of a run with G GPUs of B samples
// takes samples [i·G·B, (i + 1)·G·B) modulo the trace's S samples, GPU g the g-th B of them
// (wrapping around, with a warning, when the run needs more samples than the trace has). Every
// lookup is counted in its block, and the distinct rows of each block over the global batch
// exactly; rank-space blocks place a row by the table's empirical profile (rank_of_row).
// Opening reads every table once (twice for tables with more than exact_rows distinct rows) to
// check it and to build its EmpiricalProfile; a draw reads only its samples.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "shardsim/trace/empirical_profile.hpp"
#include "shardsim/trace/trace_file.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

class RecordedTraceSource final : public TraceSource {
 public:
  // The trace must have the model's tables, in order, with the same rows; otherwise an
  // InputError naming `path` (the trace, for messages) and `key`. Errors in the trace's data are
  // InputErrors too.
  RecordedTraceSource(std::unique_ptr<RecordedTrace> trace, const DlrmModel& model,
                      const std::string& path, const std::string& key = "workload.trace.file",
                      EmpiricalProfileOptions options = {});
  ~RecordedTraceSource() override;

  std::size_t num_tables() const override { return profiles_.size(); }
  const AccessProfile& profile(std::size_t table) const override;
  TableIterationDraw draw(std::size_t table, int iteration, int num_gpus,
                          std::uint32_t samples_per_gpu,
                          std::span<const RowBlock> blocks) const override;

  const EmpiricalProfile& empirical_profile(std::size_t table) const;
  std::uint64_t num_samples() const { return trace_->num_samples(); }

 private:
  // Row ids of the bags of samples [first, first + count) of `table` (first + count <= S).
  void read_samples(std::size_t table, std::uint64_t first, std::uint64_t count,
                    std::vector<std::uint32_t>& lengths, std::vector<std::uint64_t>& rows) const;

  std::unique_ptr<RecordedTrace> trace_;
  std::string key_;
  std::vector<std::unique_ptr<EmpiricalProfile>> profiles_;
  // checkpoints_[t][k]: lookups of table t in samples [0, k·kCheckpointSamples).
  std::vector<std::vector<std::uint64_t>> checkpoints_;
  mutable std::atomic<bool> warned_wrap_{false};
};

}  // namespace shardsim
