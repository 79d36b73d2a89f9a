// Power-law profiles shared across the trace sources of one process (trace/shared_profiles.hpp).
#include "trace/shared_profiles.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "support/power_law_table.hpp"

namespace shardsim {
namespace {

using detail::shared_power_law_profile;

TEST(SharedProfiles, TheSameKeyGivesTheSameProfileAndItsNumbersAreAFreshOnes) {
  const EmbeddingTable t = testing::power_law_table("t", 1'000'000, 1.05, PoolingSpec::fixed_at(4));
  const auto a = shared_power_law_profile(t, HotRowLayout::scattered, 7, {});
  EmbeddingTable renamed = t;
  renamed.name = "another name";  // only an error message reads the name
  const auto b = shared_power_law_profile(renamed, HotRowLayout::scattered, 7, {});
  EXPECT_EQ(a.get(), b.get());
  const PowerLawProfile fresh(t, HotRowLayout::scattered, 7);
  for (const RowRange r : {RowRange{0, 10}, RowRange{123, 45'678}, RowRange{0, 1'000'000}}) {
    EXPECT_EQ(a->mass(r, RowSpace::row_id), fresh.mass(r, RowSpace::row_id));
    EXPECT_EQ(a->expected_distinct(r, RowSpace::row_id, 5e4),
              fresh.expected_distinct(r, RowSpace::row_id, 5e4));
  }
}

TEST(SharedProfiles, EveryPartOfTheKeyTellsProfilesApart) {
  const EmbeddingTable t = testing::power_law_table("t", 1'000'000, 1.05, PoolingSpec::fixed_at(4));
  const auto base = shared_power_law_profile(t, HotRowLayout::scattered, 7, {});
  EmbeddingTable rows = t, alpha = t, q = t, heavy = t;
  rows.rows = 999'999;
  alpha.alpha = 1.06;
  q.q = t.q + 1;
  heavy.heavy_hitters = {0.01};
  for (const EmbeddingTable& other : {rows, alpha, q, heavy}) {
    EXPECT_NE(shared_power_law_profile(other, HotRowLayout::scattered, 7, {}).get(), base.get());
  }
  EXPECT_NE(shared_power_law_profile(t, HotRowLayout::clustered, 7, {}).get(), base.get());
  EXPECT_NE(shared_power_law_profile(t, HotRowLayout::scattered, 8, {}).get(), base.get());
  EXPECT_NE(shared_power_law_profile(t, HotRowLayout::scattered, 7, PowerLawOptions{64}).get(),
            base.get());
}

TEST(SharedProfiles, KeepsTheLastOnesMadeAndBuildsAgainAfter) {
  EmbeddingTable t = testing::power_law_table("t", 1000, 1.0, PoolingSpec::fixed_at(1));
  const auto first = shared_power_law_profile(t, HotRowLayout::scattered, 1, {});
  const PowerLawProfile* first_address = first.get();
  for (std::uint64_t seed = 2; seed < 2 + detail::kSharedProfiles; ++seed) {
    (void)shared_power_law_profile(t, HotRowLayout::scattered, seed, {});
  }
  // The first has left the shared set; a holder keeps it alive, and a new call builds another.
  const auto again = shared_power_law_profile(t, HotRowLayout::scattered, 1, {});
  EXPECT_NE(again.get(), first_address);
  EXPECT_EQ(again->mass({0, 500}, RowSpace::row_id), first->mass({0, 500}, RowSpace::row_id));
}

TEST(SharedProfiles, ABadTableThrowsAsTheConstructorDoesEvenAfterAGoodOne) {
  const EmbeddingTable good = testing::power_law_table("good", 1000, 1.0, PoolingSpec::fixed_at(1));
  (void)shared_power_law_profile(good, HotRowLayout::scattered, 1, {});
  EmbeddingTable t = good;
  t.alpha = -1;
  EXPECT_THROW(shared_power_law_profile(t, HotRowLayout::scattered, 1, {}), std::invalid_argument);
  // A NaN compares neither below nor above any key: it must not find the good table's profile.
  t.alpha = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(shared_power_law_profile(t, HotRowLayout::scattered, 1, {}), std::invalid_argument);
}

}  // namespace
}  // namespace shardsim
