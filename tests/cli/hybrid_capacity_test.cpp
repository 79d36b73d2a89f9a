// `hybrid` near memory capacity (issue 15): it finds a plan whenever `memory_greedy` does at the
// same headroom, and its out-of-memory hint only suggests what is not already allowed. The shapes
// are ones where hybrid's placement by estimated time used to strand a table.
#include <gtest/gtest.h>

#include <string>

#include "support/cli_run.hpp"

namespace {

using shardsim::testing::run;
using shardsim::testing::write_temp;

// Generated tables on A100-40GB nodes, sized so that memory_greedy fills the GPUs to ~95% (2
// nodes, 30 tables) or ~82% (32 nodes, 800 tables).
std::string scenario(int nodes, int tables, double median_rows) {
  return "name: near-capacity\n"
         "cluster: {preset: dgx-a100, nodes: " +
         std::to_string(nodes) +
         "}\n"
         "model:\n"
         "  generate:\n"
         "    count: " +
         std::to_string(tables) +
         "\n"
         "    rows: {dist: lognormal, median: " +
         std::to_string(static_cast<long long>(median_rows)) +
         ", sigma: 2, min: 1000, max: 500000000}\n"
         "    dim: [32, 64, 128]\n"
         "    pooling: {dist: uniform, min: 1, max: 40}\n"
         "    alpha: {dist: uniform, min: 0.8, max: 1.3}\n"
         "  dense_features: 13\n"
         "  bottom_mlp: [512, 256, 128]\n"
         "  top_mlp: [1024, 1024, 512, 256, 1]\n"
         "  precision: {tables: fp16, comms: {fwd: fp16, bwd: bf16}}\n"
         "workload: {mode: training, batch_per_gpu: 1024, iterations: 1, warmup: 0, seed: 42,\n"
         "           trace: {layout: scattered, mode: expected}}\n";
}

std::string with(const std::string& planner, const std::string& options = "") {
  std::string sets = " --quiet --format json --set placement.planner=" + planner;
  if (!options.empty()) sets += " --set 'placement.options=" + options + "'";
  return sets;
}

TEST(HybridCapacity, FitsWhereMemoryGreedyFitsAtTheSameHeadroom) {
  const std::string small = write_temp("near_capacity_small.yaml", scenario(2, 30, 3e7));
  EXPECT_EQ(run("run " + small + with("memory_greedy")).code, 0);
  std::string err;
  const auto r = run("run " + small + with("hybrid", "{headroom: 0}"), &err);
  EXPECT_EQ(r.code, 0) << err;
  const std::string large = write_temp("near_capacity_large.yaml", scenario(32, 800, 1e7));
  EXPECT_EQ(run("run " + large + with("memory_greedy", "{headroom: 0.1}")).code, 0);
  EXPECT_EQ(run("run " + large + with("hybrid"), &err).code, 0) << err;
}

TEST(HybridCapacity, TheHintSuggestsOnlyWhatIsNotAllowed) {
  // The report of a plan that does not fit carries the planner's message in fit_error.
  const std::string path = write_temp("near_capacity_hint.yaml", scenario(2, 30, 3e7));
  // Without row_wise (and so without its packing fallback): exit 3, "allow row_wise".
  auto r = run("run " + path + with("hybrid", "{schemes: [table_wise, column_wise]}"));
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("allow row_wise"), std::string::npos) << r.out.substr(0, 2000);
  // With every scheme but too much headroom for any packing: exit 3, no "allow row_wise".
  r = run("run " + path + with("hybrid", "{headroom: 0.5}"));
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.out.find("allow row_wise"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("smaller headroom"), std::string::npos) << r.out.substr(0, 2000);
}

}  // namespace
