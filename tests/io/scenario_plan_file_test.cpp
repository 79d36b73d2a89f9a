// `placement.file`: a plan file next to the scenario, alone or after the planners.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "scenario_test_helpers.hpp"

namespace shardsim {
namespace {

using test::expect_input_error;
using test::tiny_with;

TEST(ScenarioPlanFile, ResolvedAgainstTheScenarioFolder) {
  const std::string dir =
      ::testing::TempDir() + "/scenario_plan_file_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir + "/plans");
  std::ofstream(dir + "/plans/p.yaml") << "tables: {a: [{gpu: 0}], b: [{gpu: 1}]}\n";
  const Scenario s = load_scenario_text(tiny_with(17, "  file: plans/p.yaml"), dir + "/tiny.yaml");
  EXPECT_TRUE(s.placement.planners.empty());
  EXPECT_TRUE(std::filesystem::equivalent(s.placement.plan_file, dir + "/plans/p.yaml"));
  EXPECT_EQ(s.placement.plan_file_location.line, 17);
  const Scenario both = load_scenario_text(
      tiny_with(17, "  planner: table_wise\n  file: plans/p.yaml"), dir + "/tiny.yaml");
  EXPECT_EQ(both.placement.planners.size(), 1u);
  EXPECT_FALSE(both.placement.plan_file.empty());
  std::filesystem::remove_all(dir);
}

TEST(ScenarioPlanFile, MissingFileAndOptionsWithoutPlanner) {
  expect_input_error(tiny_with(17, "  file: nowhere.yaml"), 17, "placement.file", "no plan file");
  expect_input_error(tiny_with(17, "  fil: p.yaml"), 17, "placement.fil", "did you mean 'file'");
}

}  // namespace
}  // namespace shardsim
