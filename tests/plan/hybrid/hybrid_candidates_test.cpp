// The hybrid planner's row_wise candidate kept as its summary alone gives the summary of the
// candidate built part by part, bit for bit.
#include "plan/hybrid/hybrid_candidates.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "plan/packing.hpp"
#include "plan/plan_fixture.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::PlanFixture;

TEST(HybridCandidates, ARowWiseSummaryEqualsTheSummaryOfItsParts) {
  // 2 hosts x 4 GPUs; skewed tables of uneven rows, so the parts differ in cost and bytes.
  const PlanFixture f(testing::hand_preset(4), 2,
                      model_of({{100003, 32, 4, 1.1}, {1000, 64, 2, 0.9}, {250000, 16, 10, 1.3}}),
                      64, /*synthetic=*/true);
  const PlanningContext ctx = f.ctx();
  const MemoryBudget budget(ctx, 0.1);
  const std::vector<ShardStorage> storage(f.model.tables.size());
  const hybrid::CandidateBuilder build(ctx, budget, storage);
  for (std::size_t t = 0; t < f.model.tables.size(); ++t) {
    const hybrid::Candidate full = build.row_wise(t);
    const hybrid::Candidate summary = build.row_wise(t, /*keep_parts=*/false);
    ASSERT_EQ(full.parts.size(), 8u);
    EXPECT_FALSE(full.summary_only);
    EXPECT_TRUE(summary.summary_only);
    EXPECT_TRUE(summary.parts.empty());
    EXPECT_EQ(summary.total_s, full.total_s) << t;
    EXPECT_EQ(summary.max_part_s, full.max_part_s) << t;
    EXPECT_EQ(summary.max_part_bytes, full.max_part_bytes) << t;
    EXPECT_GT(full.total_s, 0);
  }
}

}  // namespace
}  // namespace shardsim
