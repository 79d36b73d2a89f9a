#pragma once
// The synthetic power-law trace source (DESIGN.md §5) behind make_synthetic_trace_source.
//
// For a table and an iteration, the lookups of GPU g's local batch of B samples are split over
// the blocks:
//   expected mode: expectations, the same every iteration: L_g = B·E[pooling] lookups, shared
//                  among the blocks in proportion to their masses, and the distinct rows of a
//                  block are the profile's expected_distinct(block, Σ_g L_g);
//   sampled mode:  every bag is drawn (BagGenerator: per-sample pooling factors, ranks from the
//                  law, unique_in_bag, reuse, the layout's row ids) and each lookup counted in
//                  its block; distinct rows are counted exactly with a hash set of touched rows.
//                  Memory and time grow with the lookups: for small and medium runs and for
//                  checking the expected mode.
// With unique_in_bag, expected mode treats a bag of L distinct rows as nu(L) independent draws
// with the rows it holds kept once: row k is in the bag with probability 1 - (1 - p_k)^nu, nu
// solving Σ_k 1 - (1 - p_k)^nu = L (docs/traces.md §7). Temporal reuse leaves every single
// iteration's law unchanged, so expected mode is exact for it.
// Every random stream is stream_seed(workload.seed, {table, iteration, gpu, TraceStream}), so a
// draw never depends on call order or threads.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/trace/bag_generator.hpp"
#include "shardsim/trace/power_law_profile.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

class BlockIndex;

struct SyntheticTraceOptions {
  PowerLawOptions profile;
};

class SyntheticTraceSource final : public TraceSource {
 public:
  // Throws std::invalid_argument when a table fails check_table (the loader reports those as
  // InputErrors first).
  SyntheticTraceSource(const DlrmModel& model, const Workload& workload,
                       SyntheticTraceOptions options = {});
  ~SyntheticTraceSource() override;

  std::size_t num_tables() const override { return tables_.size(); }
  const AccessProfile& profile(std::size_t table) const override;
  TableIterationDraw draw(std::size_t table, int iteration, int num_gpus,
                          std::uint32_t samples_per_gpu,
                          std::span<const RowBlock> blocks) const override;
  std::vector<double> uniform_lookups_by_block(std::size_t table, int iteration, int num_gpus,
                                               std::uint32_t samples_per_gpu,
                                               std::span<const RowBlock> blocks) const override;
  // Expected mode: the uniform form (one value per block); sampled mode: draw().
  TableIterationDraw compact_draw(std::size_t table, int iteration, int num_gpus,
                                  std::uint32_t samples_per_gpu,
                                  std::span<const RowBlock> blocks) const override;
  // Expected mode's draws are expectations: the same every iteration, and for every GPU.
  bool same_draw_every_iteration() const override {
    return workload_.trace.mode == TraceMode::expected;
  }
  bool same_draw_for_every_gpu() const override {
    return workload_.trace.mode == TraceMode::expected;
  }

  TraceMode mode() const { return workload_.trace.mode; }
  const BagGenerator& bags(std::size_t table) const;
  // nu of a mean bag under unique_in_bag (the mean pooling factor when not unique).
  double draws_per_bag(std::size_t table) const;

 private:
  struct Table;
  const Table& table_at(std::size_t table) const;
  // Expected mode: one GPU's lookups of each block (B·E[pooling] split by the blocks' shares).
  std::vector<double> expected_block_lookups(const Table& t, std::uint32_t samples_per_gpu,
                                             std::span<const RowBlock> blocks,
                                             const BlockIndex& index) const;
  // Fills out.distinct_by_block and either form of the lookups (`uniform`: one per block).
  void split_expected(const Table& t, int num_gpus, std::uint32_t samples_per_gpu,
                      std::span<const RowBlock> blocks, bool uniform,
                      TableIterationDraw& out) const;
  void split_sampled(const Table& t, int iteration, int num_gpus, std::uint32_t samples_per_gpu,
                     std::span<const RowBlock> blocks, TableIterationDraw& out) const;

  std::vector<std::unique_ptr<Table>> tables_;
  Workload workload_;
  SyntheticTraceOptions options_;
};

// make_synthetic_trace_source with explicit options.
std::unique_ptr<TraceSource> make_synthetic_trace_source(const DlrmModel& model,
                                                         const Workload& workload,
                                                         SyntheticTraceOptions options);

}  // namespace shardsim
