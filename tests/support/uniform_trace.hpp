#pragma once
// A trace source with uniform access and fixed pooling, for tests that need numbers a person
// can compute by hand: every GPU's batch has exactly samples x pooling lookups of each table,
// split over blocks in proportion to their rows (in expectation, no sampling), and
// E[distinct rows] = size x (1 - (1 - 1/N)^n).
#include <cmath>
#include <memory>
#include <vector>

#include "shardsim/trace/trace_source.hpp"
#include "support/expected_trace.hpp"

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

// pooling[t]: lookups per sample of table t.
class UniformTrace final : public ExpectedTrace {
 public:
  UniformTrace(const std::vector<std::uint64_t>& rows, std::vector<double> pooling)
      : ExpectedTrace(profiles(rows), std::move(pooling)) {}

 private:
  static std::vector<std::unique_ptr<AccessProfile>> profiles(
      const std::vector<std::uint64_t>& rows) {
    std::vector<std::unique_ptr<AccessProfile>> out;
    for (auto r : rows) out.push_back(std::make_unique<UniformProfile>(r));
    return out;
  }
};

}  // namespace shardsim::testing
