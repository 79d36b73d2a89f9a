// InputHashes of loaded scenarios: what `compare` uses to call a baseline stale.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/scenario_yaml.hpp"
#include "shardsim/core/embedded_configs.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {
namespace {

const char* kScenario = R"(name: hashed
cluster: {preset: dgx-a100, nodes: 1}
model:
  tables:
    - {name: a, rows: 100000, dim: 32, pooling: 4, alpha: 1.05}
  bottom_mlp: [64, 32]
  top_mlp: [64, 1]
workload: {batch_per_gpu: 1024, iterations: 3, warmup: 1, seed: 7}
placement: {planner: table_wise}
)";

TEST(ScenarioHashes, EveryHashIsSet) {
  const Scenario s = load_scenario_text(kScenario, "a.yaml");
  EXPECT_EQ(s.hashes.scenario.rfind("fnv1a64:", 0), 0u);
  EXPECT_EQ(s.hashes.hardware.rfind("fnv1a64:", 0), 0u);
  EXPECT_EQ(s.hashes.cost.rfind("fnv1a64:", 0), 0u);
}

TEST(ScenarioHashes, SameDocumentAnywhereGivesTheSameHashes) {
  const Scenario a = load_scenario_text(kScenario, "a.yaml");
  // Reformatted, commented, keys reordered, numbers respelled, another file name.
  const std::string other = R"(# the same scenario
placement: {planner: table_wise}
workload: {seed: 7, batch_per_gpu: 1024, iterations: 3, warmup: 1}
name: hashed
cluster:
  nodes: 1
  preset: dgx-a100
model:
  top_mlp: [64, 1]
  bottom_mlp: [64, 32]
  tables:
    - {alpha: 1.05, name: a, rows: 1e5, dim: 32, pooling: 4}
)";
  const Scenario b = load_scenario_text(other, "elsewhere/b.yaml");
  EXPECT_EQ(a.hashes, b.hashes);
}

TEST(ScenarioHashes, OverridesChangeTheScenarioHashOnly) {
  const Scenario a = load_scenario_text(kScenario, "a.yaml");
  const Scenario b = load_scenario_text(kScenario, "a.yaml", {{"workload.batch_per_gpu", "2048"}});
  EXPECT_NE(a.hashes.scenario, b.hashes.scenario);
  EXPECT_EQ(a.hashes.hardware, b.hashes.hardware);
  EXPECT_EQ(a.hashes.cost, b.hashes.cost);
  // Cost and cluster overrides are part of the scenario document.
  const Scenario c =
      load_scenario_text(kScenario, "a.yaml", {{"cost.collective_launch_s", "2e-5"}});
  EXPECT_NE(a.hashes.scenario, c.hashes.scenario);
  EXPECT_EQ(a.hashes.cost, c.hashes.cost);
  const Scenario d = load_scenario_text(kScenario, "a.yaml", {{"workload.seed", "8"}});
  EXPECT_NE(a.hashes.scenario, d.hashes.scenario);
}

TEST(ScenarioHashes, HardwareHashIsThePresetFile) {
  const Scenario a = load_scenario_text(kScenario, "a.yaml");
  const Scenario h = load_scenario_text(kScenario, "a.yaml", {{"cluster.preset", "dgx-h100"}});
  EXPECT_NE(a.hashes.hardware, h.hashes.hardware);
  // The same preset as a file of one's own: the same hash, since it is the same document.
  const auto text = find_embedded_config("hardware/dgx-a100.yaml");
  ASSERT_TRUE(text);
  const std::string dir = ::testing::TempDir() + "/shardsim_hash_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/mine.yaml") << "# my copy\n" << *text;
  std::string yaml = kScenario;
  yaml.replace(yaml.find("preset: dgx-a100"), 16, "preset_file: mine.yaml");
  const Scenario f = load_scenario_text(yaml, dir + "/s.yaml");
  EXPECT_EQ(a.hashes.hardware, f.hashes.hardware);
  std::string changed(*text);
  changed.replace(changed.find("reserved_memory_GiB: 3 "), 23, "reserved_memory_GiB: 4 ");
  std::ofstream(dir + "/mine.yaml") << changed;
  EXPECT_NE(a.hashes.hardware, load_scenario_text(yaml, dir + "/s.yaml").hashes.hardware);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shardsim
