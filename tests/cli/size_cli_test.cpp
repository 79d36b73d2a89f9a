// `shardsim size` end to end (issue 16): its answer equals a brute force made of one `run` per
// node count; bad flags exit 2; a zipped sweep resumes from its checkpoints.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../support/cli_run.hpp"

namespace shardsim {
namespace {

namespace size_cli_test {

using shardsim::testing::run;
using shardsim::testing::Workspace;

// Four tables of 2 billion rows in all: nothing fits below 4 nodes of hpc-a100x4 (4 x 40 GB),
// row_wise fits from 4 on, table_wise never (table `a` alone outgrows a GPU). The global batch
// 3840 = 4 GPUs x 960, so 7, 9 and 11 nodes are skipped.
const char* kFitScenario = R"(name: fit-sizing
cluster:
  preset: hpc-a100x4
  nodes: 1
model:
  tables:
    - {name: a, rows: 900000000, dim: 64, pooling: 20, alpha: 1.05}
    - {name: b, rows: 700000000, dim: 64, pooling: 10, alpha: 1.1}
    - {name: c, rows: 400000000, dim: 128, pooling: 30, alpha: 0.9}
    - {name: d, rows: 50000, dim: 16, pooling: 5, alpha: 1.0}
  bottom_mlp: [128, 64]
  top_mlp: [256, 1]
workload:
  global_batch: 3840
  iterations: 2
  warmup: 1
placement:
  planner: [table_wise, row_wise]
)";

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, sep)) out.push_back(field);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

// Rows of a CSV without quoted fields, each a map from the header's names.
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  std::stringstream in(text);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line, ',');
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split(line, ',');
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

struct Answer {
  int nodes = 0;
  std::string planner;
};

// The brute force: `run` at every node count 1..max (a count the global batch does not divide
// among exits 2 and is skipped); the fewest nodes where a planner fits and reaches `min_qps`,
// ties to the higher QPS.
std::optional<Answer> brute_force(const std::string& path, int max_nodes, double min_qps) {
  for (int n = 1; n <= max_nodes; ++n) {
    const auto r = run("run " + path + " --format csv --set cluster.nodes=" + std::to_string(n));
    if (r.code == 2) {
      EXPECT_NE(r.err.find("workload.global_batch"), std::string::npos) << r.err;
      continue;
    }
    std::optional<Answer> best;
    double best_qps = -1;
    for (const auto& row : csv_rows(r.out)) {
      if (row.at("fits_in_memory") != "true") continue;
      const double qps = std::stod(row.at("qps"));
      if (qps >= min_qps && qps > best_qps) {
        best = Answer{n, row.at("planner")};
        best_qps = qps;
      }
    }
    if (best) return best;
  }
  return std::nullopt;
}

std::optional<Answer> size_answer(const std::string& args, int expected_code) {
  const auto r = run("size " + args + " --format csv");
  EXPECT_EQ(r.code, expected_code) << r.err;
  for (const auto& row : csv_rows(r.out)) {
    if (row.at("answer") == "true")
      return Answer{std::stoi(row.at("num_nodes")), row.at("planner")};
  }
  return std::nullopt;
}

TEST(SizeCli, FitEqualsBruteForceOfRuns) {
  Workspace ws("size_fit");
  const std::string path = ws.write("fit.yaml", kFitScenario);
  const auto expected = brute_force(path, 12, 0);
  ASSERT_TRUE(expected);
  EXPECT_EQ(expected->nodes, 4);
  const auto searched = size_answer(path + " --fit --max-nodes 12", 0);
  ASSERT_TRUE(searched);
  EXPECT_EQ(searched->nodes, expected->nodes);
  EXPECT_EQ(searched->planner, expected->planner);
  const auto exhaustive = size_answer(path + " --fit --max-nodes 12 --exhaustive", 0);
  ASSERT_TRUE(exhaustive);
  EXPECT_EQ(exhaustive->nodes, expected->nodes);
}

