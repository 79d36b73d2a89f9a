// End-to-end tests of the `shardsim` binary: exit codes, outputs, determinism.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/cli_run.hpp"

namespace {

using shardsim::testing::Result;
using shardsim::testing::run;
using shardsim::testing::unique_temp;
using shardsim::testing::write_temp;

const char* kSmall = R"(name: small
cluster: {preset: dgx-a100, nodes: 1}
model:
  tables:
    - {name: a, rows: 100000, dim: 32, pooling: 4, alpha: 1.05}
    - {name: b, rows: 2000000, dim: 64, pooling: 2, alpha: 0.9}
    - {name: c, rows: 5000, dim: 16, pooling: 1, alpha: 1.2}
  bottom_mlp: [64, 32]
  top_mlp: [64, 1]
workload: {batch_per_gpu: 1024, iterations: 3, warmup: 1, seed: 7}
placement: {planner: [table_wise, row_wise]}
)";

TEST(Cli, DefaultScenarioJsonHasEveryContractField) {
  const Result r = run("run --format json --quiet");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("reports"));
  ASSERT_EQ(j["reports"].size(), 3u);
  const std::vector<std::string> planners = {"table_wise", "row_wise", "data_parallel"};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& rep = j["reports"][i];
    EXPECT_EQ(rep["planner"], planners[i]);
    for (const char* key :
         {"scenario", "planner", "mode", "num_gpus", "iterations", "iteration_time_s", "qps",
          "imbalance_ratio", "breakdown_s", "per_gpu", "memory_bytes", "comm_bytes",
          "degree_of_balance", "fits_in_memory", "seed", "shardsim_version"}) {
      EXPECT_TRUE(rep.contains(key)) << key;
    }
    for (const char* key : {"mean", "p50", "p99", "min", "max"}) {
      EXPECT_TRUE(rep["iteration_time_s"].contains(key)) << key;
    }
    EXPECT_EQ(rep["num_gpus"], 16);
    EXPECT_EQ(rep["per_gpu"].size(), 16u);
    EXPECT_GT(rep["qps"].get<double>(), 0);
  }
}

TEST(Cli, SameSeedGivesByteIdenticalJson) {
  const std::string path = write_temp("det.yaml", kSmall);
  const Result a = run("run " + path + " --format json --quiet");
  const Result b = run("run " + path + " --format json --quiet");
  ASSERT_EQ(a.code, 0);
  EXPECT_EQ(a.out, b.out);
  const Result c = run("run " + path + " --format json --quiet --seed 8");
  EXPECT_NE(a.out, c.out);
}

TEST(Cli, SetOverridesAndTextReport) {
  const std::string path = write_temp("set.yaml", kSmall);
  const Result r = run("run " + path + " --set cluster.nodes=2 --set placement.planner=row_wise");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("row_wise"), std::string::npos);
  EXPECT_NE(r.out.find("ms"), std::string::npos);
  const Result j = run("run " + path + " --set cluster.nodes=2 --format json --quiet");
  EXPECT_EQ(nlohmann::json::parse(j.out)["reports"][0]["num_gpus"], 16);
}

