// The per-plan memo of replicas' expected distinct rows (sim/iteration_draw.hpp).
#include "shardsim/sim/iteration_draw.hpp"

#include <gtest/gtest.h>

#include "shardsim/trace/access_profile.hpp"
#include "support/power_law_table.hpp"

namespace shardsim {
namespace {

ReplicaSet whole_table(std::uint64_t rows, RowSpace space) {
  return ReplicaSet{0, RowRange{0, rows}, space, ColRange{0, 16}, {0, 1}};
}

TEST(ReplicaDistinctMemo, ReturnsWhatTheProfileReturnsForEveryQuery) {
  const EmbeddingTable table = testing::power_law_table(1'000'000, 1.05, PoolingSpec::fixed_at(20));
  for (HotRowLayout layout : {HotRowLayout::scattered, HotRowLayout::clustered}) {
    const auto profile = make_power_law_profile(table, layout, 7);
    const ReplicaSet rows_by_id = whole_table(table.rows, RowSpace::row_id);
    const ReplicaSet block{0, RowRange{1000, 250'000}, RowSpace::row_id, ColRange{0, 16}, {2, 3}};
    ReplicaDistinctMemo memo(2);
    for (int round = 0; round < 2; ++round) {  // the second round hits the memo
      for (double lookups : {1.0, 20480.0, 20481.0, 1e7}) {
        EXPECT_EQ(memo.distinct(*profile, 0, rows_by_id, lookups),
                  profile->expected_distinct(rows_by_id.rows, rows_by_id.row_space, lookups));
        EXPECT_EQ(memo.distinct(*profile, 1, block, lookups),
                  profile->expected_distinct(block.rows, block.row_space, lookups));
      }
    }
  }
}

TEST(ReplicaDistinctMemo, KeepsAtMostItsLimitPerSetAndStaysExactBeyondIt) {
  const EmbeddingTable table = testing::power_law_table(10'000, 0.9, PoolingSpec::fixed_at(4));
  const auto profile = make_power_law_profile(table, HotRowLayout::clustered, 1);
  const ReplicaSet set = whole_table(table.rows, RowSpace::rank);
  ReplicaDistinctMemo memo(1);
  const auto limit = static_cast<double>(ReplicaDistinctMemo::kMaxPerSet);
  for (double lookups = 1; lookups <= limit + 10; ++lookups)
    memo.distinct(*profile, 0, set, lookups);
  for (double lookups : {1.0, limit, limit + 5}) {
    EXPECT_EQ(memo.distinct(*profile, 0, set, lookups),
              profile->expected_distinct(set.rows, set.row_space, lookups));
  }
}

}  // namespace
}  // namespace shardsim
