// plan/torchrec/shard_list.hpp: shards kept as runs read back as the vector they replace.
#include "plan/torchrec/shard_list.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "plan/torchrec/estimators.hpp"

namespace shardsim::torchrec {
namespace {

ShardEstimate estimate(std::uint64_t begin, std::uint64_t end, double hbm) {
  ShardEstimate s;
  s.rows = {begin, end};
  s.cols = {0, 64};
  s.perf.fwd_compute_s = 1e-3;
  s.hbm_bytes = hbm;
  return s;
}

TEST(ShardList, RowWiseSplitIsThreeRunsAndReadsBackShardByShard) {
  // 10 rows over 6 ranks: 2, 2, 2, 2, 2, 0 (row_split); storage differs for the empty one.
  std::vector<ShardEstimate> want;
  ShardList list;
  for (RowRange r : row_split(10, 6)) {
    const ShardEstimate s = estimate(r.begin, r.end, r.size() > 0 ? 100.0 : 0.0);
    want.push_back(s);
    list.push_back(s);
  }
  ASSERT_EQ(list.size(), want.size());
  EXPECT_EQ(list.runs().size(), 2u);  // five blocks of 2 rows, one empty rank
  EXPECT_EQ(list.runs()[0].step, 2u);
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(list[i], want[i]) << i;
  std::size_t i = 0;
  for (const ShardEstimate& s : list) EXPECT_EQ(s, want[i++]);
  EXPECT_EQ(i, want.size());
  EXPECT_EQ(list.back(), want.back());
  EXPECT_THROW(list.at(6), std::out_of_range);
}

TEST(ShardList, RemainderBlockStartsANewRun) {
  // 10 rows over 4 ranks: 3, 3, 3, 1.
  ShardList list;
  for (RowRange r : row_split(10, 4)) list.push_back(estimate(r.begin, r.end, 5.0));
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list.runs().size(), 2u);
  EXPECT_EQ(list[2].rows, (RowRange{6, 9}));
  EXPECT_EQ(list[3].rows, (RowRange{9, 10}));
}

TEST(ShardList, CopiesAreOneRunAndDifferentEstimatesAreNot) {
  ShardList list;
  list.append_copies(estimate(0, 8, 7.0), 5);
  EXPECT_EQ(list.size(), 5u);
  EXPECT_EQ(list.runs().size(), 1u);
  EXPECT_EQ(list[4].rows, (RowRange{0, 8}));
  list.push_back(estimate(0, 8, 8.0));  // other storage: a run of its own
  list.push_back(estimate(0, 8, 8.0));
  EXPECT_EQ(list.runs().size(), 2u);
  EXPECT_EQ(list.size(), 7u);
  EXPECT_EQ(list[6].hbm_bytes, 8.0);
  // Rows neither equal nor the next block: a new run.
  list.push_back(estimate(3, 5, 8.0));
  EXPECT_EQ(list.runs().size(), 3u);
  const ShardList brace = {estimate(0, 1, 1.0), estimate(1, 2, 1.0)};
  EXPECT_EQ(brace.runs().size(), 1u);
  EXPECT_EQ(brace[1].rows, (RowRange{1, 2}));
}

}  // namespace
}  // namespace shardsim::torchrec
