// run's and sweep's decision flags end to end: --best (which report the brief marks) and
// --baseline (the diff against an earlier run after the report), and a two-key sweep's scaling
// column computed along the GPU count with the batch held.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace shardsim::decision_flags_cli_test {
namespace {

using testing::run;

struct Ws : testing::Workspace {
  Ws() : testing::Workspace("shardsim_decisions") {}
};

const std::string kSmall = "--set workload.iterations=2 --quiet";

// The brief's line that carries the best mark.
std::string best_line(const std::string& out) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.find("<- best") != std::string::npos) return line;
  }
  return {};
}

TEST(DecisionFlags, BestByQpsIsNotTheShortestIteration) {
  // A sweep over the node count: more nodes, more QPS, and a longer iteration (more AlltoAll).
  const Ws ws;
  const std::string file =
      ws.write("s.yaml",
               "name: s\ncluster: {preset: dgx-a100, nodes: 1}\n"
               "model:\n  generate: {count: 40, rows: 2000000, dim: 128, pooling: 20}\n"
               "  bottom_mlp: [512, 128]\n  top_mlp: [512, 1]\n"
               "workload: {batch_per_gpu: 4096, iterations: 2}\n"
               "placement: {planner: table_wise}\n"
               "sweep: {cluster.nodes: [1, 2]}\n");
  const auto qps = run("sweep " + file + " --quiet");
  ASSERT_EQ(qps.code, 0) << qps.err;
  EXPECT_NE(best_line(qps.out).find("<- best (QPS)"), std::string::npos) << qps.out;
  EXPECT_NE(best_line(qps.out).find("cluster.nodes=2"), std::string::npos) << qps.out;
  const auto it = run("sweep " + file + " --quiet --best iteration");
  ASSERT_EQ(it.code, 0) << it.err;
  EXPECT_NE(best_line(it.out).find("<- best (iteration time)"), std::string::npos) << it.out;
}

TEST(DecisionFlags, BestByCostNeedsAPrice) {
  const auto r = run("run --best cost " + kSmall);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--best cost needs a price"), std::string::npos) << r.err;
  const auto priced = run("run --best cost --set cluster.price_per_gpu_hour=2.5 " + kSmall +
                          " --set placement.planner=[table_wise,row_wise]");
  ASSERT_EQ(priced.code, 0) << priced.err;
  EXPECT_NE(best_line(priced.out).find("<- best (cost)"), std::string::npos) << priced.out;
  const auto unknown = run("run --best fastest " + kSmall);
  EXPECT_EQ(unknown.code, 2);
}

TEST(DecisionFlags, BaselinePrintsWhatChangedAfterTheReport) {
  const Ws ws;
  const std::string base = ws.path("base");
  ASSERT_EQ(run("run " + kSmall + " --out " + base).code, 0);
  const auto r = run("run " + kSmall + " --set model.precision.comms=fp16 --baseline " + base);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::size_t brief = r.out.find("brief:");
  const std::size_t key = r.out.find("model.precision.comms: \"fp32\" -> \"fp16\"");
  ASSERT_NE(key, std::string::npos) << r.out;
  EXPECT_LT(brief, key);
  // A baseline that is not there is refused before anything runs; so is --format json.
  const auto missing = run("run " + kSmall + " --baseline " + ws.path("nothing"));
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(missing.out.empty());
  const auto json = run("run " + kSmall + " --format json --baseline " + base);
  EXPECT_EQ(json.code, 2);
  EXPECT_NE(json.err.find("shardsim diff"), std::string::npos) << json.err;
}

// summary.csv's rows of a sweep written with --out: the columns by name.
std::vector<std::vector<std::string>> csv_rows(const std::string& file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(DecisionFlags, TwoKeySweepScalesAlongTheNodesWithTheBatchHeld) {
  const Ws ws;
  const std::string file =
      ws.write("s.yaml",
               "name: s\ncluster: {preset: dgx-a100, nodes: 1}\n"
               "model:\n  generate: {count: 16, rows: 100000, dim: 64, pooling: 10}\n"
               "  bottom_mlp: [512, 64]\n  top_mlp: [512, 1]\n"
               "workload: {batch_per_gpu: 1024, iterations: 2}\n"
               "placement: {planner: table_wise}\n"
               "sweep:\n  cluster.nodes: [1, 2]\n"
               "  workload.batch_per_gpu: [1024, 2048]\n");
  const std::string out = ws.path("out");
  const auto r = run("sweep " + file + " --quiet --out " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = csv_rows(out + "/summary.csv");
  ASSERT_EQ(rows.size(), 5u);
  const auto& header = rows[0];
  auto col = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    ADD_FAILURE() << "no column " << name;
    return std::size_t{0};
  };
  const std::size_t point = col("sweep_point"), qps = col("qps"), gpus = col("num_gpus"),
                    scaling = col("scaling_factor");
  // Rows: (1, 1024), (1, 2048), (2, 1024), (2, 2048). Row 4 scales against row 2.
  ASSERT_NE(rows[4][point].find("cluster.nodes=2"), std::string::npos);
  ASSERT_NE(rows[4][point].find("batch_per_gpu=2048"), std::string::npos);
  auto num = [](const std::string& s) { return std::stod(s); };
  const double expected =
      (num(rows[4][qps]) / num(rows[2][qps])) / (num(rows[4][gpus]) / num(rows[2][gpus]));
  EXPECT_NEAR(num(rows[4][scaling]), expected, 1e-3 * expected);
  const double first = (num(rows[3][qps]) / num(rows[1][qps])) / 2;
  EXPECT_NEAR(num(rows[3][scaling]), first, 1e-3 * first);
  EXPECT_TRUE(rows[2][scaling].empty() || rows[2][scaling] == "nan") << rows[2][scaling];
}

}  // namespace
}  // namespace shardsim::decision_flags_cli_test
