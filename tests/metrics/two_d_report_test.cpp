// The 2D report fields (docs/report.md): the replica-sync summary beside §5 Eq. 1, per-group
// statistics, the sync in the breakdown, and the QPS scaling factor of a GPU sweep (§4.3).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "shardsim/cost/replica_sync_cost.hpp"
#include "shardsim/metrics/report_builder.hpp"
#include "shardsim/metrics/scaling_factor.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/plan/sync_window.hpp"
#include "shardsim/sim/simulation.hpp"
#include "support/sync_case.hpp"

namespace shardsim {
namespace {

using testing::SyncCase;  // support/sync_case.hpp

Plan two_d(const PlanningContext& ctx, OptionValues options) {
  return make_planner("two_d", std::move(options))->plan(ctx);
}

TEST(TwoDReport, ReplicaSyncSummaryMatchesEq1AndTheEngine) {
  // peers_in_host, M = 2 on 2-GPU hosts: each GPU holds 2 tables (520 MB); the sync of the
  // 2 peers on one host runs over the 100 GB/s NVSwitch link: 520 MB / 100 GB/s = 5.2 ms;
  // Eq. 1: 2 x 1.04 GB x 1 / (4 x 100 GB/s) = 5.2 ms.
  SyncCase c;
  const Plan p = two_d(c.ctx(), {{"groups", 2}, {"inner", "table_wise"}});
  const SimulationResult r = simulate(c.inputs(p));
  const Report rep =
      build_report({"s", "s", ""}, c.inputs(p), r, plan_memory(p, c.cluster, c.model, c.wl));
  ASSERT_TRUE(rep.replica_sync.has_value());
  EXPECT_EQ(rep.replica_sync->mode, "dense");
  EXPECT_EQ(rep.replica_sync->interval, 1);
  EXPECT_EQ(rep.replica_sync->peers, 2);
  EXPECT_DOUBLE_EQ(rep.replica_sync->bytes_per_sync, 4 * 260e6);
  EXPECT_DOUBLE_EQ(rep.replica_sync->max_gpu_bytes, 520e6);
  EXPECT_DOUBLE_EQ(rep.replica_sync->sync_Bps, 100e9);
  EXPECT_NEAR(rep.replica_sync->eq1_s, replica_sync_eq1_s(4 * 260e6, 2, 4, 100e9), 1e-15);
  EXPECT_NEAR(rep.replica_sync->eq1_s, 5.2e-3, 1e-15);
  EXPECT_NEAR(rep.replica_sync->simulated_s, 5.2e-3, 1e-12);
  // The sync is in the breakdown and in the phase maxima, and every group's slowest member
  // spends it.
  ASSERT_EQ(rep.groups.size(), 2u);
  for (const GroupReport& g : rep.groups) {
    EXPECT_EQ(g.num_gpus, 2);
    EXPECT_NEAR(g.sync_s, 5.2e-3, 1e-12);
    EXPECT_GE(g.imbalance_ratio, 1.0);
  }
  bool in_breakdown = false;
  for (const PhaseTime& ph : rep.breakdown) in_breakdown |= ph.phase == "embedding_replica_sync";
  EXPECT_TRUE(in_breakdown);
  bool in_max = false;
  for (const PhaseTime& ph : rep.phase_max) {
    if (ph.phase == "embedding_replica_sync") {
      in_max = true;
      EXPECT_NEAR(ph.serialized_s, 5.2e-3, 1e-12);
    }
  }
  EXPECT_TRUE(in_max);
}

// Issue 18: a sync interval longer than the measured window, or a window of part intervals, is
// refused (exit 2 with a hint), not reported with a QPS that never paid a sync or paid the wrong
// share of syncs; a window of whole intervals is reported.
TEST(TwoDReport, SyncIntervalBeyondTheMeasuredWindowIsRefused) {
  SyncCase c;
  c.wl.warmup = 1;
  c.wl.iterations = 5;
  // Refused for the plan (run_scenario, before simulating) as by the planner's own check
  // (validate, before planning): plan/sync_window.hpp.
  const Plan p = two_d(c.ctx(), {{"groups", 2}, {"inner", "table_wise"}, {"sync_interval", 100}});
  EXPECT_THROW(
      make_planner("two_d", {{"groups", 2}, {"inner", "table_wise"}, {"sync_interval", 100}})
          ->check(c.cluster, c.wl),
      InputError);
  try {
    check_sync_window(p, c.wl, "s");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "placement.options.sync_interval");
    EXPECT_NE(std::string(e.problem()).find("5 measured iterations"), std::string::npos)
        << e.problem();
    EXPECT_NE(std::string(e.hint()).find("--iterations 100"), std::string::npos) << e.hint();
  }
  // Part intervals: 6 measured iterations of an interval of 4 hold 1 sync (after iteration 3;
  // warm-up 1) where their share is 1.5: refused, pointing at 8 iterations.
  c.wl.iterations = 6;
  const Plan part = two_d(c.ctx(), {{"groups", 2}, {"inner", "table_wise"}, {"sync_interval", 4}});
  try {
    check_sync_window(part, c.wl, "s");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.problem()).find("hold 1 sync(s) where their share is 1.5"),
              std::string::npos)
        << e.problem();
    EXPECT_NE(std::string(e.hint()).find("--iterations 8"), std::string::npos) << e.hint();
  }
  c.wl.iterations = 4;  // syncs after iteration 3 (0-based, warm-up included): measured
  const Plan q = two_d(c.ctx(), {{"groups", 2}, {"inner", "table_wise"}, {"sync_interval", 4}});
  const Report rep = build_report({"s", "s", ""}, c.inputs(q), simulate(c.inputs(q)),
                                  plan_memory(q, c.cluster, c.model, c.wl));
  ASSERT_TRUE(rep.replica_sync.has_value());
  EXPECT_EQ(rep.replica_sync->interval, 4);
  EXPECT_GT(rep.replica_sync->simulated_s, 0);
}

