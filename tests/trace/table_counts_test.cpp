#include "shardsim/trace/table_counts.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "shardsim/core/rng.hpp"
#include "shardsim/trace/trace_stats.hpp"

namespace shardsim::table_counts_test {
namespace {

EmbeddingTable zipf_table(std::uint64_t rows, double alpha, double pooling) {
  EmbeddingTable t;
  t.name = "t";
  t.rows = rows;
  t.dim = 16;
  t.alpha = alpha;
  t.q = 2;
  t.pooling.kind = PoolingSpec::Kind::fixed;
  t.pooling.value = pooling;
  return t;
}

std::vector<std::uint64_t> zipf_ids(std::uint64_t rows, double alpha, std::uint32_t bags,
                                    std::uint64_t seed) {
  Workload w;
  w.seed = seed;
  const BagGenerator gen(zipf_table(rows, alpha, 4), 0, w);  // scattered row ids
  Bags b;
  gen.append(0, 0, bags, RowSpace::row_id, b);
  return b.rows;
}

TableCounts via_profile(std::uint64_t rows, const std::vector<std::uint64_t>& ids,
                        EmpiricalProfileOptions options = {}) {
  return table_counts(*build_empirical_profile(
      rows, [&](const auto& sink) { sink(std::span<const std::uint64_t>(ids)); }, options));
}

TableCounts via_counter(std::uint64_t rows, const std::vector<std::uint64_t>& ids,
                        EmpiricalProfileOptions options = {}) {
  ExactTableCounter c(rows, options);
  // In uneven chunks: the counts do not depend on them.
  std::size_t chunk = 1;
  for (std::size_t i = 0; i < ids.size(); i += chunk, chunk = chunk * 7 % 997 + 1)
    EXPECT_TRUE(
        c.add(std::span<const std::uint64_t>(ids).subspan(i, std::min(chunk, ids.size() - i))));
  EXPECT_FALSE(c.overflowed());
  return c.finish();
}

// Bit for bit: `trace stats` prints these numbers.
void expect_same(const TableCounts& a, const TableCounts& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.lookups, b.lookups);
  EXPECT_EQ(a.distinct_rows, b.distinct_rows);
  EXPECT_EQ(a.exact, b.exact);
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    EXPECT_EQ(a.groups[i].rows, b.groups[i].rows) << i;
    EXPECT_EQ(a.groups[i].lookups, b.groups[i].lookups) << i;
  }
}

TEST(TableCounts, HandCounted) {
  // Row 7 x3, row 2 x3, row 5 x1, row 1 x1, row 9 x2; head of 2 rows: the run of 3s.
  EmpiricalProfileOptions o;
  o.head_rows = 2;
  const std::vector<std::uint64_t> ids = {7, 2, 7, 5, 2, 9, 1, 7, 2, 9};
  const TableCounts c = via_counter(10, ids, o);
  EXPECT_EQ(c.lookups, 10u);
  EXPECT_EQ(c.distinct_rows, 5.0);
  ASSERT_EQ(c.groups.size(), 3u);
  EXPECT_EQ(c.groups[0].rows, 2.0);  // head: rows 2 and 7, 3 each
  EXPECT_EQ(c.groups[0].lookups, 6.0);
  EXPECT_EQ(c.groups[1].rows, 1.0);  // tail: row 9 (2), rows 1 and 5 (1 each)
  EXPECT_EQ(c.groups[1].lookups, 2.0);
  EXPECT_EQ(c.groups[2].rows, 2.0);
  EXPECT_EQ(c.groups[2].lookups, 2.0);
  expect_same(c, via_profile(10, ids, o));
}

