// Max-min fair sharing by progressive filling, against hand calculations.
#include "sim/fair_share_network.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <vector>

namespace shardsim {
namespace {

std::vector<int> ids(std::initializer_list<int> l) {
  return std::vector<int>(l);
}

TEST(FairShareNetwork, FlowsOnOneLinkSplitItEvenlyAndSpeedUpWhenOneEnds) {
  // One 10 B/s link, flows of 10 B and 30 B from t = 0: 5 B/s each until the first ends at
  // t = 2 (10 / 5); the second has 30 − 10 = 20 B left at 10 B/s: ends at t = 4.
  FairShareNetwork net({10.0});
  net.add_flow(0, ids({0}), 10, 1);
  net.add_flow(0, ids({0}), 30, 2);
  net.update(0);
  EXPECT_DOUBLE_EQ(net.rate_Bps(0), 5);
  EXPECT_DOUBLE_EQ(net.rate_Bps(1), 5);
  EXPECT_DOUBLE_EQ(net.next_completion_s(), 2);
  std::vector<int> tags;
  net.complete_due(2, tags);
  net.update(2);
  EXPECT_EQ(tags, ids({1}));
  EXPECT_DOUBLE_EQ(net.rate_Bps(1), 10);
  EXPECT_DOUBLE_EQ(net.next_completion_s(), 4);
  tags.clear();
  net.complete_due(4, tags);
  net.update(4);
  EXPECT_EQ(tags, ids({2}));
  EXPECT_EQ(net.active_flows(), 0);
  EXPECT_EQ(net.next_completion_s(), std::numeric_limits<double>::infinity());
}

TEST(FairShareNetwork, ManyFlowsOnOneLinkEndInSizeOrderWithABoundedHeap) {
  // k flows of 1, 2, ..., k bytes on one 1 B/s link (processor sharing): flow j ends when the
  // k − j + 1 flows still there have each moved one more byte,
  //   T_j = T_(j−1) + (k − j + 1).
  // Every completion reschedules every other flow, k²/2 pushes in all; the stale entries are
  // dropped (compact_due), so the heap stays near the live flows.
  const int k = 2000;
  FairShareNetwork net({1.0});
  for (int j = 1; j <= k; ++j) net.add_flow(0, ids({0}), j, j);
  net.update(0);
  double expected_s = 0;
  std::vector<int> tags;
  for (int j = 1; j <= k; ++j) {
    expected_s += k - j + 1;
    const double t = net.next_completion_s();
    ASSERT_NEAR(t, expected_s, 1e-9 * expected_s) << "flow " << j;
    tags.clear();
    net.complete_due(t, tags);
    net.update(t);
    ASSERT_EQ(tags, ids({j}));
    ASSERT_LE(net.pending_entries(), 2 * static_cast<std::size_t>(net.active_flows()) + 1024);
  }
  EXPECT_EQ(net.active_flows(), 0);
}

TEST(FairShareNetwork, ProgressiveFillingOfTheClassicExample) {
  // Bertsekas & Gallager's example shape: link A (1 B/s) carries flows a, b, c; link B (2 B/s)
  // carries c and d. A's fair share 1/3 is the smallest, so a, b, c get 1/3; B has 2 − 1/3
  // left for d alone: 5/3.
  FairShareNetwork net({1.0, 2.0});
  net.add_flow(0, ids({0}), 100, 0);     // a
  net.add_flow(0, ids({0}), 100, 1);     // b
  net.add_flow(0, ids({0, 1}), 100, 2);  // c
  net.add_flow(0, ids({1}), 100, 3);     // d
  net.update(0);
  EXPECT_DOUBLE_EQ(net.rate_Bps(0), 1.0 / 3);
  EXPECT_DOUBLE_EQ(net.rate_Bps(1), 1.0 / 3);
  EXPECT_DOUBLE_EQ(net.rate_Bps(2), 1.0 / 3);
  EXPECT_NEAR(net.rate_Bps(3), 5.0 / 3, 1e-15);
  // Every link is saturated (no rate can grow without lowering a smaller one).
  double a = 0, b = 0;
  for (int f : {0, 1, 2}) a += net.rate_Bps(f);
  for (int f : {2, 3}) b += net.rate_Bps(f);
  EXPECT_NEAR(a, 1.0, 1e-15);
  EXPECT_NEAR(b, 2.0, 1e-15);
}

TEST(FairShareNetwork, ABottleneckedFlowLeavesItsOtherLinkToTheRest) {
  // Link X (4 B/s): flows p, q. Link Y (1 B/s): q and r. Y's share 1/2 fixes q and r at 0.5;
  // X gives p the remaining 3.5.
  FairShareNetwork net({4.0, 1.0});
  net.add_flow(0, ids({0}), 10, 0);     // p
  net.add_flow(0, ids({0, 1}), 10, 1);  // q
  net.add_flow(0, ids({1}), 10, 2);     // r
  net.update(0);
  EXPECT_DOUBLE_EQ(net.rate_Bps(0), 3.5);
  EXPECT_DOUBLE_EQ(net.rate_Bps(1), 0.5);
  EXPECT_DOUBLE_EQ(net.rate_Bps(2), 0.5);
}

TEST(FairShareNetwork, UtilisationIsRecordedAtEveryChange) {
  FairShareNetwork net({10.0, 10.0});
  net.add_flow(1, ids({0}), 10, 0);
  net.update(1);
  std::vector<int> tags;
  net.complete_due(net.next_completion_s(), tags);  // t = 2
  net.update(2);
  ASSERT_EQ(net.samples().size(), 2u);
  EXPECT_DOUBLE_EQ(net.samples()[0].time_s, 1);
  EXPECT_EQ(net.samples()[0].link, 0);
  EXPECT_DOUBLE_EQ(net.samples()[0].utilization, 1);
  EXPECT_DOUBLE_EQ(net.samples()[1].time_s, 2);
  EXPECT_DOUBLE_EQ(net.samples()[1].utilization, 0);
}

TEST(FairShareNetwork, IndependentLinksDoNotInteract) {
  // Two components: a change on link 0 leaves link 1's flow alone.
  FairShareNetwork net({10.0, 10.0});
  net.add_flow(0, ids({1}), 100, 7);
  net.update(0);
  EXPECT_DOUBLE_EQ(net.next_completion_s(), 10);
  net.add_flow(3, ids({0}), 10, 8);
  net.update(3);
  EXPECT_DOUBLE_EQ(net.rate_Bps(0), 10);
  EXPECT_DOUBLE_EQ(net.next_completion_s(), 4);
}

TEST(FairShareNetwork, BadFlowsAndLinksAreRejected) {
  EXPECT_THROW(FairShareNetwork({0.0}), std::invalid_argument);
  FairShareNetwork net({1.0});
  EXPECT_THROW(net.add_flow(0, ids({0}), 0, 0), std::invalid_argument);
  EXPECT_THROW(net.add_flow(0, ids({}), 1, 0), std::invalid_argument);
  EXPECT_THROW(net.add_flow(0, ids({1}), 1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