TEST(SizeCli, TargetQpsEqualsBruteForceAndSaysWhatItSkipped) {
  Workspace ws("size_qps");
  const std::string path = ws.write("fit.yaml", kFitScenario);
  // QPS falls with more nodes here, so only the smallest fitting counts reach a high target.
  const auto at4 = run("run " + path + " --format csv --set cluster.nodes=4");
  double qps4 = 0;
  for (const auto& row : csv_rows(at4.out)) {
    if (row.at("planner") == "row_wise") qps4 = std::stod(row.at("qps"));
  }
  ASSERT_GT(qps4, 0);
  const double target = qps4 * 0.99;
  const auto expected = brute_force(path, 12, target);
  ASSERT_TRUE(expected);
  const auto searched = size_answer(
      path + " --target-qps " + std::to_string(target) + " --max-nodes 12 --margin 0", 0);
  ASSERT_TRUE(searched);
  EXPECT_EQ(searched->nodes, expected->nodes);
  EXPECT_EQ(searched->planner, expected->planner);

  const auto text = run("size " + path + " --target-qps " + std::to_string(target) +
                        " --max-nodes 12 --margin 0");
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("skipped hpc-a100x4 nodes 7, 9, 11"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("answer: 4 x hpc-a100x4 (16 GPUs) with row_wise"), std::string::npos)
      << text.out;
}

TEST(SizeCli, NoAnswerExitCodes) {
  Workspace ws("size_none");
  const std::string path = ws.write("fit.yaml", kFitScenario);
  // Nothing fits up to 3 nodes: 3 (does not fit); a target never reached: 1 (check failed).
  const auto fit = run("size " + path + " --fit --max-nodes 3");
  EXPECT_EQ(fit.code, 3) << fit.err;
  EXPECT_NE(fit.out.find("answer: none"), std::string::npos) << fit.out;
  const auto qps = run("size " + path + " --target-qps 1e12 --max-nodes 8");
  EXPECT_EQ(qps.code, 1) << qps.err;
  EXPECT_NE(qps.err.find("no node count up to 8"), std::string::npos) << qps.err;
  const auto json = run("size " + path + " --target-qps 1e12 --max-nodes 8 --format json");
  EXPECT_NE(json.out.find("\"answer\": null"), std::string::npos) << json.out;
}

TEST(SizeCli, SeveralPresetsAndJson) {
  Workspace ws("size_presets");
  const std::string path = ws.write("fit.yaml", kFitScenario);
  const auto r = run("size " + path +
                     " --fit --presets hpc-a100x4,dgx-h100 --max-nodes 8 "
                     "--format json --jobs 2");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"presets\": [\n    \"hpc-a100x4\",\n    \"dgx-h100\"\n  ]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"answer\": {"), std::string::npos) << r.out;
  const auto one = run("size " + path +
                       " --fit --presets hpc-a100x4,dgx-h100 --max-nodes 8 "
                       "--format json --jobs 1");
  EXPECT_EQ(one.out, r.out) << "--jobs does not change the result";
}

TEST(SizeCli, BadFlagsExitTwo) {
  Workspace ws("size_bad");
  const std::string path = ws.write("fit.yaml", kFitScenario);
  struct Case {
    std::string args;
    std::string fragment;
  };
  const std::vector<Case> cases = {
      {path, "no target"},
      {path + " --target-qps -5", ""},
      {path + " --target-qps 0", ""},
      {path + " --target-qps 5 --fit", "excludes"},
      {path + " --fit --max-nodes 0", ""},
      {path + " --fit --max-iteration-ms -1", ""},
      {path + " --fit --presets dgx-a10", "did you mean"},
      {path + " --fit --presets dgx-a100,dgx-a100", "twice"},
      {path + " --fit --format xml", ""},
      {path + " --fit --set workload.batch_per_gpu=8", "not both"},
      {ws.path("missing.yaml") + " --fit", "missing.yaml"},
      {path + " --fit --margin 10", "there is none"},
      {path + " --target-qps 5 --margin -1", ""},
  };
  for (const Case& c : cases) {
    const auto r = run("size " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << c.args << "\n" << r.err;
  }
}

// How often `text` occurs in `in`.
std::size_t count_of(const std::string& in, const std::string& text) {
  std::size_t n = 0;
  for (auto at = in.find(text); at != std::string::npos; at = in.find(text, at + 1)) ++n;
  return n;
}

// The line of `text` that starts with `start`, or "".
std::string line_starting(const std::string& text, const std::string& start) {
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(start, 0) == 0) return line;
  }
  return {};
}

