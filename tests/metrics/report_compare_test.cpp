// compare_reports: matching, staleness and verdicts on hand-built report summaries.
#include "shardsim/metrics/report_compare.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "shardsim/core/error.hpp"

namespace shardsim {
namespace {

// A report summary with round numbers: every metric present.
ReportSummary summary(std::string planner = "table_wise", std::uint64_t seed = 42) {
  ReportSummary s;
  s.scenario = "small";
  s.planner = std::move(planner);
  s.seed = seed;
  s.setup = {{"mode", "training"}, {"num_gpus", "8"}};
  s.shardsim_version = "0.1.0";
  s.input_hashes = {"fnv1a64:0000000000000001", "fnv1a64:0000000000000002",
                    "fnv1a64:0000000000000003"};
  s.values[index_of(MetricId::fits_in_memory)] = 1;
  s.values[index_of(MetricId::iteration_time_mean_s)] = 0.010;
  s.values[index_of(MetricId::iteration_time_p99_s)] = 0.012;
  s.values[index_of(MetricId::qps)] = 1000;
  s.values[index_of(MetricId::imbalance_ratio)] = 1.25;
  s.values[index_of(MetricId::degree_of_balance)] = 0.8;
  s.values[index_of(MetricId::memory_max_bytes)] = 40e9;
  s.values[index_of(MetricId::comm_total_bytes)] = 1e9;
  s.values[index_of(MetricId::comm_max_gpu_bytes)] = 2e8;
  s.origin = "test";
  return s;
}

const MetricComparison* find(const PairComparison& p, MetricId id) {
  for (const MetricComparison& m : p.metrics) {
    if (m.metric == id) return &m;
  }
  return nullptr;
}

Comparison compare_one(const ReportSummary& b, const ReportSummary& c,
                       const CompareOptions& options = {}) {
  const std::vector<ReportSummary> base{b};
  const std::vector<ReportSummary> cand{c};
  return compare_reports(base, cand, options);
}

TEST(ReportCompare, IdenticalReportsPass) {
  const Comparison r = compare_one(summary(), summary());
  ASSERT_EQ(r.pairs.size(), 1u);
  const PairComparison& p = r.pairs[0];
  EXPECT_EQ(p.status, PairStatus::compared);
  // Every metric but planning time (neither side has it) is compared.
  EXPECT_EQ(p.metrics.size(), kMetricCount - 1);
  for (const MetricComparison& m : p.metrics) {
    EXPECT_EQ(m.verdict, Verdict::ok) << metric_info(m.metric).name;
    EXPECT_EQ(m.change, 0);
  }
  EXPECT_FALSE(r.failed());
  EXPECT_TRUE(p.notes.empty());
}

TEST(ReportCompare, PlantedFivePercentQpsRegressionFails) {
  ReportSummary c = summary();
  c.values[index_of(MetricId::qps)] = 950;  // 1000 -> 950: -5%, tolerance 1%
  const Comparison r = compare_one(summary(), c);
  const MetricComparison* qps = find(r.pairs[0], MetricId::qps);
  ASSERT_NE(qps, nullptr);
  EXPECT_EQ(qps->verdict, Verdict::regressed);
  EXPECT_DOUBLE_EQ(qps->change, -0.05);
  EXPECT_DOUBLE_EQ(qps->tolerance, 0.01);
  EXPECT_EQ(find(r.pairs[0], MetricId::iteration_time_mean_s)->verdict, Verdict::ok);
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.pairs_with(Verdict::regressed), 1u);
}

TEST(ReportCompare, ImprovementsPassAndAreReported) {
  ReportSummary c = summary();
  c.values[index_of(MetricId::qps)] = 1050;                      // higher is better: +5%
  c.values[index_of(MetricId::iteration_time_mean_s)] = 0.0095;  // lower is better: -5%
  c.values[index_of(MetricId::memory_max_bytes)] = 36e9;         // -10%
  const Comparison r = compare_one(summary(), c);
  EXPECT_EQ(find(r.pairs[0], MetricId::qps)->verdict, Verdict::improved);
  EXPECT_EQ(find(r.pairs[0], MetricId::iteration_time_mean_s)->verdict, Verdict::improved);
  EXPECT_EQ(find(r.pairs[0], MetricId::memory_max_bytes)->verdict, Verdict::improved);
  EXPECT_FALSE(r.failed());
  EXPECT_EQ(r.pairs_with(Verdict::improved), 1u);
}

TEST(ReportCompare, DirectionDecidesWhichWayIsWorse) {
  ReportSummary c = summary();
  c.values[index_of(MetricId::iteration_time_p99_s)] = 0.0126;  // +5%, lower is better
  c.values[index_of(MetricId::degree_of_balance)] = 0.76;       // -5%, higher is better
  c.values[index_of(MetricId::imbalance_ratio)] = 1.3;          // +4%, lower is better
  c.values[index_of(MetricId::comm_total_bytes)] = 0.9e9;       // -10%, lower is better
  const Comparison r = compare_one(summary(), c);
  EXPECT_EQ(find(r.pairs[0], MetricId::iteration_time_p99_s)->verdict, Verdict::regressed);
  EXPECT_EQ(find(r.pairs[0], MetricId::degree_of_balance)->verdict, Verdict::regressed);
  EXPECT_EQ(find(r.pairs[0], MetricId::imbalance_ratio)->verdict, Verdict::regressed);
  EXPECT_EQ(find(r.pairs[0], MetricId::comm_total_bytes)->verdict, Verdict::improved);
}

TEST(ReportCompare, WithinToleranceIsOk) {
  ReportSummary c = summary();
  c.values[index_of(MetricId::qps)] = 995;               // -0.5% < 1%
  c.values[index_of(MetricId::imbalance_ratio)] = 1.26;  // +0.8% < 2%
  const Comparison r = compare_one(summary(), c);
  EXPECT_EQ(find(r.pairs[0], MetricId::qps)->verdict, Verdict::ok);
  EXPECT_NEAR(find(r.pairs[0], MetricId::qps)->change, -0.005, 1e-12);
  EXPECT_EQ(find(r.pairs[0], MetricId::imbalance_ratio)->verdict, Verdict::ok);
  EXPECT_FALSE(r.failed());
}

TEST(ReportCompare, ToleranceOptionsApply) {
  ReportSummary c = summary();
  c.values[index_of(MetricId::qps)] = 950;
  CompareOptions loose;
  loose.tolerance[index_of(MetricId::qps)] = 0.10;
  EXPECT_FALSE(compare_one(summary(), c, loose).failed());
  CompareOptions exact;
  exact.tolerance[index_of(MetricId::qps)] = 0;
  c.values[index_of(MetricId::qps)] = 999.999;
  EXPECT_TRUE(compare_one(summary(), c, exact).failed());
}

TEST(ReportCompare, ZeroBaselineGivesInfiniteChange) {
  ReportSummary b = summary();
  b.values[index_of(MetricId::comm_total_bytes)] = 0;
  ReportSummary c = b;
  EXPECT_EQ(find(compare_one(b, c).pairs[0], MetricId::comm_total_bytes)->change, 0);
  c.values[index_of(MetricId::comm_total_bytes)] = 100;
  const Comparison m_result = compare_one(b, c);
  const MetricComparison* m = find(m_result.pairs[0], MetricId::comm_total_bytes);
  EXPECT_TRUE(std::isinf(m->change) && m->change > 0);
  EXPECT_EQ(m->verdict, Verdict::regressed);
}

TEST(ReportCompare, PlanThatStopsFittingRegresses) {
  ReportSummary c = summary();
  c.values[index_of(MetricId::fits_in_memory)] = 0;
  c.values[index_of(MetricId::qps)].reset();  // never simulated
  c.values[index_of(MetricId::iteration_time_mean_s)].reset();
  const Comparison r = compare_one(summary(), c);
  EXPECT_EQ(find(r.pairs[0], MetricId::fits_in_memory)->verdict, Verdict::regressed);
  const MetricComparison* qps = find(r.pairs[0], MetricId::qps);
  EXPECT_EQ(qps->verdict, Verdict::missing);
  EXPECT_EQ(qps->baseline, 1000);
  EXPECT_FALSE(qps->candidate);
  EXPECT_EQ(qps->note, "the candidate does not have it");
  EXPECT_TRUE(r.failed());
  // The other way round it is an improvement.
  EXPECT_EQ(find(compare_one(c, summary()).pairs[0], MetricId::fits_in_memory)->verdict,
            Verdict::improved);
}

TEST(ReportCompare, MissingMetricIsReportedButDoesNotFail) {
  ReportSummary c = summary();
  c.values[index_of(MetricId::degree_of_balance)].reset();
  const Comparison r = compare_one(summary(), c);
  EXPECT_EQ(find(r.pairs[0], MetricId::degree_of_balance)->verdict, Verdict::missing);
  EXPECT_FALSE(r.failed());
  // Absent on both sides: no row at all.
  ReportSummary b = summary();
  b.values[index_of(MetricId::degree_of_balance)].reset();
  EXPECT_EQ(find(compare_one(b, c).pairs[0], MetricId::degree_of_balance), nullptr);
}

TEST(ReportCompare, PlanningTimeOnlyWhenBothHaveIt) {
  ReportSummary b = summary();
  b.values[index_of(MetricId::planning_time_s)] = 0.1;
  EXPECT_EQ(find(compare_one(b, summary()).pairs[0], MetricId::planning_time_s), nullptr);
  ReportSummary c = b;
  c.values[index_of(MetricId::planning_time_s)] = 0.2;  // +100% > 50%
  const Comparison m_result = compare_one(b, c);
  const MetricComparison* m = find(m_result.pairs[0], MetricId::planning_time_s);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->verdict, Verdict::regressed);
}