TEST(TableCounts, EqualsTheProfileOfTheSameRows) {
  // Small and large tables (rows above 2^20 go to the hash map), a head boundary inside a run of
  // equal counts, and tails with more distinct counts than max_groups (merged).
  struct Case {
    std::uint64_t rows;
    double alpha;
    std::uint32_t bags;
    std::uint64_t head_rows;
    std::uint32_t max_groups;
  };
  for (const Case& k :
       {Case{500, 0.9, 20'000, 4096, 4096}, Case{3'000'000, 1.05, 100'000, 4096, 64},
        Case{5'000'000'000, 1.2, 60'000, 37, 64}, Case{1'048'576, 0.7, 50'000, 1000, 4096}}) {
    EmpiricalProfileOptions o;
    o.head_rows = k.head_rows;
    o.max_groups = k.max_groups;
    const auto ids = zipf_ids(k.rows, k.alpha, k.bags, k.rows);
    SCOPED_TRACE(k.rows);
    const TableCounts c = via_counter(k.rows, ids, o);
    expect_same(c, via_profile(k.rows, ids, o));
    if (k.head_rows == 37) {  // this tail has more than 64 distinct counts: some merged
      const auto merged = std::count_if(c.groups.begin(), c.groups.end(), [](const CountGroup& g) {
        return g.count() != std::floor(g.count());
      });
      EXPECT_GT(merged, 0);
    }
  }
}

TEST(TableCounts, SyntheticTablesInRankSpaceEqualTheirRowIds) {
  // Scattered and clustered layouts, with unique_in_bag and reuse: the rank-space counts give
  // the statistics of the generated row ids, and so of `trace stats` of the generated file.
  const SyntheticTraceShape shape{3, 200, 2};
  for (const auto layout : {HotRowLayout::scattered, HotRowLayout::clustered}) {
    Workload w;
    w.seed = 11;
    w.trace.layout = layout;
    w.trace.unique_in_bag = true;
    w.trace.reuse = 0.3;
    const BagGenerator gen(zipf_table(2'000'000, 1.1, 9.5), 3, w);
    const TableCounts fast = synthetic_table_counts(gen, shape);
    const auto slow = build_empirical_profile(2'000'000, [&](const auto& sink) {
      stream_synthetic_table(gen, shape, [&](const Bags& b) { sink(b.rows); });
    });
    expect_same(fast, table_counts(*slow));
    const std::string names[] = {"t"};
    const EmpiricalProfile* ps[] = {slow.get()};
    const TraceStats a = compute_trace_stats(std::span<const TableCounts>(&fast, 1), names, 1200);
    const TraceStats b = compute_trace_stats(ps, names, 1200);
    EXPECT_EQ(a.overall.hist_distinct_by_count, b.overall.hist_distinct_by_count);
    EXPECT_EQ(a.overall.hist_lookups_by_count, b.overall.hist_lookups_by_count);
    EXPECT_EQ(a.overall.top1pct_share, b.overall.top1pct_share);
    EXPECT_EQ(a.overall.alpha_fit, b.overall.alpha_fit);
  }
}

TEST(TableCounts, PastExactRowsTheProfileSamples) {
  // 2000 distinct rows against exact_rows 512: the counter gives up, synthetic_table_counts
  // falls back to the sampling profile of the row ids.
  EmpiricalProfileOptions o;
  o.head_rows = 64;
  o.exact_rows = 512;
  o.hot_candidates = 256;
  ExactTableCounter c(10'000, o);
  std::vector<std::uint64_t> ids(2000);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i * 5;
  EXPECT_FALSE(c.add(ids));
  EXPECT_TRUE(c.overflowed());
  EXPECT_FALSE(c.add(ids));
  EXPECT_THROW(c.finish(), std::logic_error);

  Workload w;
  w.seed = 3;
  const BagGenerator gen(zipf_table(1'000'000, 0.6, 20), 0, w);
  const SyntheticTraceShape shape{2, 500, 1};
  const TableCounts fast = synthetic_table_counts(gen, shape, o);
  EXPECT_FALSE(fast.exact);
  const auto slow = build_empirical_profile(
      1'000'000,
      [&](const auto& sink) {
        stream_synthetic_table(gen, shape, [&](const Bags& b) { sink(b.rows); });
      },
      o);
  expect_same(fast, table_counts(*slow));
}

TEST(TableCounts, ReusedBuffersStartEmpty) {
  // Counters one after another and two at once on one thread: each sees only its own rows.
  const auto big = zipf_ids(3'000'000, 1.0, 20'000, 1);
  const TableCounts first = via_counter(3'000'000, big);
  ExactTableCounter a(3'000'000);
  ExactTableCounter b(100);
  EXPECT_TRUE(b.add(std::vector<std::uint64_t>{5, 5, 99}));
  EXPECT_TRUE(a.add(big));
  const TableCounts small = b.finish();
  EXPECT_EQ(small.lookups, 3u);
  EXPECT_EQ(small.distinct_rows, 2.0);
  expect_same(a.finish(), first);
  expect_same(via_counter(3'000'000, big), first);
}

TEST(TableCounts, BadInput) {
  EXPECT_THROW(ExactTableCounter(0), std::invalid_argument);
  EmpiricalProfileOptions o;
  o.max_groups = 10;
  EXPECT_THROW(ExactTableCounter(10, o), std::invalid_argument);
  ExactTableCounter small(10), large(3'000'000);
  EXPECT_THROW(small.add(std::vector<std::uint64_t>{3, 10}), std::out_of_range);
  EXPECT_THROW(large.add(std::vector<std::uint64_t>{3'000'000}), std::out_of_range);
}

}  // namespace
}  // namespace shardsim::table_counts_test
