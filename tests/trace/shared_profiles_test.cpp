// Power-law profiles shared across the trace sources of one process (trace/shared_profiles.hpp).
#include "trace/shared_profiles.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <memory>

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

// Profiles of distinct seeds of `t`, none held, enough to pass the budget of kept profiles.
void fill_past_the_budget(const EmbeddingTable& t, std::uint64_t first_seed) {
  const std::size_t each = PowerLawProfile::memory_bytes(t, HotRowLayout::scattered);
  const std::uint64_t count = detail::kSharedProfileBytes / each + 2;
  for (std::uint64_t seed = first_seed; seed < first_seed + count; ++seed) {
    (void)shared_power_law_profile(t, HotRowLayout::scattered, seed, {});
  }
}

TEST(SharedProfiles, KeepsTheLastUsedWithinTheBudgetAndBuildsAgainAfter) {
  // A billion rows: the largest head index (4096 ranks, about 128 KiB counted a profile).
  const EmbeddingTable t =
      testing::power_law_table("t", 1'000'000'000, 1.0, PoolingSpec::fixed_at(1));
  auto first = shared_power_law_profile(t, HotRowLayout::scattered, 1, {});
  const std::weak_ptr<const PowerLawProfile> watch = first;
  first.reset();
  // Nobody holds it, but it is among the last used: the next call gets it back.
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(shared_power_law_profile(t, HotRowLayout::scattered, 1, {}).get(), watch.lock().get());
  // Newer profiles push it out of the budget; it is freed, and a new call builds another with
  // the same numbers.
  fill_past_the_budget(t, 1'000'000);
  EXPECT_TRUE(watch.expired());
  const auto again = shared_power_law_profile(t, HotRowLayout::scattered, 1, {});
  const PowerLawProfile fresh(t, HotRowLayout::scattered, 1);
  EXPECT_EQ(again->mass({0, 500'000}, RowSpace::row_id),
            fresh.mass({0, 500'000}, RowSpace::row_id));
}

TEST(SharedProfiles, AProfileStillHeldIsSharedPastTheBudget) {
  // Sweep points running at once share their tables' profiles however many there are.
  const EmbeddingTable t =
      testing::power_law_table("t", 1'000'000'000, 0.9, PoolingSpec::fixed_at(1));
  const auto held = shared_power_law_profile(t, HotRowLayout::scattered, 1, {});
  fill_past_the_budget(t, 2'000'000);
  EXPECT_EQ(shared_power_law_profile(t, HotRowLayout::scattered, 1, {}).get(), held.get());
}

TEST(SharedProfiles, KeepsWhatTheNewestOrThePreviousUserTook) {
  const EmbeddingTable t = testing::power_law_table("t", 50'000, 1.1, PoolingSpec::fixed_at(1));
  detail::begin_shared_profile_user();
  auto once = shared_power_law_profile(t, HotRowLayout::scattered, 1, {});
  auto every = shared_power_law_profile(t, HotRowLayout::scattered, 2, {});
  const std::weak_ptr<const PowerLawProfile> watch_once = once, watch_every = every;
  once.reset();
  every.reset();
  // The next user (a sweep's next point) finds both.
  detail::begin_shared_profile_user();
  EXPECT_FALSE(watch_once.expired());
  EXPECT_EQ(shared_power_law_profile(t, HotRowLayout::scattered, 2, {}).get(),
            watch_every.lock().get());
  // The one after: only what the previous user took is still kept.
  detail::begin_shared_profile_user();
  EXPECT_TRUE(watch_once.expired());
  EXPECT_FALSE(watch_every.expired());
  EXPECT_EQ(shared_power_law_profile(t, HotRowLayout::scattered, 2, {}).get(),
            watch_every.lock().get());
  // A profile someone holds stays shared however many users begin.
  const auto held = shared_power_law_profile(t, HotRowLayout::scattered, 3, {});
  for (int i = 0; i < 3; ++i) detail::begin_shared_profile_user();
  EXPECT_EQ(shared_power_law_profile(t, HotRowLayout::scattered, 3, {}).get(), held.get());
}

TEST(SharedProfiles, MemoryCountsTheHeadIndexOfTheScatteredLayoutOnly) {
  const EmbeddingTable big =
      testing::power_law_table("big", 1'000'000, 1.0, PoolingSpec::fixed_at(1));
  const EmbeddingTable small =
      testing::power_law_table("small", 100, 1.0, PoolingSpec::fixed_at(1));
  const auto scattered = [](const EmbeddingTable& t, std::uint64_t head) {
    return PowerLawProfile::memory_bytes(t, HotRowLayout::scattered, PowerLawOptions{head});
  };
  // 32 B a head rank (ids, probabilities, log1p(-p), prefix sums): 4096 - 64 ranks more.
  EXPECT_EQ(scattered(big, 4096) - scattered(big, 64), (4096u - 64u) * 32u);
  // A table of 100 rows has a head of 100 ranks whatever the option.
  EXPECT_EQ(scattered(small, 4096), scattered(small, 100));
  EXPECT_EQ(scattered(small, 4096) - scattered(small, 64), (100u - 64u) * 32u);
  // The clustered layout answers row ids from ranks: no head index.
  EXPECT_LT(PowerLawProfile::memory_bytes(big, HotRowLayout::clustered), 1024u);
  EXPECT_EQ(PowerLawProfile::memory_bytes(big, HotRowLayout::clustered),
            PowerLawProfile::memory_bytes(small, HotRowLayout::clustered));
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
