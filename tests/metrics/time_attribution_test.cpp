#include "metrics/time_attribution.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace shardsim {
namespace {

// Hand-calculated: window [0, 10); A rank 0 on [1, 4), B rank 1 on [2, 8), C rank 0 on [6, 7),
// D rank 2 on [9, 12). A owns [1, 4): 3; B owns [4, 6) and [7, 8): 3; C owns [6, 7): 1;
// D owns [9, 10): 1 (clipped); nothing covers [0, 1) and [8, 9): 2.
TEST(TimeAttribution, LowestRankOwnsEachInstant) {
  const std::vector<RankedSpan> spans{{1, 4, 0}, {2, 8, 1}, {6, 7, 0}, {9, 12, 2}};
  const WindowAttribution a = attribute_window(spans, 0, 10);
  ASSERT_EQ(a.by_span_s.size(), 4u);
  EXPECT_DOUBLE_EQ(a.by_span_s[0], 3);
  EXPECT_DOUBLE_EQ(a.by_span_s[1], 3);
  EXPECT_DOUBLE_EQ(a.by_span_s[2], 1);
  EXPECT_DOUBLE_EQ(a.by_span_s[3], 1);
  EXPECT_DOUBLE_EQ(a.unattributed_s, 2);
}

// Equal ranks: the lower index wins; spans outside the window get nothing.
TEST(TimeAttribution, TiesGoToTheFirstSpanAndOutsideCountsNothing) {
  const std::vector<RankedSpan> spans{{0, 5, 1}, {0, 5, 1}, {-3, -1, 0}, {20, 30, 0}};
  const WindowAttribution a = attribute_window(spans, 0, 5);
  EXPECT_DOUBLE_EQ(a.by_span_s[0], 5);
  EXPECT_DOUBLE_EQ(a.by_span_s[1], 0);
  EXPECT_DOUBLE_EQ(a.by_span_s[2], 0);
  EXPECT_DOUBLE_EQ(a.by_span_s[3], 0);
  EXPECT_DOUBLE_EQ(a.unattributed_s, 0);
}

// Property: whatever the spans, the parts add up to the window.
TEST(TimeAttribution, PartsAddUpToTheWindow) {
  std::vector<RankedSpan> spans;
  unsigned x = 12345;
  auto next = [&] { return (x = x * 1103515245u + 12345u) % 1000u; };
  for (int i = 0; i < 200; ++i) {
    const double b = next() / 100.0;
    spans.push_back({b, b + next() / 300.0, static_cast<int>(next() % 5)});
  }
  const WindowAttribution a = attribute_window(spans, 1.5, 8.25);
  double sum = a.unattributed_s;
  for (double v : a.by_span_s) {
    EXPECT_GE(v, 0);
    sum += v;
  }
  EXPECT_NEAR(sum, 6.75, 1e-12);
  EXPECT_TRUE(attribute_window(spans, 3, 3).unattributed_s == 0);
}

}  // namespace
}  // namespace shardsim
