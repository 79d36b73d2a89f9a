#pragma once
// A trace source whose tables have explicit per-row access probabilities (hottest first, so
// rank = row id), for tests that follow OPER's per-embedding formulas by hand: with
// batch_per_gpu · pooling lookups per GPU, a row of probability p is accessed A = batch · pooling
// · p times per GPU batch. Draws are the expectations (no sampling).
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "shardsim/trace/trace_source.hpp"

namespace shardsim::testing {

class ExplicitProfile final : public AccessProfile {
 public:
  // `weights`: non-increasing, any positive scale (normalised here).
  explicit ExplicitProfile(std::vector<double> weights) : p_(std::move(weights)) {
    for (std::size_t k = 1; k < p_.size(); ++k) {
      if (p_[k] > p_[k - 1]) throw std::invalid_argument("weights must not increase");
    }
    const double sum = std::accumulate(p_.begin(), p_.end(), 0.0);
    for (double& p : p_) p /= sum;
  }
  std::uint64_t num_rows() const override { return p_.size(); }
  double mass(RowRange r, RowSpace) const override {
    double s = 0;
    for (std::uint64_t k = r.begin; k < r.end; ++k) s += p_[k];
    return s;
  }
  double expected_distinct(RowRange r, RowSpace, double lookups) const override {
    double s = 0;
    for (std::uint64_t k = r.begin; k < r.end; ++k) s += -std::expm1(lookups * std::log1p(-p_[k]));
    return s;
  }

 private:
  std::vector<double> p_;
};

class ExplicitTrace final : public TraceSource {
 public:
  // weights[t]: table t's per-row weights; pooling[t]: its lookups per sample.
  ExplicitTrace(const std::vector<std::vector<double>>& weights, std::vector<double> pooling)
      : pooling_(std::move(pooling)) {
    for (const auto& w : weights) profiles_.push_back(std::make_unique<ExplicitProfile>(w));
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
  std::vector<std::unique_ptr<ExplicitProfile>> profiles_;
};

}  // namespace shardsim::testing
