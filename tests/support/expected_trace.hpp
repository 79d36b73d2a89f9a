#pragma once
// A trace source over given access profiles and fixed pooling whose draws are the expectations
// (no sampling): every GPU's batch has samples x pooling lookups of each table, split over the
// blocks by their mass, and the blocks' distinct rows are the profile's expectation for every
// GPU's lookups together. Base of the hand-computable test traces (uniform_trace.hpp,
// explicit_trace.hpp).
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "shardsim/trace/trace_source.hpp"

namespace shardsim::testing {

class ExpectedTrace : public TraceSource {
 public:
  // pooling[t]: lookups per sample of table t.
  ExpectedTrace(std::vector<std::unique_ptr<AccessProfile>> profiles, std::vector<double> pooling)
      : profiles_(std::move(profiles)), pooling_(std::move(pooling)) {}
  std::size_t num_tables() const override { return profiles_.size(); }
  const AccessProfile& profile(std::size_t t) const override { return *profiles_[t]; }
  TableIterationDraw draw(std::size_t t, int, int num_gpus, std::uint32_t samples,
                          std::span<const RowBlock> blocks) const override {
    TableIterationDraw d;
    const double per_gpu = samples * pooling_[t];
    for (const RowBlock& b : blocks) {
      const double m = profiles_[t]->mass(b.rows, b.space);
      for (int g = 0; g < num_gpus; ++g) d.lookups_by_block_gpu.push_back(per_gpu * m);
      d.distinct_by_block.push_back(
          profiles_[t]->expected_distinct(b.rows, b.space, per_gpu * num_gpus));
    }
    return d;
  }

 private:
  std::vector<std::unique_ptr<AccessProfile>> profiles_;
  std::vector<double> pooling_;
};

}  // namespace shardsim::testing
