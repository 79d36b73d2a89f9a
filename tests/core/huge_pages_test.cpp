#include "shardsim/core/huge_pages.hpp"

#include <gtest/gtest.h>

namespace shardsim {
namespace {

constexpr const char* kMadvise = "always [madvise] never\n";

TEST(HugePages, MadviseModeAddsTheTunable) {
  EXPECT_EQ(huge_page_tunables(kMadvise, nullptr), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables(kMadvise, ""), "glibc.malloc.hugetlb=1");
}

TEST(HugePages, OtherTunablesAreKept) {
  EXPECT_EQ(huge_page_tunables(kMadvise, "glibc.malloc.arena_max=2"),
            "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
}

TEST(HugePages, TheUsersChoiceStands) {
  EXPECT_EQ(huge_page_tunables(kMadvise, "glibc.malloc.hugetlb=0"), std::nullopt);
  EXPECT_EQ(huge_page_tunables(kMadvise, "glibc.malloc.hugetlb=1"), std::nullopt);
}

TEST(HugePages, NoRestartWhenItCannotHelp) {
  EXPECT_EQ(huge_page_tunables("[always] madvise never\n", nullptr), std::nullopt);
  EXPECT_EQ(huge_page_tunables("always madvise [never]\n", nullptr), std::nullopt);
  EXPECT_EQ(huge_page_tunables("", nullptr), std::nullopt);  // no THP in this kernel
}

}  // namespace
}  // namespace shardsim
