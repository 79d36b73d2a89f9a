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

TEST(HybridCapacity, PackingIsTheLastResortAndCanBeTurnedOff) {
  // 20 tables of 2.4e7 rows x 128 on one A100-40GB node, batch 65536 per GPU, row_wise only:
  // every row-wise shard serves all 8 GPUs' batches, so 20 shards a GPU carry 20 activation
  // buffers and do not fit; memory_greedy's packing (~3 pieces a GPU) does. pack_fallback: false
  // keeps hybrid to its own candidates: exit 3.
  const std::string path = write_temp("pack_fallback.yaml", R"(name: pack-fallback
cluster: {preset: dgx-a100, nodes: 1}
model:
  generate:
    count: 20
    rows: {dist: lognormal, median: 24000000, sigma: 0.0001, min: 1000, max: 500000000}
    dim: [128]
    pooling: {dist: uniform, min: 1, max: 1}
    alpha: {dist: uniform, min: 1.0, max: 1.0}
  dense_features: 13
  bottom_mlp: [64]
  top_mlp: [64, 1]
workload: {mode: training, batch_per_gpu: 65536, iterations: 1, warmup: 0, seed: 1}
)");
  std::string err;
  auto r = run("run " + path +
                   " --format json --set placement.planner=hybrid"
                   " --set 'placement.options={headroom: 0, schemes: [row_wise]}'",
               &err);
  EXPECT_EQ(r.code, 0) << err;
  EXPECT_NE(err.find("memory_greedy's packing"), std::string::npos) << err;
  r = run("run " + path +
          with("hybrid", "{headroom: 0, pack_fallback: false, schemes: [row_wise]}"));
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(run("run " + path + with("hybrid", "{pack_fallback: maybe}")).code, 2);
}

TEST(HybridCapacity, TheHintSuggestsOnlyWhatIsNotAllowed) {
  // The report of a plan that does not fit carries the planner's message in fit_error.
  const std::string path = write_temp("near_capacity_hint.yaml", scenario(2, 30, 3e7));
  // Without row_wise (and so without its packing fallback): exit 3, "allow row_wise". Tables stay
  // in HBM (host_tables: never): with host memory the planner would cache them instead.
  auto r = run("run " + path +
               with("hybrid", "{schemes: [table_wise, column_wise], host_tables: never}"));
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("allow row_wise"), std::string::npos) << r.out.substr(0, 2000);
  // With every scheme but too much headroom for any packing: exit 3, no "allow row_wise".
  r = run("run " + path + with("hybrid", "{headroom: 0.5, host_tables: never}"));
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.out.find("allow row_wise"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("smaller headroom"), std::string::npos) << r.out.substr(0, 2000);
}

}  // namespace