TEST(ReportCompare, StaleBaselineIsReportedNotCompared) {
  ReportSummary c = summary();
  c.input_hashes.scenario = "fnv1a64:00000000000000ff";
  c.values[index_of(MetricId::qps)] = 1;  // would regress, but is not compared
  Comparison r = compare_one(summary(), c);
  EXPECT_EQ(r.pairs[0].status, PairStatus::stale);
  EXPECT_TRUE(r.pairs[0].metrics.empty());
  EXPECT_EQ(r.pairs[0].reason, "the scenario document changed");
  EXPECT_TRUE(r.failed());

  c = summary();
  c.input_hashes.hardware = "fnv1a64:00000000000000ff";
  c.input_hashes.cost = "fnv1a64:00000000000000fe";
  c.setup[1].second = "16";
  r = compare_one(summary(), c);
  EXPECT_EQ(r.pairs[0].status, PairStatus::stale);
  EXPECT_EQ(r.pairs[0].reason,
            "the hardware preset changed; the cost parameters changed (num_gpus 8 vs 16)");
}

TEST(ReportCompare, VersionOnlyChangeIsNotStale) {
  ReportSummary c = summary();
  c.shardsim_version = "0.2.0";
  const Comparison r = compare_one(summary(), c);
  EXPECT_EQ(r.pairs[0].status, PairStatus::compared);
  ASSERT_EQ(r.pairs[0].notes.size(), 1u);
  EXPECT_NE(r.pairs[0].notes[0].find("0.1.0 vs 0.2.0"), std::string::npos);
  EXPECT_FALSE(r.failed());
}

