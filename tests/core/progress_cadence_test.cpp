// The progress cadence and its test hook (core/progress_cadence.hpp): SHARDSIM_PROGRESS_INTERVAL_MS
// replaces the default when it is a whole number of milliseconds, and is ignored otherwise.
#include "shardsim/core/progress_cadence.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace shardsim {
namespace {

using std::chrono::milliseconds;

milliseconds with_environment(const char* value) {
  if (value == nullptr) {
    ::unsetenv("SHARDSIM_PROGRESS_INTERVAL_MS");
  } else {
    ::setenv("SHARDSIM_PROGRESS_INTERVAL_MS", value, 1);
  }
  const milliseconds m = progress_interval(milliseconds(2000));
  ::unsetenv("SHARDSIM_PROGRESS_INTERVAL_MS");
  return m;
}

TEST(ProgressCadence, AWholeNumberReplacesTheDefaultAndAnythingElseIsIgnored) {
  EXPECT_EQ(with_environment(nullptr), milliseconds(2000));
  EXPECT_EQ(with_environment(""), milliseconds(2000));
  EXPECT_EQ(with_environment("0"), milliseconds(0));
  EXPECT_EQ(with_environment("150"), milliseconds(150));
  EXPECT_EQ(with_environment("soon"), milliseconds(2000));
  EXPECT_EQ(with_environment("-5"), milliseconds(2000));
  EXPECT_EQ(with_environment("1.5"), milliseconds(2000));
  EXPECT_EQ(with_environment("1234567890"), milliseconds(2000));  // over 9 digits: not trusted
}

}  // namespace
}  // namespace shardsim