// One progress line per probe on stderr (none with --quiet, and the same stdout); table_wise's
// "does not fit" at every probe written once with its count; the answer line names what decided
// the node count (memory: nothing fits at 3 nodes) and that no other planner passes.
TEST(SizeCli, ProgressPerProbeEachWarningOnceAndWhatDecided) {
  Workspace ws("size_explained");
  const std::string path = ws.write("fit.yaml", kFitScenario);
  const auto r = run("size " + path + " --fit --max-nodes 12");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto csv = run("size " + path + " --fit --max-nodes 12 --format csv");
  const std::size_t probes = csv_rows(csv.out).size() / 2;  // two planners a probe
  EXPECT_EQ(probes, 4u) << csv.out;                         // 1, 2, 4, then 3
  EXPECT_EQ(count_of(r.err, "size: probe "), probes) << r.err;
  EXPECT_NE(r.err.find("size: probe 3: hpc-a100x4 x 4 nodes (16 GPUs): table_wise does not fit, "
                       "row_wise "),
            std::string::npos)
      << r.err;
  // table_wise's table `a` never fits: one warning for the four probes, the first's detail kept.
  EXPECT_EQ(count_of(r.err, "table_wise: the plan does not fit"), 1u) << r.err;
  EXPECT_NE(r.err.find("(x4, the first shown) table_wise: the plan does not fit: GPU 0 needs"),
            std::string::npos)
      << r.err;
  std::stringstream lines(r.err);
  std::set<std::string> seen;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(seen.insert(line).second) << "written twice: " << line;
  }
  const std::string answer = line_starting(r.out, "answer: ");
  EXPECT_EQ(answer.rfind("answer: 4 x hpc-a100x4 (16 GPUs) with row_wise: ", 0), 0u) << r.out;
  EXPECT_NE(answer.find("; bound: "), std::string::npos) << answer;
  EXPECT_NE(answer.find("; memory decided: at 3 nodes the largest GPU needs "), std::string::npos)
      << answer;
  EXPECT_NE(answer.find("; runner-up: none among the probes made"), std::string::npos) << answer;

  const auto quiet = run("size " + path + " --fit --max-nodes 12 --quiet");
  EXPECT_EQ(quiet.code, 0);
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(quiet.out, r.out) << "stdout does not depend on the logging";
}

