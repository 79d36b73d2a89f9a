// `workload.trace`: the synthetic-trace keys and `file` (docs/scenario.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "scenario_test_helpers.hpp"

namespace shardsim::test {
namespace {

namespace fs = std::filesystem;

// Line 15 of the tiny scenario is batch_per_gpu; the trace block goes right after it (line 16).
std::string with_trace(const std::string& trace) {
  return tiny_with(15, "  batch_per_gpu: 512\n  trace: " + trace);
}

TEST(ScenarioTrace, SyntheticKeysAndTheirDefaults) {
  const Scenario plain = load_scenario_text(tiny_text(), "tiny.yaml");
  EXPECT_FALSE(plain.workload.trace.unique_in_bag);
  EXPECT_EQ(plain.workload.trace.reuse, 0.0);
  EXPECT_TRUE(plain.workload.trace.file.empty());
  const Scenario sc =
      load_scenario_text(with_trace("{unique_in_bag: true, reuse: 0.25, mode: sampled}"), "t.yaml");
  EXPECT_TRUE(sc.workload.trace.unique_in_bag);
  EXPECT_EQ(sc.workload.trace.reuse, 0.25);
  EXPECT_EQ(sc.workload.trace.mode, TraceMode::sampled);
}

TEST(ScenarioTrace, BadSyntheticKeys) {
  expect_input_error(with_trace("{reuse: 1}"), 16, "workload.trace.reuse", "not in [0, 1)");
  expect_input_error(with_trace("{reuse: -0.1}"), 16, "workload.trace.reuse");
  expect_input_error(with_trace("{unique_in_bag: 3}"), 16, "workload.trace.unique_in_bag");
  expect_input_error(with_trace("{reuze: 0.1}"), 16, "workload.trace.reuze",
                     "did you mean 'reuse'");
}

TEST(ScenarioTrace, FileIsRelativeToTheScenarioFolder) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardsim_scenario_trace_" + std::to_string(::getpid()));
  fs::create_directories(dir / "traces");
  std::ofstream(dir / "traces" / "t.bin") << "not checked until the run";
  std::ofstream(dir / "s.yaml") << with_trace("{file: traces/t.bin}");
  const Scenario sc = load_scenario_file((dir / "s.yaml").string());
  EXPECT_EQ(fs::path(sc.workload.trace.file), (dir / "traces" / "t.bin").lexically_normal());
  // Missing, empty, or next to keys that only shape synthetic traces.
  expect_input_error(with_trace("{file: nowhere.bin}"), 16, "workload.trace.file",
                     "no trace file at 'nowhere.bin'");
  expect_input_error(with_trace("{file: ''}"), 16, "workload.trace.file", "empty");
  // An existing file (relative to "bad.yaml", i.e. to the working folder).
  const std::string present = "shardsim_present_" + std::to_string(::getpid()) + ".bin";
  std::ofstream(present) << "x";
  // Keys that only shape synthetic traces are ignored next to `file` (with a warning), but their
  // values are still checked.
  const Scenario replay = load_scenario_text(
      with_trace("{file: " + present + ", layout: clustered, mode: sampled, reuse: 0.5}"),
      "r.yaml");
  EXPECT_EQ(replay.workload.trace.layout, HotRowLayout::scattered);
  EXPECT_EQ(replay.workload.trace.mode, TraceMode::expected);
  EXPECT_EQ(replay.workload.trace.reuse, 0.0);
  EXPECT_EQ(replay.workload.trace.file, present);
  expect_input_error(with_trace("{file: " + present + ", reuse: 2}"), 16, "workload.trace.reuse");
  fs::remove(present);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace shardsim::test
