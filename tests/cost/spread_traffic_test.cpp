// One-to-many traffic spread by levels (cost/spread_traffic.hpp) against the same pairs added one
// by one: exactly equal, on a tiered cluster (A100 SuperPOD: racks of 20 nodes, a pod tier), on
// a direct NVLink mesh (hpc-a100x4), with and without groups, forward and reversed.
#include "shardsim/cost/spread_traffic.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "shardsim/core/rng.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/hw/level_table.hpp"

namespace shardsim {
namespace {

struct Spread {
  int owner;
  double amount;
  bool in_group;
};

// The pairs of `spreads`, one LevelTraffic::add each (requester_group as SpreadTraffic::add_to).
LevelTraffic by_pairs(const Cluster& c, const std::vector<int>& group_of,
                      const std::vector<Spread>& spreads, double scale, bool reversed,
                      int requester_group) {
  LevelTraffic t(c);
  const LevelTable levels(c);
  for (const Spread& s : spreads) {
    for (int g = 0; g < c.num_gpus(); ++g) {
      if (g == s.owner) continue;
      if (s.in_group && group_of[g] != group_of[s.owner]) continue;
      if (requester_group >= 0 && group_of[g] != requester_group) continue;
      const int from = reversed ? g : s.owner;
      const int to = reversed ? s.owner : g;
      t.add(from, to, levels.level(from, to), s.amount * scale);
    }
  }
  return t;
}

void expect_equal(const LevelTraffic& a, const LevelTraffic& b, int n) {
  for (int g = 0; g < n; ++g) {
    for (int l = 0; l < a.num_levels(); ++l) {
      EXPECT_EQ(a.sent(g, l), b.sent(g, l)) << "gpu " << g << " level " << l;
      EXPECT_EQ(a.received(g, l), b.received(g, l)) << "gpu " << g << " level " << l;
    }
    for (int h = 0; h < n; ++h) EXPECT_EQ(a.domain_pair(g, h), b.domain_pair(g, h));
  }
}

void check(const Cluster& c, const std::vector<int>& group_of, int groups, std::uint64_t seed) {
  const int n = c.num_gpus();
  Rng rng(seed);
  std::vector<Spread> spreads;
  SpreadTraffic st(c, group_of);
  for (int k = 0; k < 3 * n; ++k) {
    const Spread s{static_cast<int>(rng.below(static_cast<std::uint64_t>(n))),
                   static_cast<double>(1 + rng.below(512)), rng.uniform01() < 0.5};
    spreads.push_back(s);
    st.add(s.owner, s.amount, s.in_group);
  }
  for (const bool reversed : {false, true}) {
    for (int rg = -1; rg < groups; ++rg) {
      SCOPED_TRACE(::testing::Message() << "reversed " << reversed << " group " << rg);
      LevelTraffic spread(c);
      st.add_to(spread, 2048.0, reversed, rg);
      expect_equal(spread, by_pairs(c, group_of, spreads, 2048.0, reversed, rg), n);
    }
  }
  // A matrix of 5 units (GPU g in unit g mod 5) against the pairs.
  std::vector<int> unit_of(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) unit_of[g] = g % 5;
  ByteMatrix m(5), pairs(5);
  st.add_to_units(m, unit_of, 5, 2.0, true);
  for (const Spread& s : spreads) {
    for (int g = 0; g < n; ++g) {
      if (g == s.owner || (s.in_group && group_of[g] != group_of[s.owner])) continue;
      pairs.at(unit_of[g], unit_of[s.owner]) += s.amount * 2.0;
    }
  }
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b) EXPECT_EQ(m.at(a, b), pairs.at(a, b)) << a << " " << b;
  }
}

TEST(SpreadTraffic, EqualsItsPairsOnATieredCluster) {
  const Cluster c(builtin_preset("dgx-a100"), 45);  // 360 GPUs: 3 racks (the last partly full)
  check(c, std::vector<int>(static_cast<std::size_t>(c.num_gpus()), 0), 1, 1);
  std::vector<int> strided(static_cast<std::size_t>(c.num_gpus()));  // 2D's groups: g mod 3
  for (int g = 0; g < c.num_gpus(); ++g) strided[g] = g % 3;
  check(c, strided, 3, 2);
}

TEST(SpreadTraffic, EqualsItsPairsOnADirectNvlinkMesh) {
  const Cluster c(builtin_preset("hpc-a100x4"), 6);
  ASSERT_TRUE(LevelTraffic(c).has_domain_pairs());
  std::vector<int> halves(static_cast<std::size_t>(c.num_gpus()));
  for (int g = 0; g < c.num_gpus(); ++g) halves[g] = g < c.num_gpus() / 2 ? 0 : 1;
  check(c, halves, 2, 3);
}

TEST(SpreadTraffic, TransposedSwapsTheEnds) {
  const Cluster c(builtin_preset("hpc-a100x4"), 2);
  LevelTraffic t(c);
  t.add(0, 1, 1, 5.0);
  t.add(2, 7, 2, 3.0);
  const LevelTraffic r = t.transposed();
  EXPECT_EQ(r.sent(1, 1), 5.0);
  EXPECT_EQ(r.received(0, 1), 5.0);
  EXPECT_EQ(r.domain_pair(1, 0), 5.0);
  EXPECT_EQ(r.domain_pair(0, 1), 0.0);
  EXPECT_EQ(r.sent(7, 2), 3.0);
  EXPECT_EQ(r.received(2, 2), 3.0);
}

TEST(SpreadTraffic, RefusesBadInput) {
  const Cluster c(builtin_preset("dgx-a100"), 2);
  EXPECT_THROW(SpreadTraffic(c, std::vector<int>{0, 1}), std::invalid_argument);
  SpreadTraffic s(c);
  EXPECT_THROW(s.add(-1, 1.0, false), std::out_of_range);
  EXPECT_THROW(s.add(16, 1.0, false), std::out_of_range);
  s.add(0, 1.0, false);
  const Cluster other(builtin_preset("dgx-a100"), 3);
  LevelTraffic wrong(other);
  EXPECT_THROW(s.add_to(wrong, 1.0, false), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