// The example on two presets up to 4 nodes, at a target 10% below dgx-h100's one-node QPS: one
// node of dgx-h100, the runner-up dgx-a100's table_wise. --margin 15 sizes above that one node's
// QPS: two nodes, decided by QPS at one.
TEST(SizeCli, AnswerLineNamesRunnerUpAndMarginChangesTheAnswer) {
  const std::string example = std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/example.yaml";
  const auto one =
      run("run " + example + " --format csv --set cluster.preset=dgx-h100 --set cluster.nodes=1");
  ASSERT_EQ(one.code, 0) << one.err;
  double qps1 = 0;
  for (const auto& row : csv_rows(one.out)) {
    if (row.at("planner") == "table_wise") qps1 = std::stod(row.at("qps"));
  }
  ASSERT_GT(qps1, 0);
  const std::string target = std::to_string(qps1 / 1.1);
  const std::string args =
      "size " + example + " --presets dgx-a100,dgx-h100 --max-nodes 4 --target-qps " + target;
  const auto plain = run(args + " --margin 0");
  ASSERT_EQ(plain.code, 0) << plain.err;
  const std::string answer = line_starting(plain.out, "answer: ");
  EXPECT_EQ(answer.rfind("answer: 1 x dgx-h100 (8 GPUs) with table_wise: ", 0), 0u) << plain.out;
  EXPECT_NE(answer.find("; headroom +10.0% over the target "), std::string::npos) << answer;
  EXPECT_NE(answer.find("; decided: 1 node is the fewest of dgx-h100 that can be probed"),
            std::string::npos)
      << answer;
  EXPECT_NE(answer.find("; runner-up: "), std::string::npos) << answer;
  EXPECT_NE(answer.find(" x dgx-a100 ("), std::string::npos) << answer;

  // No --margin: the build's measured median error (configs/validation/training.yaml), said so.
  const auto by_default = run(args);
  ASSERT_EQ(by_default.code, 0) << by_default.err;
  EXPECT_NE(line_starting(by_default.out, "answer: ").find("margin: the measured median error of"),
            std::string::npos)
      << by_default.out;
  const auto margin = run(args + " --margin 15");
  ASSERT_EQ(margin.code, 0) << margin.err;
  EXPECT_NE(line_starting(margin.out, "size: ").find(" + 15% margin)"), std::string::npos)
      << margin.out;
  const std::string sized = line_starting(margin.out, "answer: ");
  EXPECT_EQ(sized.rfind("answer: 2 x dgx-h100 (16 GPUs) with table_wise: ", 0), 0u) << margin.out;
  EXPECT_NE(sized.find("(sized with a 15% margin)"), std::string::npos) << sized;
  EXPECT_NE(sized.find("; QPS decided: at 1 node, "), std::string::npos) << sized;

  const auto json = run(args + " --margin 15 --format json");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_NE(json.out.find("\"margin_pct\": 15.0"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"decided_by\": \"qps\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"runner_up\": "), std::string::npos) << json.out;
}

TEST(SizeCli, GlobalBatchThatDoesNotDivideExitsTwoWithFileLineAndKey) {
  Workspace ws("size_gb");
  const std::string path = ws.write("fit.yaml", kFitScenario);
  const auto r = run("run " + path + " --set cluster.nodes=7");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fit.yaml:14:17: key 'workload.global_batch'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("28 GPUs"), std::string::npos) << r.err;
}

// A zipped sweep (nodes and per-GPU batch together, one global batch) over --out, interrupted
// and resumed: the same bytes as uninterrupted, and its points labelled by both keys.
TEST(SizeCli, ZippedSweepCheckpointsAndResumes) {
  Workspace ws("size_zip");
  const std::string path = ws.write("zip.yaml", std::string(kFitScenario) +
                                                    "sweep:\n"
                                                    "  zip:\n"
                                                    "    cluster.nodes: [4, 5]\n"
                                                    "    workload.global_batch: [3840, 4800]\n");
  const auto full = run("sweep " + path + " --format csv --out " + ws.path("full"));
  ASSERT_EQ(full.code, 0) << full.err;
  EXPECT_NE(full.out.find("\"cluster.nodes=4,workload.global_batch=3840\""), std::string::npos)
      << full.out;
  EXPECT_NE(full.out.find("\"cluster.nodes=5,workload.global_batch=4800\""), std::string::npos)
      << full.out;
  const auto resumed =
      run("sweep " + path + " --format csv --out " + ws.path("full") + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(resumed.out, full.out);
  EXPECT_NE(resumed.err.find("resume: 2 of 2 runs already finished"), std::string::npos)
      << resumed.err;
}

}  // namespace size_cli_test

}  // namespace
}  // namespace shardsim
