#include "shardsim/core/parallel_for.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardsim {
namespace {

TEST(ParallelFor, RunsEveryIndexOnceWhateverTheJobs) {
  for (int jobs : {1, 2, 4, 100}) {
    std::vector<std::atomic<int>> hits(1000);
    parallel_for(hits.size(), jobs, [&](std::size_t i) { ++hits[i]; });
    for (const auto& h : hits) ASSERT_EQ(h.load(), 1) << "jobs " << jobs;
  }
  parallel_for(0, 4, [](std::size_t) { FAIL() << "no index in an empty range"; });
}

// Indices 300 and 700 fail: a sequential loop stops at 300, and so does every thread count.
TEST(ParallelFor, RethrowsTheErrorOfTheLowestFailingIndex) {
  for (int jobs : {1, 2, 8}) {
    std::atomic<int> ran_after{0};
    try {
      parallel_for(1000, jobs, [&](std::size_t i) {
        if (i == 300 || i == 700) throw std::runtime_error("index " + std::to_string(i));
        if (i > 700) ++ran_after;
      });
      FAIL() << "no error rethrown";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "index 300") << "jobs " << jobs;
    }
    if (jobs == 1) {
      EXPECT_EQ(ran_after.load(), 0);  // nothing handed out after the error
    }
  }
}

}  // namespace
}  // namespace shardsim
