// The best of several reports by QPS, cost or iteration time (metrics/best_report.hpp).
#include "shardsim/metrics/best_report.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace shardsim {
namespace {

Report report(int gpus, double qps, double iteration_s) {
  Report r;
  r.num_gpus = gpus;
  r.qps = qps;
  r.iteration_time.mean_s = iteration_s;
  r.iteration_times_s = {iteration_s};
  r.fits_in_memory = true;
  return r;
}

TEST(BestReport, QpsIsNotTheShortestIteration) {
  // 8 nodes: 64 GPUs at 10 ms; 16 nodes: 128 GPUs at 11 ms but 1.85x the QPS.
  const std::vector<Report> rs = {report(64, 1e6, 0.010), report(128, 1.85e6, 0.011)};
  EXPECT_EQ(best_report(rs, BestBy::qps), 1u);
  EXPECT_EQ(best_report(rs, BestBy::iteration), 0u);
}

TEST(BestReport, CostIsThePricePerMillionSamples) {
  std::vector<Report> rs = {report(64, 1e6, 0.010), report(128, 1.85e6, 0.011)};
  for (Report& r : rs) {
    r.cost = CostReport{};
    r.cost->price_per_gpu_hour = 2;
    r.cost->cost_per_million_samples = 2.0 * r.num_gpus / 3600 * (1e6 / r.qps);
  }
  EXPECT_EQ(default_best_by(rs), BestBy::cost);
  EXPECT_EQ(best_report(rs, BestBy::cost), 0u);  // 64 GPUs: 0.0356 vs 0.0384 per 1M samples
}

TEST(BestReport, SkipsPlansThatDoNotFitAndNeedsAMeasure) {
  std::vector<Report> rs = {report(64, 1e6, 0.010), report(128, 2e6, 0.011)};
  rs[1].fits_in_memory = false;
  EXPECT_EQ(default_best_by(rs), BestBy::qps);
  EXPECT_EQ(best_report(rs, BestBy::qps), 0u);
  EXPECT_FALSE(best_report(rs, BestBy::cost).has_value());  // no price
  rs[0].iteration_times_s.clear();                          // not simulated
  EXPECT_FALSE(best_report(rs, BestBy::qps).has_value());
}

TEST(BestReport, NamesRoundTrip) {
  for (const std::string& n : best_by_names()) {
    ASSERT_TRUE(best_by_from_name(n).has_value()) << n;
    EXPECT_EQ(best_by_name(*best_by_from_name(n)), n);
  }
  EXPECT_FALSE(best_by_from_name("fastest").has_value());
}

}  // namespace
}  // namespace shardsim
