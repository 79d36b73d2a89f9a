// The output of `shardsim compare`: text for people, JSON and CSV for scripts.
#include "shardsim/io/comparison_writer.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace shardsim {
namespace {

ReportSummary summary(std::string planner, double qps) {
  ReportSummary s;
  s.scenario = "small";
  s.planner = std::move(planner);
  s.seed = 7;
  s.shardsim_version = "0.1.0";
  s.values[index_of(MetricId::fits_in_memory)] = 1;
  s.values[index_of(MetricId::qps)] = qps;
  s.values[index_of(MetricId::iteration_time_mean_s)] = 1.0 / qps;
  s.values[index_of(MetricId::memory_max_bytes)] = 12.5e9;
  s.origin = "x.json";
  return s;
}

// table_wise: QPS 1000 -> 950 (regressed); row_wise: 1000 -> 1100 (improved); data_parallel:
// baseline only; "a,b" (a planner name with a comma): candidate only.
Comparison sample() {
  const std::vector<ReportSummary> b{summary("table_wise", 1000), summary("row_wise", 1000),
                                     summary("data_parallel", 1000)};
  const std::vector<ReportSummary> c{summary("table_wise", 950), summary("row_wise", 1100),
                                     summary("a,b", 1)};
  return compare_reports(b, c);
}

TEST(ComparisonWriter, TextNamesRegressionsWithScenarioAndMetric) {
  std::ostringstream out;
  write_comparison_text(out, sample());
  const std::string s = out.str();
  EXPECT_NE(s.find("[1/4] small | planner table_wise | seed 7: REGRESSED"), std::string::npos) << s;
  EXPECT_NE(s.find("[2/4] small | planner row_wise | seed 7: improved"), std::string::npos) << s;
  EXPECT_NE(s.find("BASELINE ONLY"), std::string::npos) << s;
  EXPECT_NE(s.find("CANDIDATE ONLY"), std::string::npos) << s;
  // The table: metric, baseline, candidate, change, tolerance, verdict.
  EXPECT_NE(s.find("metric"), std::string::npos);
  EXPECT_NE(s.find("qps"), std::string::npos);
  EXPECT_NE(s.find("-5.00%"), std::string::npos) << s;
  EXPECT_NE(s.find("+10.00%"), std::string::npos) << s;
  EXPECT_NE(s.find("12.500 GB"), std::string::npos) << s;
  // The summary lists each regression by scenario / planner and metric.
  const std::size_t listed = s.find("\nregressed:\n");
  ASSERT_NE(listed, std::string::npos) << s;
  EXPECT_NE(s.find("\n  small / table_wise: qps 1,000 -> 950 (-5.00%, tolerance 1%)\n", listed),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("result: FAILED (exit 1)"), std::string::npos);
}

TEST(ComparisonWriter, JsonCarriesEveryPairAndMetric) {
  const auto j = comparison_to_json(sample());
  EXPECT_EQ(j["result"], "failed");
  EXPECT_EQ(j["counts"]["pairs"], 4);
  EXPECT_EQ(j["counts"]["regressed"], 1);
  EXPECT_EQ(j["counts"]["improved"], 1);
  EXPECT_EQ(j["counts"]["baseline_only"], 1);
  EXPECT_EQ(j["counts"]["candidate_only"], 1);
  const auto& p = j["pairs"][0];
  EXPECT_EQ(p["planner"], "table_wise");
  EXPECT_EQ(p["status"], "compared");
  EXPECT_EQ(p["verdict"], "regressed");
  EXPECT_TRUE(p["sweep_point"].is_null());
  bool found = false;
  for (const auto& m : p["metrics"]) {
    if (m["metric"] != "qps") continue;
    found = true;
    EXPECT_EQ(m["better"], "higher");
    EXPECT_EQ(m["baseline"], 1000.0);
    EXPECT_EQ(m["candidate"], 950.0);
    EXPECT_DOUBLE_EQ(m["change"].get<double>(), -0.05);
    EXPECT_EQ(m["verdict"], "regressed");
    EXPECT_TRUE(m["standard_error"].is_null());
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(j["pairs"][2]["status"], "baseline_only");
  EXPECT_TRUE(j["pairs"][2]["metrics"].empty());
}

TEST(ComparisonWriter, CsvHasOneRowPerMetricAndPerUncomparedPair) {
  std::ostringstream out;
  write_comparison_csv(out, sample());
  std::istringstream in(out.str());
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // header + 2 compared pairs x 4 metrics (fits, iteration mean, qps, memory) + 2 unmatched.
  ASSERT_EQ(lines.size(), 1u + 2 * 4 + 2);
  EXPECT_EQ(lines[0],
            "scenario,planner,sweep_point,seeds,status,metric,better,baseline,candidate,change,"
            "tolerance,standard_error,verdict,note");
  EXPECT_EQ(lines[3], "small,table_wise,,7,compared,qps,higher,1000,950,-0.05,0.01,,regressed,");
  EXPECT_EQ(lines.back().rfind("small,\"a,b\",,7,candidate_only,,,,,,,,,no baseline report", 0), 0u)
      << lines.back();
}

}  // namespace
}  // namespace shardsim
