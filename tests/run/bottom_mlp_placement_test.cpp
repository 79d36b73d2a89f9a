// `placement.bottom_mlp_gpu` through run_scenario: applied to every plan, checked against the
// cluster and the plan (bad input names the scenario's line and key), and a plan file's own
// bottom_mlp_gpu must agree with it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "shardsim/core/error.hpp"
#include "shardsim/io/plan_file.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace shardsim {
namespace {

// 4 tables on one dgx-a100 node (8 GPUs); `placement` is the placement block's body.
std::string scenario_text(const std::string& placement) {
  return "name: bottom\n"
         "cluster: {preset: dgx-a100, nodes: 1}\n"
         "model:\n"
         "  tables:\n"
         "    - {name: a, rows: 10000, dim: 32, pooling: 2, alpha: 1.0}\n"
         "    - {name: b, rows: 20000, dim: 32, pooling: 2, alpha: 1.0}\n"
         "    - {name: c, rows: 30000, dim: 32, pooling: 2, alpha: 1.0}\n"
         "    - {name: d, rows: 40000, dim: 32, pooling: 2, alpha: 1.0}\n"
         "  bottom_mlp: [64, 32]\n"
         "  top_mlp: [64, 1]\n"
         "workload: {batch_per_gpu: 1024, iterations: 2, warmup: 1}\n"
         "cost: {host_launch_mode: cuda_graphs}\n"
         "placement:\n" +
         placement;
}

std::string run_error(const std::string& text, const std::string& file = "s.yaml") {
  try {
    (void)run_scenario(load_scenario_text(text, file));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(BottomMlpPlacementScenario, LoadedWithItsLineAndAppliedToThePlan) {
  const Scenario s =
      load_scenario_text(scenario_text("  planner: round_robin\n  bottom_mlp_gpu: 0\n"), "s.yaml");
  EXPECT_EQ(s.placement.bottom_mlp_gpu, 0);
  EXPECT_EQ(s.placement.bottom_mlp_location.line, 15);
  const Scenario dp = load_scenario_text(scenario_text("  planner: round_robin\n"), "s.yaml");
  EXPECT_EQ(dp.placement.bottom_mlp_gpu, -1);
  const std::vector<Report> one = run_scenario(s);
  const std::vector<Report> all = run_scenario(dp);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(all.size(), 1u);
  // GPU 0 runs the bottom MLP for all 8 GPUs' samples: the iteration is longer, and GPU 0 holds
  // the global batch's layer outputs.
  EXPECT_GT(one[0].iteration_time.mean_s, all[0].iteration_time.mean_s);
  EXPECT_GT(one[0].per_gpu[0].activation_bytes, all[0].per_gpu[0].activation_bytes);
  EXPECT_LT(one[0].per_gpu[1].memory_bytes, all[0].per_gpu[1].memory_bytes);
  // The report says where it ran.
  EXPECT_EQ(one[0].bottom_mlp_gpu, 0);
  EXPECT_EQ(all[0].bottom_mlp_gpu, -1);
  std::ostringstream text;
  write_text(text, one);
  EXPECT_TRUE(has(text.str(), "| training | bottom MLP on GPU 0")) << text.str();
}

TEST(BottomMlpPlacementScenario, BadPlacementsNameTheLineAndKey) {
  std::string e = run_error(scenario_text("  planner: round_robin\n  bottom_mlp_gpu: 8\n"));
  EXPECT_TRUE(has(e, "s.yaml:15:")) << e;
  EXPECT_TRUE(has(e, "placement.bottom_mlp_gpu")) << e;
  EXPECT_TRUE(has(e, "GPU 8 does not exist")) << e;
  e = run_error(scenario_text(
      "  planner: two_d\n  options: {groups: 2, inner: table_wise}\n  bottom_mlp_gpu: 0\n"));
  EXPECT_TRUE(has(e, "s.yaml:16:")) << e;
  EXPECT_TRUE(has(e, "sparse groups")) << e;
  e = run_error(scenario_text(
      "  planner: table_wise\n  options: {communication: one_sided}\n  bottom_mlp_gpu: 0\n"));
  EXPECT_TRUE(has(e, "one-sided")) << e;
  e = run_error(scenario_text("  planner: round_robin\n  bottom_mlp_gpu: -1\n"));
  EXPECT_TRUE(has(e, "s.yaml:15:")) << e;
}

TEST(BottomMlpPlacementScenario, APlanFilesGpuMustAgreeWithTheScenarios) {
  const std::string dir =
      ::testing::TempDir() + "/bottom_mlp_placement_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/p.yaml") << "bottom_mlp_gpu: 2\n"
                                    "tables: {a: [{gpu: 1}], b: [{gpu: 2}], c: [{gpu: 3}], "
                                    "d: [{gpu: 4}]}\n";
  const std::string file = dir + "/s.yaml";
  const std::string e = run_error(scenario_text("  file: p.yaml\n  bottom_mlp_gpu: 0\n"), file);
  EXPECT_TRUE(has(e, "on GPU 2, this key on GPU 0")) << e;
  const std::vector<Report> same = run_scenario(
      load_scenario_text(scenario_text("  file: p.yaml\n  bottom_mlp_gpu: 2\n"), file));
  const std::vector<Report> own =
      run_scenario(load_scenario_text(scenario_text("  file: p.yaml\n"), file));
  ASSERT_EQ(same.size(), 1u);
  ASSERT_EQ(own.size(), 1u);
  EXPECT_DOUBLE_EQ(same[0].iteration_time.mean_s, own[0].iteration_time.mean_s);
  std::filesystem::remove_all(dir);
}

// The planners see the key (PlanningContext::bottom_mlp_gpu) and leave room on that GPU for the
// global batch's bottom layers: on GPUs of 2 GiB, two of the sixteen 1M-row tables and a
// 1024-wide bottom MLP's 65,536 samples do not fit one GPU, so table_wise and neuroshard put
// fewer tables on GPU 0 and the plans fit (before, every GPU got two and GPU 0 overflowed).
TEST(BottomMlpPlacementScenario, PlannersLeaveRoomForTheBottomMlp) {
  const std::string text =
      "name: bottom-tight\n"
      "cluster: {preset: dgx-a100, nodes: 1, overrides: {gpu: {hbm_capacity_GiB: 2}, "
      "reserved_memory_GiB: 0.25}}\n"
      "model:\n"
      "  generate: {count: 16, rows: 1000000, dim: 64, pooling: 2, alpha: 1.0}\n"
      "  bottom_mlp: [1024, 1024, 1024]\n"
      "  top_mlp: [64, 1]\n"
      "workload: {batch_per_gpu: 8192, iterations: 2, warmup: 1}\n"
      "cost: {host_launch_mode: cuda_graphs}\n"
      "placement:\n"
      "  planner: [table_wise, neuroshard]\n"
      "  bottom_mlp_gpu: 0\n";
  const std::vector<Report> reports = run_scenario(load_scenario_text(text, "s.yaml"));
  ASSERT_EQ(reports.size(), 2u);
  for (const Report& r : reports) {
    SCOPED_TRACE(r.planner);
    EXPECT_TRUE(r.fits_in_memory);
    EXPECT_EQ(r.bottom_mlp_gpu, 0);
    ASSERT_EQ(r.per_gpu.size(), 8u);
    for (std::size_t g = 1; g < 8; ++g) EXPECT_LT(r.per_gpu[0].shards, r.per_gpu[g].shards);
  }
}

// The nvidia_dlrm planner makes the plan file the validation points run, which was written by
// running NVIDIA's own get_device_mapping on the scenario's cardinalities (docs/validation/
// training.md): the same GPU for every table, the bottom MLP on GPU 0.
TEST(BottomMlpPlacementScenario, TheNvidiaDlrmPlannerMakesTheValidationPlanFile) {
  const std::string dir = std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/validation/";
  const Scenario sc = load_scenario_file(dir + "nvidia-dlrm-t3-8gpu.yaml");
  const Cluster cluster(sc.cluster.preset, sc.cluster.nodes);
  const auto trace = make_trace_source(sc.model, sc.workload);
  const PlanningContext ctx{cluster, sc.model, sc.workload, *trace, &sc.cost};
  const Plan made = make_planner("nvidia_dlrm")->plan(ctx);
  const Plan file =
      read_plan_file(dir + "nvidia-dlrm-t3-8gpu-pytorch.plan.yaml", sc.model, cluster);
  EXPECT_EQ(made.bottom_mlp_gpu, 0);
  EXPECT_EQ(file.bottom_mlp_gpu, 0);
  ASSERT_EQ(made.shards.size(), sc.model.tables.size());
  ASSERT_EQ(file.shards.size(), sc.model.tables.size());
  std::vector<int> made_gpu(sc.model.tables.size(), -1), file_gpu(sc.model.tables.size(), -2);
  for (const Shard& s : made.shards) made_gpu[s.table] = s.gpu;
  for (const Shard& s : file.shards) file_gpu[s.table] = s.gpu;
  EXPECT_EQ(made_gpu, file_gpu);
}

}  // namespace
}  // namespace shardsim
