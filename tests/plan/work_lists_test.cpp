// Per-GPU work lists over a shared pool (plan/work_lists.hpp): every list reads back exactly
// what was written to it, and equal works of consecutive GPUs are stored once.
#include "shardsim/plan/work_lists.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace shardsim {
namespace {

EmbeddingWork work(double lookups, std::uint32_t cols = 16) {
  EmbeddingWork w;
  w.lookups = lookups;
  w.cols = cols;
  return w;
}

void expect_same(const EmbeddingWork& a, const EmbeddingWork& b) {
  EXPECT_EQ(a.lookups, b.lookups);
  EXPECT_EQ(a.distinct_rows, b.distinct_rows);
  EXPECT_EQ(a.pooled_outputs, b.pooled_outputs);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.rows, b.rows);
}

TEST(WorkLists, OneBlockOnEveryGpuIsOneEntry) {
  WorkLists lists(1000);
  for (int g = 0; g < 1000; ++g) lists.push(g, work(5));
  EXPECT_EQ(lists.pool_size(), 1u);
  // Every GPU's update of it, the same change: still one entry.
  for (int g = 0; g < 1000; ++g) {
    EmbeddingWork w = lists.at(g, 0);
    w.rows += 100;
    lists.set(g, 0, w);
  }
  EXPECT_EQ(lists.pool_size(), 1u);
  for (int g = 0; g < 1000; ++g) EXPECT_EQ(lists.at(g, 0).rows, 100);
}

TEST(WorkLists, ChangingOneGpuLeavesTheOthers) {
  WorkLists lists(3);
  for (int g = 0; g < 3; ++g) lists.push(g, work(5));
  EmbeddingWork w = lists.at(1, 0);
  w.lookups = 7;
  lists.set(1, 0, w);
  EXPECT_EQ(lists.at(0, 0).lookups, 5);
  EXPECT_EQ(lists.at(1, 0).lookups, 7);
  EXPECT_EQ(lists.at(2, 0).lookups, 5);
  EXPECT_EQ(lists.pool_size(), 2u);
  lists.set(1, 0, work(5));
  for (int g = 0; g < 3; ++g) EXPECT_EQ(lists.at(g, 0).lookups, 5);
}

TEST(WorkLists, FreshWorksUpdatedInTurnShareTheirResult) {
  // The pattern of one_sided_traffic: each GPU pushes an empty work, then sets its value.
  WorkLists lists(64);
  for (int g = 0; g < 64; ++g) {
    const std::size_t i = lists.push(g, work(0));
    EmbeddingWork w = lists.at(g, i);
    w.lookups += 3;
    lists.set(g, i, w);
  }
  EXPECT_EQ(lists.pool_size(), 1u);
  for (int g = 0; g < 64; ++g) EXPECT_EQ(lists.at(g, 0).lookups, 3);
}

TEST(WorkLists, NegativeZeroIsNotZero) {
  // Shared only bit for bit: -0.0 and 0.0 are different works.
  WorkLists lists(2);
  lists.push(0, work(0.0));
  lists.push(1, work(-0.0));
  EXPECT_EQ(lists.pool_size(), 2u);
  EXPECT_TRUE(std::signbit(lists.at(1, 0).lookups));
}

// Property: random pushes and sets read back as a plain vector of vectors does.
TEST(WorkLists, MatchesPlainListsUnderRandomEdits) {
  std::mt19937_64 rng(42);
  const int n = 17;
  WorkLists lists(n);
  std::vector<std::vector<EmbeddingWork>> plain(n);
  std::uniform_int_distribution<int> gpu(0, n - 1), value(0, 3), op(0, 2);
  for (int step = 0; step < 20000; ++step) {
    const int g = gpu(rng);
    const EmbeddingWork w = work(value(rng), static_cast<std::uint32_t>(value(rng)));
    if (op(rng) == 0 || plain[g].empty()) {
      EXPECT_EQ(lists.push(g, w), plain[g].size());
      plain[g].push_back(w);
    } else {
      const std::size_t i = std::uniform_int_distribution<std::size_t>(0, plain[g].size() - 1)(rng);
      lists.set(g, i, w);
      plain[g][i] = w;
    }
  }
  std::vector<EmbeddingWork> scratch;
  for (int g = 0; g < n; ++g) {
    ASSERT_EQ(lists.count(g), plain[g].size());
    const auto got = lists.of(g, scratch);
    for (std::size_t i = 0; i < plain[g].size(); ++i) expect_same(got[i], plain[g][i]);
  }
}

}  // namespace
}  // namespace shardsim