TEST(ReportCompare, HashesOfAnotherAlgorithmOrAbsentAreNotCompared) {
  ReportSummary c = summary();
  c.input_hashes.scenario = "sha256:abcd";
  EXPECT_EQ(compare_one(summary(), c).pairs[0].status, PairStatus::compared);
  c = summary();
  c.input_hashes = {};
  const Comparison r = compare_one(summary(), c);
  EXPECT_EQ(r.pairs[0].status, PairStatus::compared);
  ASSERT_EQ(r.pairs[0].notes.size(), 1u);
  EXPECT_NE(r.pairs[0].notes[0].find("not checked"), std::string::npos);
}

TEST(ReportCompare, DifferentSetUpIsMismatched) {
  ReportSummary b = summary();
  ReportSummary c = summary();
  b.input_hashes = {};
  c.input_hashes = {};
  c.setup[0].second = "inference";
  const Comparison r = compare_one(b, c);
  EXPECT_EQ(r.pairs[0].status, PairStatus::mismatched);
  EXPECT_EQ(r.pairs[0].reason, "different set-up: mode training vs inference");
  EXPECT_TRUE(r.failed());
}

TEST(ReportCompare, DifferentSeedsAreMismatched) {
  const Comparison r = compare_one(summary("table_wise", 42), summary("table_wise", 43));
  EXPECT_EQ(r.pairs[0].status, PairStatus::mismatched);
  EXPECT_EQ(r.pairs[0].reason, "different seeds: baseline 42, candidate 43");
}

TEST(ReportCompare, UnmatchedReportsAreListedAndFailUnlessAllowed) {
  const std::vector<ReportSummary> base{summary("table_wise"), summary("row_wise")};
  const std::vector<ReportSummary> cand{summary("row_wise"), summary("data_parallel")};
  Comparison r = compare_reports(base, cand);
  ASSERT_EQ(r.pairs.size(), 3u);
  EXPECT_EQ(r.pairs[0].planner, "table_wise");
  EXPECT_EQ(r.pairs[0].status, PairStatus::baseline_only);
  EXPECT_EQ(r.pairs[1].planner, "row_wise");
  EXPECT_EQ(r.pairs[1].status, PairStatus::compared);
  EXPECT_EQ(r.pairs[2].planner, "data_parallel");
  EXPECT_EQ(r.pairs[2].status, PairStatus::candidate_only);
  EXPECT_TRUE(r.failed());
  CompareOptions allow;
  allow.allow_unmatched = true;
  r = compare_reports(base, cand, allow);
  EXPECT_FALSE(r.failed());
}

TEST(ReportCompare, SweepPointIsPartOfTheKey) {
  ReportSummary b = summary();
  b.sweep_point = "cluster.nodes=1";
  ReportSummary c = summary();
  c.sweep_point = "cluster.nodes=2";
  const Comparison r = compare_one(b, c);
  ASSERT_EQ(r.pairs.size(), 2u);
  EXPECT_EQ(r.pairs[0].status, PairStatus::baseline_only);
  EXPECT_EQ(r.pairs[1].status, PairStatus::candidate_only);
}

