// `shardsim plan` and `placement: {file: ...}` end to end: plan files written atomically and
// never overwritten without --force, statistics on stdout and in every run report, hand-made
// plans simulated, bad plans and plans that do not fit reported with the right exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_run.hpp"

namespace shardsim::plan_command_test {
namespace {

using shardsim::testing::Result;
using shardsim::testing::run;
using shardsim::testing::unique_temp;

const char* kScenario = R"(name: plans
cluster: {preset: dgx-a100, nodes: 1}
model:
  tables:
    - {name: a, rows: 100000, dim: 32, pooling: 4, alpha: 1.05}
    - {name: b, rows: 2000000, dim: 64, pooling: 2, alpha: 0.9}
    - {name: c, rows: 5000, dim: 16, pooling: 1, alpha: 1.2}
  bottom_mlp: [64, 32]
  top_mlp: [64, 1]
workload: {batch_per_gpu: 1024, iterations: 2, warmup: 1, seed: 7}
)";

// A folder of its own with scenario.yaml (kScenario + `placement`), for relative plan paths.
std::string scenario_dir(const std::string& placement) {
  const std::string dir = unique_temp("shardsim_plan_cmd");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/scenario.yaml") << kScenario << placement;
  return dir;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PlanCommand, WritesAPlanFileAndRefusesToOverwriteIt) {
  const std::string dir = scenario_dir("placement: {planner: table_wise}\n");
  const std::string out = dir + "/plan.yaml";
  std::string err;
  Result r = run("plan " + dir + "/scenario.yaml --planner hybrid --out " + out, &err);
  ASSERT_EQ(r.code, 0) << err;
  const std::string text = read(out);
  EXPECT_NE(text.find("format: shardsim-plan-1"), std::string::npos) << text;
  EXPECT_NE(text.find("planner: hybrid"), std::string::npos) << text;
  r = run("plan " + dir + "/scenario.yaml --planner row_wise --out " + out, &err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(err.find("already exists"), std::string::npos) << err;
  EXPECT_NE(err.find("--force"), std::string::npos) << err;
  EXPECT_EQ(read(out), text);  // untouched
  r = run("plan " + dir + "/scenario.yaml --planner row_wise --force --out " + out, &err);
  EXPECT_EQ(r.code, 0) << err;
  EXPECT_NE(read(out).find("planner: row_wise"), std::string::npos);
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 2);  // scenario.yaml, plan.yaml
  // JSON by extension.
  r = run("plan " + dir + "/scenario.yaml --out " + dir + "/plan.json", &err);
  ASSERT_EQ(r.code, 0) << err;
  const auto j = nlohmann::json::parse(read(dir + "/plan.json"));
  EXPECT_EQ(j["planner"], "table_wise");
  EXPECT_EQ(j["tables"].size(), 3u);
}

TEST(PlanCommand, StatsAsTextAndJson) {
  const std::string dir = scenario_dir("placement: {planner: [table_wise, row_wise]}\n");
  std::string err;
  Result r = run("plan " + dir + "/scenario.yaml --stats", &err);
  ASSERT_EQ(r.code, 0) << err;
  for (const char* part : {"planner table_wise", "planner row_wise", "HBM GB", "fwd comp ms",
                           "max/mean", "gap", "DoB"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  r = run("plan " + dir + "/scenario.yaml --planner access_greedy --stats --format json", &err);
  ASSERT_EQ(r.code, 0) << err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["planner"], "access_greedy");
  EXPECT_EQ(j["per_gpu"]["gpu"].size(), 8u);
  EXPECT_TRUE(j["balance"]["lookups"].contains("gap_to_bound"));
  // Two plans and --out: which one? An error.
  r = run("plan " + dir + "/scenario.yaml --out " + dir + "/x.yaml", &err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(err.find("--planner"), std::string::npos) << err;
}

TEST(PlanCommand, TorchrecsOwnStatisticsFollowOurs) {
  const std::string dir = scenario_dir("placement: {planner: [torchrec, table_wise]}\n");
  std::string err;
  Result r = run("plan " + dir + "/scenario.yaml --stats", &err);
  ASSERT_EQ(r.code, 0) << err;
  for (const char* part :
       {"the planner's own statistics (torchrec)", "--- Planner Statistics ---", "Evaluated",
        "Perf (ms)", "Output (MB)", "Total Variation", "Maximum of Total Perf"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  // Once: table_wise has none.
  EXPECT_EQ(r.out.find("Planner Statistics"), r.out.rfind("Planner Statistics"));
  r = run("plan " + dir + "/scenario.yaml --planner torchrec --stats --format json", &err);
  ASSERT_EQ(r.code, 0) << err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("planner_stats"));
  EXPECT_EQ(j["planner_stats"][0], "--- Planner Statistics ---");
  // 8 ranks: the header lines, the column line and a line per rank.
  EXPECT_GE(j["planner_stats"].size(), 11u);
}

TEST(PlanCommand, NeuroshardsSearchIsInItsStatisticsWithEitherBackend) {
  const std::string dir = scenario_dir("placement: {planner: neuroshard}\n");
  std::string err;
  Result r = run("plan " + dir + "/scenario.yaml --stats", &err);
  ASSERT_EQ(r.code, 0) << err;
  for (const char* part :
       {"the planner's own statistics (neuroshard)", "analytic backend", "estimated embedding cost",
        "column plan:", "computation cost cache", "compute ms"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  // The simulation backend: candidates simulated by the runner's evaluator.
  r = run("plan " + dir +
              "/scenario.yaml --stats --set 'placement.options={backend: simulation, steps: 4}'",
          &err);
  ASSERT_EQ(r.code, 0) << err;
  EXPECT_NE(r.out.find("simulated iteration time"), std::string::npos) << r.out;
}

TEST(PlanCommand, AHandMadePlanIsSimulatedFromAPathRelativeToTheScenario) {
  const std::string dir =
      scenario_dir("placement:\n  planner: table_wise\n  file: plans/mine.yaml\n");
  std::filesystem::create_directories(dir + "/plans");
  std::ofstream(dir + "/plans/mine.yaml") << R"(tables:
  a: [{gpu: 0}]
  b:
    - {rows: [0, 1000000], gpu: 1}
    - {rows: [1000000, 2000000], cols: [0, 32], gpu: 2}
    - {rows: [1000000, 2000000], cols: [32, 64], gpu: 3}
  c: [{gpus: [4, 5, 6, 7]}]
)";
  std::string err;
  const Result r = run("run " + dir + "/scenario.yaml --format json --quiet", &err);
  ASSERT_EQ(r.code, 0) << err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["reports"].size(), 2u);
  EXPECT_EQ(j["reports"][1]["planner"], "file:mine.yaml");
  for (const auto& rep : j["reports"]) {
    ASSERT_TRUE(rep["plan_stats"].is_object()) << rep.dump();
    EXPECT_EQ(rep["plan_stats"]["per_gpu"]["hbm_used_bytes"].size(), 8u);
  }
  const auto& kinds = j["reports"][1]["plan_stats"]["shards_by_kind"];
  EXPECT_EQ(kinds["table_wise"], 1);
  EXPECT_EQ(kinds["row_wise"], 1);
  EXPECT_EQ(kinds["column_wise"], 2);
  EXPECT_EQ(kinds["data_parallel"], 4);
  // `plan --stats` reads the file too when the scenario names no planner.
  const std::string only = scenario_dir("placement: {file: plans/mine.yaml}\n");
  std::filesystem::create_directories(only + "/plans");
  std::filesystem::copy_file(dir + "/plans/mine.yaml", only + "/plans/mine.yaml");
  const Result s = run("plan " + only + "/scenario.yaml --stats", &err);
  EXPECT_EQ(s.code, 0) << err;
  EXPECT_NE(s.out.find("1 TW"), std::string::npos) << s.out;
}

TEST(PlanCommand, BadPlanFilesExitTwoAndPlansThatDoNotFitExitThree) {
  const std::string dir = scenario_dir("placement: {file: bad.yaml}\n");
  std::ofstream(dir + "/bad.yaml") << "tables:\n  a: [{gpu: 0}]\n  b:\n"
                                      "    - {rows: [0, 1500000], gpu: 1}\n  c: [{gpu: 2}]\n";
  std::string err;
  Result r = run("run " + dir + "/scenario.yaml", &err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(err.find("bad.yaml:3:"), std::string::npos) << err;
  EXPECT_NE(err.find("table 'b'"), std::string::npos) << err;
  EXPECT_NE(err.find("rows [1500000, 2000000) are not placed"), std::string::npos) << err;
  // A missing plan file is reported at the scenario's `file:` line.
  const std::string missing = scenario_dir("placement: {file: nowhere.yaml}\n");
  r = run("run " + missing + "/scenario.yaml", &err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(err.find("scenario.yaml:11:"), std::string::npos) << err;
  EXPECT_NE(err.find("no plan file"), std::string::npos) << err;
  // A data-parallel replica of table b (2M x 64 fp32: 512 MB) does not fit 0.5 GiB GPUs: exit 3,
  // GPU named.
  const std::string tiny = scenario_dir("placement: {planner: data_parallel}\n");
  r = run("plan " + tiny +
              "/scenario.yaml --set cluster.overrides.gpu.hbm_capacity_GiB=0.5 "
              "--set cluster.overrides.reserved_memory_GiB=0 --stats",
          &err);
  EXPECT_EQ(r.code, 3) << err;
  EXPECT_NE(err.find("GPU 0 needs"), std::string::npos) << err;
  EXPECT_NE(err.find("the replica of table"), std::string::npos) << err;
}

// hybrid balances the indices each GPU receives when the run has an input AlltoAll
// (`simulation.pipeline.input_alltoall`, the default `overlapped`), and not when it has none:
// `plan` and `run` both tell the planner. Two GPUs; a and b look up 200 rows a sample at dim 4
// (cheap kernels under a round backward index cost, 3200 indices from the other GPU each).
TEST(PlanCommand, HybridBalancesReceivedIndicesOnlyWithAnInputAlltoall) {
  const std::string dir = unique_temp("shardsim_plan_input");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/s.yaml") << R"(name: input-balance
cluster: {preset: dgx-a100, nodes: 2, overrides: {gpus_per_node: 1, nics_per_node: 1}}
model:
  tables:
    - {name: c, rows: 1000, dim: 64, pooling: 4}
    - {name: d, rows: 1000, dim: 32, pooling: 4}
    - {name: a, rows: 1000, dim: 4, pooling: 200}
    - {name: b, rows: 1000, dim: 4, pooling: 200}
  bottom_mlp: [8]
  top_mlp: [1]
workload: {batch_per_gpu: 16, iterations: 1, warmup: 0}
placement: {planner: hybrid, options: {schemes: [table_wise]}}
cost: {backward_index_bytes_per_lookup: 32, backward_sort_pass_bytes_per_lookup: 0,
       kernels_per_embedding_backward: 4}
)";
  auto gpu_of = [&](const std::string& pipeline, const std::string& table) {
    const std::string out = dir + "/plan-" + pipeline + ".json";
    std::string err;
    const Result r = run("plan " + dir + "/s.yaml --quiet --force --out " + out +
                             " --set simulation.pipeline.input_alltoall=" + pipeline,
                         &err);
    EXPECT_EQ(r.code, 0) << err;
    return nlohmann::json::parse(read(out))["tables"][table][0]["gpu"].get<int>();
  };
  EXPECT_NE(gpu_of("overlapped", "a"), gpu_of("overlapped", "b"));
  EXPECT_EQ(gpu_of("none", "a"), gpu_of("none", "b"));
  // `run` plans the same way: the busiest GPU receives half the indices with the AlltoAll on.
  auto max_input_bytes = [&](const std::string& pipeline) {
    std::string err;
    const Result r = run("run " + dir + "/s.yaml --quiet --format json --set " +
                             "simulation.pipeline.input_alltoall=" + pipeline,
                         &err);
    EXPECT_EQ(r.code, 0) << err;
    const auto bytes = nlohmann::json::parse(r.out)["plan_stats"]["per_gpu"]["input_bytes"];
    double m = 0;
    for (const auto& b : bytes) m = std::max(m, b.get<double>());
    return m;
  };
  EXPECT_LT(max_input_bytes("overlapped"), 0.6 * max_input_bytes("none"));
}

// two_d hands its inner planner the replica sync's price (`sync_aware`, on by default); a planner
// that places by its own rule ignores it, and two_d says so, in training only.
TEST(PlanCommand, TwoDWarnsWhenItsInnerPlannerIgnoresTheSync) {
  const std::string dir = scenario_dir("placement: {planner: two_d, options: {groups: 2}}\n");
  const std::string warning = "sync_aware has no effect with the inner planner 'row_wise'";
  auto plan_err = [&](const std::string& sets) {
    std::string err;
    const Result r =
        run("plan " + dir + "/scenario.yaml --force --out " + dir + "/p.yaml " + sets, &err);
    EXPECT_EQ(r.code, 0) << err;
    return err;
  };
  const std::string err = plan_err("--set placement.options.inner=row_wise");
  EXPECT_NE(err.find(warning), std::string::npos) << err;
  EXPECT_NE(
      err.find("table_wise, column_wise, table_row_wise, table_column_wise, hybrid, torchrec"),
      std::string::npos)
      << err;
  EXPECT_EQ(plan_err("--set placement.options.inner=row_wise "
                     "--set placement.options.sync_aware=false")
                .find("sync_aware"),
            std::string::npos);
  EXPECT_EQ(plan_err("--set placement.options.inner=row_wise --set workload.mode=inference")
                .find("sync_aware"),
            std::string::npos);
  for (const char* inner :
       {"table_wise", "column_wise", "table_row_wise", "table_column_wise", "hybrid", "torchrec"}) {
    EXPECT_EQ(plan_err(std::string("--set placement.options.inner=") + inner).find("sync_aware"),
              std::string::npos)
        << inner;
  }
}

}  // namespace
}  // namespace shardsim::plan_command_test

namespace shardsim::plan_command_trace_test {
namespace {

using shardsim::testing::run;

// `plan` and `run` share one planning path (run/scenario_plans.hpp): on a scenario that replays
// a recorded trace, the plan `plan --out` writes simulates to the same report as the planner's
// own run. The trace comes from other skews than the scenario's, so a planner that planned on
// the scenario's synthetic statistics (as `plan` once did) would place the tables otherwise.
TEST(PlanCommand, PlansTheRecordedTraceThatRunReplays) {
  const shardsim::testing::Workspace ws("shardsim_plan_trace");
  const std::string tables = R"(  tables:
    - {name: a, rows: 100000, dim: 32, pooling: 4, alpha: ALPHA_A}
    - {name: b, rows: 2000000, dim: 64, pooling: 8, alpha: ALPHA_B}
    - {name: c, rows: 50000, dim: 16, pooling: 1, alpha: 1.2}
    - {name: d, rows: 400000, dim: 128, pooling: 12, alpha: ALPHA_A}
)";
  auto scenario = [&](const std::string& a, const std::string& b, const std::string& trace,
                      const std::string& planners) {
    std::string t = tables;
    for (const auto& [key, value] : {std::pair{"ALPHA_A", a}, std::pair{"ALPHA_B", b}}) {
      for (std::size_t at; (at = t.find(key)) != std::string::npos;) t.replace(at, 7, value);
    }
    return "name: traced\ncluster: {preset: dgx-a100, nodes: 1}\nmodel:\n" + t +
           "  bottom_mlp: [64, 32]\n  top_mlp: [64, 1]\n"
           "workload: {batch_per_gpu: 512, iterations: 2, warmup: 1, seed: 3" +
           trace + "}\nplacement: {planner: " + planners + "}\n";
  };
  const std::string gen = ws.write("gen.yaml", scenario("0.4", "1.3", "", "table_wise"));
  const auto g = run("trace gen " + gen + " --out " + ws.path("t.bin") + " --quiet");
  ASSERT_EQ(g.code, 0) << g.err;
  for (const char* planner : {"oper", "hybrid", "neuroshard"}) {
    SCOPED_TRACE(planner);
    const std::string yaml =
        ws.write(std::string(planner) + ".yaml",
                 scenario("1.3", "0.4", ", trace: {file: t.bin}", std::string(planner)));
    const std::string plan = ws.path(std::string(planner) + "-plan.yaml");
    const auto p = run("plan " + yaml + " --out " + plan + " --quiet");
    ASSERT_EQ(p.code, 0) << p.err;
    const auto r = run("run " + yaml + " --set placement.file=" + plan + " --format json --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.at("reports").size(), 2u);
    const auto& own = j["reports"][0];
    const auto& from_file = j["reports"][1];
    EXPECT_EQ(own.at("per_gpu").dump(), from_file.at("per_gpu").dump());
    EXPECT_EQ(own.at("iteration_time_s").dump(), from_file.at("iteration_time_s").dump());
  }
}

}  // namespace
}  // namespace shardsim::plan_command_trace_test
