// The torchrec planner on a model twice the cluster's HBM (scenarios/memory-tiers.yaml): with
// the preset's host memory it enumerates TorchRec's UVM kernels, and its plan keeps tables in
// host memory behind HBM caches (fused_uvm_caching) and runs (docs/planners.md, "torchrec").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace shardsim {
namespace torchrec_memory_tiers_cli_test {

const std::string kScenario = SHARDSIM_SOURCE_DIR "/scenarios/memory-tiers.yaml";

TEST(TorchrecMemoryTiersCli, TorchrecKeepsTablesInHostMemoryAndRuns) {
  std::string err;
  const auto r = testing::run(
      "run " + kScenario + " --set placement.planner=torchrec --format json --quiet", &err);
  ASSERT_EQ(r.code, 0) << err;
  // One planner: one report, not a list of them.
  const nlohmann::json rep = nlohmann::json::parse(r.out);
  EXPECT_EQ(rep["planner"], "torchrec");
  EXPECT_TRUE(rep["fits_in_memory"].get<bool>());
  double host = 0, cache = 0, link = 0;
  for (const auto& g : rep["per_gpu"]) {
    host += g["host_memory_bytes"].get<double>();
    cache += g["cache_bytes"].get<double>();
    link += g["host_link_bytes"].get<double>();
    EXPECT_LE(g["memory_bytes"].get<double>(), g["memory_capacity_bytes"].get<double>());
  }
  // At least the 614 GB - 320 GB that HBM cannot hold lives in host memory.
  EXPECT_GT(host, 294e9);
  EXPECT_GT(cache, 0.0);
  EXPECT_GT(link, 0.0);
}

TEST(TorchrecMemoryTiersCli, ItsStatisticsShowTheDdrOfEachRank) {
  const auto r = testing::run("plan " + kScenario + " --planner torchrec --stats");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("DDR imbalance"), std::string::npos) << r.out;
  // host_tables: never keeps every table in HBM: no plan fits (exit 3).
  const auto never = testing::run("run " + kScenario +
                                  " --quiet --set placement.planner=torchrec"
                                  " --set 'placement.options={host_tables: never}'");
  EXPECT_EQ(never.code, 3);
}

}  // namespace torchrec_memory_tiers_cli_test
}  // namespace shardsim