TEST(ReportCompare, DuplicateReportsOnOneSideAreBadInput) {
  const std::vector<ReportSummary> twice{summary(), summary()};
  const std::vector<ReportSummary> once{summary()};
  EXPECT_THROW(compare_reports(twice, once), InputError);
  EXPECT_THROW(compare_reports(once, twice), InputError);
}

// Several seeds: per-seed differences d_i = c_i - b_i, their mean and standard error
// SE = sd(d) / sqrt(n); a difference counts only beyond 2 SE (and beyond the tolerance).
std::vector<ReportSummary> seeds_with_qps(std::vector<double> qps) {
  std::vector<ReportSummary> out;
  for (std::size_t i = 0; i < qps.size(); ++i) {
    out.push_back(summary("table_wise", 42 + i));
    out.back().values[index_of(MetricId::qps)] = qps[i];
  }
  return out;
}

TEST(ReportCompare, SeveralSeedsConsistentShiftRegresses) {
  // d = -5, -3, -1: mean -3 (-0.3%), sd = sqrt((4 + 0 + 4) / 2) = 2, SE = 2 / sqrt(3) = 1.1547:
  // significant (2 SE = 2.309 < 3) but within the 1% tolerance.
  const auto b = seeds_with_qps({1000, 1000, 1000});
  const auto c = seeds_with_qps({995, 997, 999});
  const Comparison r = compare_reports(b, c);
  ASSERT_EQ(r.pairs.size(), 1u);
  EXPECT_EQ(r.pairs[0].seeds, (std::vector<std::uint64_t>{42, 43, 44}));
  const MetricComparison* qps = find(r.pairs[0], MetricId::qps);
  EXPECT_DOUBLE_EQ(*qps->baseline, 1000);
  EXPECT_DOUBLE_EQ(*qps->candidate, 997);
  EXPECT_NEAR(qps->standard_error, 2 / std::sqrt(3.0), 1e-12);
  EXPECT_EQ(qps->verdict, Verdict::ok);  // -0.3%: within the 1% tolerance
  // d = -50, -30, -10: mean -30 (-3%, beyond 1%), sd 20, SE = 20 / sqrt(3) = 11.547; 2 SE =
  // 23.09 < 30: significant.
  const auto c2 = seeds_with_qps({950, 970, 990});
  const Comparison qps2_result = compare_reports(b, c2);
  const MetricComparison* qps2 = find(qps2_result.pairs[0], MetricId::qps);
  EXPECT_NEAR(qps2->standard_error, 20 / std::sqrt(3.0), 1e-9);
  EXPECT_EQ(qps2->verdict, Verdict::regressed);
}

TEST(ReportCompare, SeveralSeedsNoisyDifferenceIsOk) {
  // d = -100, 0, +10: mean -30 (-3%, beyond 1%); deviations -70, 30, 40: sd = sqrt(7400 / 2)
  // = 60.83, SE = 35.12; 2 SE = 70.2 > 30: within the noise.
  const auto b = seeds_with_qps({1000, 1000, 1000});
  const auto c = seeds_with_qps({900, 1000, 1010});
  const Comparison qps_result = compare_reports(b, c);
  const MetricComparison* qps = find(qps_result.pairs[0], MetricId::qps);
  EXPECT_NEAR(qps->change, -0.03, 1e-12);
  EXPECT_NEAR(qps->standard_error, std::sqrt(7400.0 / 2) / std::sqrt(3.0), 1e-9);
  EXPECT_EQ(qps->verdict, Verdict::ok);
  EXPECT_EQ(qps->note, "beyond tolerance but within 2 standard errors");
  CompareOptions one_se;  // with k = 0.5: 0.5 SE = 17.6 < 30: a regression
  one_se.standard_errors = 0.5;
  EXPECT_EQ(find(compare_reports(b, c, one_se).pairs[0], MetricId::qps)->verdict,
            Verdict::regressed);
}

TEST(ReportCompare, SeveralSeedsUseTheSeedsWhereBothHaveTheMetric) {
  auto b = seeds_with_qps({1000, 1000, 1000});
  auto c = seeds_with_qps({900, 950, 990});
  b[0].values[index_of(MetricId::qps)].reset();  // seed 42 did not fit in the baseline
  c[0].values[index_of(MetricId::qps)].reset();
  const Comparison qps_result = compare_reports(b, c);
  const MetricComparison* qps = find(qps_result.pairs[0], MetricId::qps);
  EXPECT_DOUBLE_EQ(*qps->candidate, 970);  // mean of 950 and 990
  EXPECT_EQ(qps->note.rfind("over the 2 of 3 seeds where both have it", 0), 0u) << qps->note;
}

}  // namespace
}  // namespace shardsim
