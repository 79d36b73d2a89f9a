#pragma once
// A trace source with uniform access and fixed pooling, for tests that need numbers a person
// can compute by hand: every GPU's batch has exactly samples x pooling lookups of each table,
// split over blocks in proportion to their rows (in expectation, no sampling), and
// E[distinct rows] = size x (1 - (1 - 1/N)^n).
#include <cmath>
#include <memory>
#include <vector>

#include "shardsim/trace/trace_source.hpp"

namespace shardsim::testing {

class UniformProfile final : public AccessProfile {
 public:
  explicit UniformProfile(std::uint64_t rows) : rows_(rows) {}
  std::uint64_t num_rows() const override { return rows_; }
  double mass(RowRange r, RowSpace) const override {
    return static_cast<double>(r.size()) / static_cast<double>(rows_);
  }
  double expected_distinct(RowRange r, RowSpace, double lookups) const override {
    const double p = 1.0 / static_cast<double>(rows_);
    return static_cast<double>(r.size()) * -std::expm1(lookups * std::log1p(-p));
  }

 private:
  std::uint64_t rows_;
};

class UniformTrace final : public TraceSource {
 public:
  // pooling[t]: lookups per sample of table t.
  UniformTrace(std::vector<std::uint64_t> rows, std::vector<double> pooling)
      : pooling_(std::move(pooling)) {
    for (auto r : rows) profiles_.push_back(std::make_unique<UniformProfile>(r));
  }
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
  std::vector<double> pooling_;
  std::vector<std::unique_ptr<UniformProfile>> profiles_;
};

}  // namespace shardsim::testing
