// Plan statistics as text and JSON: layout rules of docs/report.md, "Plan statistics".
#include "shardsim/io/plan_stats_writer.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace shardsim {
namespace {

PlanStats stats_of(int gpus) {
  PlanStats st;
  st.planner = "p";
  st.num_gpus = gpus;
  for (int g = 0; g < gpus; ++g) {
    GpuPlanStats s;
    s.gpu = g;
    s.node = g / 8;
    s.hbm_capacity_bytes = 80e9;
    s.hbm_used_bytes = 40e9 + g * 1e9;
    s.lookups = 1000 + g;
    s.fwd_compute_s = 1e-3;
    s.shards_by_kind[static_cast<int>(ShardKind::table_wise)] = 2;
    s.shards_by_kind[static_cast<int>(ShardKind::column_wise)] = g % 2;
    st.gpus.push_back(s);
  }
  st.memory_bytes = {40e9, 40e9 + (gpus - 1) * 0.5e9, 40e9 + (gpus - 1) * 1e9, 0, gpus - 1, 40e9};
  return st;
}

TEST(PlanStatsWriter, TextShowsEveryGpuUpTo16ThenHeadTailAndExtremes) {
  std::ostringstream small;
  write_plan_stats_text(small, stats_of(4));
  EXPECT_NE(small.str().find("2 TW 1 CW"), std::string::npos) << small.str();
  EXPECT_NE(small.str().find("50.0"), std::string::npos);  // 40 GB of 80: 50.0 %
  std::ostringstream big;
  write_plan_stats_text(big, stats_of(40));
  const std::string t = big.str();
  EXPECT_NE(t.find("..."), std::string::npos) << t;
  EXPECT_NE(t.find("79.00 @g39"), std::string::npos) << t;  // max HBM GB on GPU 39
  EXPECT_NE(t.find("memory GB"), std::string::npos) << t;
  EXPECT_NE(t.find("97.5%"), std::string::npos) << t;  // gap: 79 / 40 - 1
}

TEST(PlanStatsWriter, JsonHasOneArrayPerFieldAndTheBalance) {
  const auto j = plan_stats_to_json(stats_of(3));
  EXPECT_EQ(j["planner"], "p");
  EXPECT_EQ(j["per_gpu"]["gpu"].size(), 3u);
  EXPECT_EQ(j["per_gpu"]["shards_column_wise"][1], 1);
  EXPECT_EQ(j["per_gpu"]["hbm_used_bytes"][2], 42e9);
  EXPECT_DOUBLE_EQ(j["balance"]["memory_bytes"]["max_minus_min"].get<double>(), 2e9);
  EXPECT_NEAR(j["balance"]["memory_bytes"]["gap_to_bound"].get<double>(), 0.05,
              1e-15);                                               // 42/40 - 1
  EXPECT_TRUE(j["balance"]["lookups"]["max_over_mean"].is_null());  // mean 0: nothing measured
  EXPECT_EQ(j["shards_by_kind"]["table_wise"], 0);                  // the totals were not set here
  EXPECT_FALSE(j.contains("planner_counts"));  // only where the planner counted something
}

TEST(PlanStatsWriter, ThePlannersCountsInItsOrderInJsonAndText) {
  PlanStats st = stats_of(2);
  st.planner_counts = {{"cache_queries", 40}, {"cache_hits", 38}};
  const auto j = plan_stats_to_json(st);
  ASSERT_TRUE(j.contains("planner_counts"));
  EXPECT_EQ(j["planner_counts"].dump(), R"({"cache_queries":40,"cache_hits":38})");
  std::ostringstream text;
  write_plan_stats_text(text, st);
  EXPECT_NE(text.str().find("the planner's own counts: cache_queries 40, cache_hits 38"),
            std::string::npos)
      << text.str();
  std::ostringstream none;
  write_plan_stats_text(none, stats_of(2));
  EXPECT_EQ(none.str().find("own counts"), std::string::npos);
}

}  // namespace
}  // namespace shardsim
