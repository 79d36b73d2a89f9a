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
#include "support/expected_trace.hpp"

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

// weights[t]: table t's per-row weights; pooling[t]: its lookups per sample.
class ExplicitTrace final : public ExpectedTrace {
 public:
  ExplicitTrace(const std::vector<std::vector<double>>& weights, std::vector<double> pooling)
      : ExpectedTrace(profiles(weights), std::move(pooling)) {}

 private:
  static std::vector<std::unique_ptr<AccessProfile>> profiles(
      const std::vector<std::vector<double>>& weights) {
    std::vector<std::unique_ptr<AccessProfile>> out;
    for (const auto& w : weights) out.push_back(std::make_unique<ExplicitProfile>(w));
    return out;
  }
};

}  // namespace shardsim::testing