TEST(Cli, BadInputExitsTwoWithFileLineAndKey) {
  std::string yaml = kSmall;
  yaml.replace(yaml.find("batch_per_gpu"), 13, "batch_per_gpuu");
  const std::string path = write_temp("bad.yaml", yaml);
  std::string err;
  const Result r = run("run " + path, &err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(err.find("bad.yaml:"), std::string::npos) << err;
  EXPECT_NE(err.find("batch_per_gpuu"), std::string::npos) << err;
  EXPECT_NE(err.find("did you mean"), std::string::npos) << err;
  EXPECT_EQ(run("run /nonexistent/x.yaml").code, 2);
  EXPECT_EQ(run("run --format xml").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
  std::string err2;
  EXPECT_EQ(run("run " + path + " --set placement.planner=table_wis", &err2).code, 2);
}

TEST(Cli, PlanThatDoesNotFitExitsThreeNamingTheGpu) {
  std::string yaml = kSmall;
  yaml.replace(yaml.find("rows: 2000000"), 13, "rows: 2000000000");
  const std::string path = write_temp("big.yaml", yaml);
  std::string err;
  const Result r = run("run " + path + " --set placement.planner=table_wise", &err);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(err.find("GPU"), std::string::npos) << err;
  EXPECT_NE(err.find("GB"), std::string::npos) << err;
}

// One exit-code rule for run and sweep (issue 18): a planner or sweep point that does not fit is
// reported as such (exit 0) when another fits; exit 3 only when none fits.
TEST(Cli, RunAndSweepExitThreeOnlyWhenNothingFits) {
  std::string yaml = kSmall;
  yaml.replace(yaml.find("rows: 2000000"), 13, "rows: 200000000");  // 51 GB: table_wise fails
  const std::string path = write_temp("half.yaml", yaml);
  std::string err;
  Result r = run("run " + path + " --quiet --format csv", &err);  // table_wise, row_wise
  EXPECT_EQ(r.code, 0) << err;
  EXPECT_NE(r.out.find(",false,"), std::string::npos) << r.out;  // table_wise: does not fit
  EXPECT_EQ(run("run " + path + " --quiet --set placement.planner=table_wise").code, 3);
  const std::string nodes = " --quiet --format csv --set 'sweep={cluster.nodes: [1, 2]}'";
  r = run("sweep " + path + nodes, &err);  // at each point table_wise does not fit, row_wise does
  EXPECT_EQ(r.code, 0) << err;
  r = run("sweep " + path + nodes + " --set placement.planner=table_wise", &err);
  EXPECT_EQ(r.code, 3) << err;
}

TEST(Cli, OutDirWritesFilesAndRefusesToOverwrite) {
  const std::string path = write_temp("out.yaml", kSmall);
  const std::string dir = unique_temp("shardsim_out_test");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(run("run " + path + " --quiet --out " + dir).code, 0);
  for (const char* f : {"report.json", "per_gpu.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
  }
  EXPECT_EQ(run("run " + path + " --quiet --out " + dir).code, 2);
  EXPECT_EQ(run("run " + path + " --quiet --force --out " + dir).code, 0);
}

TEST(Cli, TraceOutWritesAChromeTraceAndRefusesToOverwrite) {
  const std::string path = write_temp("trace.yaml", kSmall);
  const std::string a = unique_temp("shardsim_trace") + ".json";
  const std::string b = unique_temp("shardsim_trace") + ".json";
  ASSERT_EQ(run("run " + path + " --quiet --trace-out " + a).code, 0);
  ASSERT_EQ(run("run " + path + " --quiet --trace-out " + b).code, 0);
  std::ifstream ia(a), ib(b);
  const std::string ta((std::istreambuf_iterator<char>(ia)), {});
  const std::string tb((std::istreambuf_iterator<char>(ib)), {});
  EXPECT_EQ(ta, tb);  // byte-identical for the same seed
  const auto j = nlohmann::json::parse(ta);
  EXPECT_GT(j["traceEvents"].size(), 100u);
  std::string err;
  EXPECT_EQ(run("run " + path + " --quiet --trace-out " + a, &err).code, 2);
  EXPECT_NE(err.find("--force"), std::string::npos) << err;
  EXPECT_EQ(run("run " + path + " --quiet --force --trace-out " + a).code, 0);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
}

TEST(Cli, SweepResultsDoNotDependOnJobs) {
  std::string yaml = kSmall;
  yaml += "sweep:\n  cluster.nodes: [1, 2]\n  workload.batch_per_gpu: [512, 1024]\n";
  const std::string path = write_temp("sweep.yaml", yaml);
  const Result one = run("sweep " + path + " --format json --quiet --jobs 1");
  const Result two = run("sweep " + path + " --format json --quiet --jobs 2");
  ASSERT_EQ(one.code, 0);
  EXPECT_EQ(one.out, two.out);
  const auto j = nlohmann::json::parse(one.out);
  EXPECT_EQ(j["reports"].size(), 8u);  // 4 points x 2 planners
}

TEST(Cli, HardwareCommands) {
  const Result list = run("hw list");
  EXPECT_EQ(list.code, 0);
  for (const char* name : {"dgx-a100", "dgx-h100", "zionex", "hpc-a100x4", "rtx2080ti-8"}) {
    EXPECT_NE(list.out.find(name), std::string::npos) << name;
  }
  const Result show = run("hw show dgx-a100");
  EXPECT_EQ(show.code, 0);
  EXPECT_NE(show.out.find("GB"), std::string::npos);
  std::string err;
  EXPECT_EQ(run("hw show dgx-a10", &err).code, 2);
  EXPECT_NE(err.find("dgx-a100"), std::string::npos) << err;
}

TEST(Cli, ValidateChecksWithoutRunning) {
  const std::string path = write_temp("val.yaml", kSmall);
  const Result r = run("validate " + path);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("OK"), std::string::npos);
  EXPECT_EQ(run("validate " + std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/example.yaml").code,
            0);
}

}  // namespace
