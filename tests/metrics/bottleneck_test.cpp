// What bounds an iteration (metrics/bottleneck.hpp), against hand-made breakdowns.
#include "shardsim/metrics/bottleneck.hpp"

#include <gtest/gtest.h>

#include "shardsim/sim/task.hpp"

namespace shardsim {
namespace {

Report with_breakdown(std::vector<PhaseTime> phases, double iteration_s) {
  Report r;
  r.fits_in_memory = true;
  r.iteration_time.mean_s = iteration_s;
  r.breakdown = std::move(phases);
  return r;
}

TEST(Bottleneck, TheKindWithTheMostExposedTimeSummedOverItsPhases) {
  // AlltoAll 3 + 2 = 5 ms beats the single largest phase, the 4 ms top MLP backward (dense: 4 + 1).
  const Report r = with_breakdown({{"alltoall_fwd", 3e-3, 3e-3, 0},
                                   {"top_mlp_bwd", 4e-3, 4e-3, 0},
                                   {"alltoall_bwd", 2e-3, 2e-3, 0},
                                   {"bottom_mlp_fwd", 1e-3, 1e-3, 0},
                                   {"idle", 0, 1e-3, 0}},
                                  11e-3);
  const auto b = report_bottleneck(r);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->kind, "alltoall");
  EXPECT_DOUBLE_EQ(b->exposed_s, 5e-3);
  EXPECT_DOUBLE_EQ(b->share, 5.0 / 11.0);
  EXPECT_EQ(bottleneck_text(r), "AlltoAll fwd+bwd 45%");
}

TEST(Bottleneck, HostBoundSaysTheHostStepAndItsExposedShare) {
  const Report r =
      with_breakdown({{"top_mlp_fwd", 1e-3, 1e-3, 0}, {"host_step", 2.7e-3, 1.7e-3, 0}}, 2.7e-3);
  EXPECT_EQ(report_bottleneck(r)->kind, "host");
  EXPECT_EQ(bottleneck_text(r), "host-bound: 2.700 ms host step, 63% exposed");
}

TEST(Bottleneck, SerializedTimeHiddenUnderOtherWorkDoesNotCount) {
  // The AlltoAll ran 9 ms but overlapped: only its 0.5 ms exposed counts.
  const Report r = with_breakdown(
      {{"alltoall_fwd", 9e-3, 0.5e-3, 0}, {"embedding_lookup_fwd", 2e-3, 2e-3, 0}}, 2.5e-3);
  EXPECT_EQ(report_bottleneck(r)->kind, "embedding");
}

TEST(Bottleneck, NoneWithoutASimulation) {
  Report r = with_breakdown({{"alltoall_fwd", 1, 1, 0}}, 1);
  r.fits_in_memory = false;
  EXPECT_FALSE(report_bottleneck(r));
  EXPECT_EQ(bottleneck_text(r), "n/a");
  EXPECT_FALSE(report_bottleneck(with_breakdown({}, 1)));
}

TEST(Bottleneck, EveryPhaseBelongsToExactlyOneKind) {
  for (int p = 0; p <= kNumPhases; ++p) {
    const std::string phase = p < kNumPhases ? to_string(static_cast<Phase>(p)) : "idle";
    int kinds = 0;
    for (const BottleneckKind& k : kBottleneckKinds) {
      const std::string list = " " + std::string(k.phases) + " ";
      kinds += list.find(" " + phase + " ") != std::string::npos;
    }
    EXPECT_EQ(kinds, 1) << phase;
  }
}

}  // namespace
}  // namespace shardsim