TEST(TwoDReport, OneGroupHasNoGroupsAndNoSync) {
  SyncCase c;
  const Plan p = two_d(c.ctx(), {{"groups", 1}, {"inner", "table_wise"}});
  const SimulationResult r = simulate(c.inputs(p));
  const Report rep =
      build_report({"s", "s", ""}, c.inputs(p), r, plan_memory(p, c.cluster, c.model, c.wl));
  EXPECT_FALSE(rep.replica_sync.has_value());
  EXPECT_TRUE(rep.groups.empty());
}

Report point(const std::string& planner, int gpus, double qps, std::uint64_t seed = 1) {
  Report r;
  r.planner = planner;
  r.sweep_point = "cluster.nodes=" + std::to_string(gpus / 8);
  r.num_gpus = gpus;
  r.seed = seed;
  r.qps = qps;
  r.fits_in_memory = true;
  r.iteration_times_s = {1.0};
  return r;
}

TEST(ScalingFactor, IsTheQpsSpeedUpOverTheGpuMultiplier) {
  // 2D §4.3: 256 -> 512 GPUs, 1.76e5 -> 3.56e5 QPS: (3.56 / 1.76) / 2 = 1.0114; a point that
  // does not fit has none; each planner is scaled against its own first point.
  std::vector<Report> rs = {point("hybrid", 256, 1.76e5), point("two_d", 256, 2e5),
                            point("hybrid", 512, 3.56e5), point("two_d", 1024, 6e5),
                            point("hybrid", 1024, 0)};
  rs[4].fits_in_memory = false;
  rs[4].iteration_times_s.clear();
  assign_scaling_factors(rs);
  EXPECT_TRUE(std::isnan(rs[0].scaling_factor));
  EXPECT_TRUE(std::isnan(rs[1].scaling_factor));
  EXPECT_NEAR(rs[2].scaling_factor, (3.56 / 1.76) / 2, 1e-12);
  EXPECT_NEAR(rs[3].scaling_factor, 3.0 / 4, 1e-12);
  EXPECT_TRUE(std::isnan(rs[4].scaling_factor));
}

TEST(ScalingFactor, NeedsASweepOverTheGpuCount) {
  // Not a sweep point, or the same GPU count as the reference (the sweep varies something else).
  std::vector<Report> rs = {point("two_d", 256, 1e5), point("two_d", 256, 2e5)};
  Report single = point("two_d", 512, 2e5);
  single.sweep_point.clear();
  rs.push_back(single);
  assign_scaling_factors(rs);
  for (const Report& r : rs) EXPECT_TRUE(std::isnan(r.scaling_factor));
}

}  // namespace
}  // namespace shardsim
