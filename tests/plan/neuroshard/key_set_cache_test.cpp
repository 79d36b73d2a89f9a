// NeuroShard's cost cache store (plan/neuroshard/key_set_cache.hpp): exact by the whole key
// sequence, through growth, against a std::map of the same sets.
#include "plan/neuroshard/key_set_cache.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include "shardsim/core/rng.hpp"

namespace shardsim::neuroshard {
namespace {

using Keys = std::vector<std::uint64_t>;

TEST(KeySetCache, FindsExactlyTheSetStored) {
  KeySetCache c;
  EXPECT_FALSE(c.find(Keys{1, 2}).has_value());
  c.insert(Keys{1, 2}, 0.5);
  c.insert(Keys{1, 2, 2}, 0.75);  // a multiset: the same sub-table key twice on a GPU
  c.insert(Keys{2}, 1.5);
  ASSERT_TRUE(c.find(Keys{1, 2}).has_value());
  EXPECT_EQ(*c.find(Keys{1, 2}), 0.5);
  EXPECT_EQ(*c.find(Keys{1, 2, 2}), 0.75);
  EXPECT_EQ(*c.find(Keys{2}), 1.5);
  EXPECT_FALSE(c.find(Keys{1}).has_value());        // a prefix
  EXPECT_FALSE(c.find(Keys{2, 1}).has_value());     // another order is another key
  EXPECT_FALSE(c.find(Keys{1, 2, 3}).has_value());  // a longer set
  EXPECT_FALSE(c.find(Keys{}).has_value());
  EXPECT_EQ(c.size(), 3u);
}

TEST(KeySetCache, RefusesAnEmptySetAndASecondInsert) {
  KeySetCache c;
  EXPECT_THROW(c.insert(Keys{}, 1.0), std::invalid_argument);
  c.insert(Keys{7}, 1.0);
  EXPECT_THROW(c.insert(Keys{7}, 2.0), std::logic_error);
  EXPECT_EQ(*c.find(Keys{7}), 1.0);
}

TEST(KeySetCache, AgreesWithAMapThroughManyGrowths) {
  // 50,000 random sorted sets of 1-12 keys from a small alphabet (so that many share prefixes
  // and lengths), each stored once; every one found with its value, and sets never stored
  // found absent.
  KeySetCache c;
  std::map<Keys, double> want;
  Rng rng(3);
  const auto draw = [&] {
    Keys k(1 + rng.below(12));
    for (auto& x : k) x = (rng.below(40) << 32) | (4 * (1 + rng.below(8)));
    std::sort(k.begin(), k.end());
    return k;
  };
  while (want.size() < 50'000) {
    Keys k = draw();
    if (want.contains(k)) continue;
    const double v = static_cast<double>(want.size()) + 0.25;
    want.emplace(k, v);
    c.insert(k, v);
  }
  EXPECT_EQ(c.size(), want.size());
  for (const auto& [k, v] : want) {
    const auto got = c.find(k);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, v);
  }
  int absent = 0;
  for (int i = 0; i < 20'000; ++i) {
    const Keys k = draw();
    if (want.contains(k)) continue;
    ++absent;
    EXPECT_FALSE(c.find(k).has_value());
  }
  EXPECT_GT(absent, 1000);
}

}  // namespace
}  // namespace shardsim::neuroshard
