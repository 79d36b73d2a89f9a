// A model twice the cluster's HBM runs with tables in host memory (issue 16, memory tiers):
// scenarios/memory-tiers.yaml.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace shardsim {
namespace memory_tiers_cli_test {

const std::string kScenario = SHARDSIM_SOURCE_DIR "/scenarios/memory-tiers.yaml";

TEST(MemoryTiersCli, AModelTwiceTheHbmRunsWithCachedTables) {
  std::string err;
  const auto r = testing::run("run " + kScenario + " --format json --quiet", &err);
  ASSERT_EQ(r.code, 0) << err;
  const nlohmann::json reports = nlohmann::json::parse(r.out)["reports"];
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& rep : reports) {
    EXPECT_TRUE(rep["fits_in_memory"].get<bool>()) << rep["planner"];
    double host = 0, cache = 0, link = 0;
    for (const auto& g : rep["per_gpu"]) {
      host += g["host_memory_bytes"].get<double>();
      cache += g["cache_bytes"].get<double>();
      link += g["host_link_bytes"].get<double>();
      EXPECT_LE(g["memory_bytes"].get<double>(), g["memory_capacity_bytes"].get<double>());
    }
    // At least the 614 GB - 320 GB that HBM cannot hold lives in host memory.
    EXPECT_GT(host, 294e9) << rep["planner"];
    EXPECT_GT(cache, 0.0) << rep["planner"];
    EXPECT_GT(link, 0.0) << rep["planner"];
  }
  // The text report says so.
  const auto text = testing::run("run " + kScenario + " --set placement.planner=memory_greedy");
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("host memory"), std::string::npos) << text.out;
}

TEST(MemoryTiersCli, WithoutHostTablesTheModelDoesNotFit) {
  const auto never = testing::run("run " + kScenario +
                                  " --quiet --set placement.planner=memory_greedy"
                                  " --set 'placement.options={host_tables: never}'");
  EXPECT_EQ(never.code, 3);
  const auto no_host_link = testing::run(
      "run " + kScenario +
      " --quiet --set placement.planner=hybrid --set 'placement.options={cache_fraction: 1.5}'");
  EXPECT_EQ(no_host_link.code, 2);
}

}  // namespace memory_tiers_cli_test
}  // namespace shardsim
