// End-to-end tests of `shardsim baseline` and `shardsim compare`: golden files, exit codes,
// planted regressions, stale baselines, bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_run.hpp"

namespace {

using shardsim::testing::Result;
using shardsim::testing::run;
using shardsim::testing::unique_temp;
using shardsim::testing::write_temp;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

const char* kScenario = R"(name: small
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

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A scenario file and its baseline, written once per test.
class CompareCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = unique_temp("shardsim_golden");
    fs::create_directories(dir_);
    scenario_ = dir_ + "/small.yaml";
    std::ofstream(scenario_) << kScenario;
    golden_ = dir_ + "/golden";
    const Result r = run("baseline " + scenario_ + " --out " + golden_ + " --quiet");
    ASSERT_EQ(r.code, 0) << r.out;
    baseline_ = golden_ + "/small.json";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The baseline with `edit` applied, written as a candidate file.
  template <typename F>
  std::string candidate(F edit) {
    Json j = Json::parse(read(baseline_));
    edit(j);
    const std::string path = dir_ + "/candidate_" + std::to_string(count_++) + ".json";
    std::ofstream(path) << j.dump(2);
    return path;
  }

  std::string dir_, scenario_, golden_, baseline_;
  int count_ = 0;
};

TEST_F(CompareCli, BaselineIsPrettyStableAndCarriesItsInputs) {
  const std::string text = read(baseline_);
  EXPECT_EQ(text.rfind("{\n  \"reports\": [\n    {\n      \"scenario\": \"small\",\n", 0), 0u);
  const Json j = Json::parse(text);
  ASSERT_EQ(j["reports"].size(), 2u);
  for (const Json& r : j["reports"]) {
    EXPECT_EQ(r["seed"], 7);
    EXPECT_TRUE(r["shardsim_version"].is_string());
    for (const char* k : {"scenario", "hardware", "cost"}) {
      EXPECT_EQ(r["input_hashes"][k].get<std::string>().rfind("fnv1a64:", 0), 0u) << k;
    }
  }
  // Refuses to overwrite; --force overwrites with the same bytes.
  std::string err;
  Result r = run("baseline " + scenario_ + " --out " + golden_, &err);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(err.find("small.json already exists"), std::string::npos) << err;
  EXPECT_NE(err.find("--force"), std::string::npos) << err;
  r = run("baseline " + scenario_ + " --out " + golden_ + " --force --quiet");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("small.json: 2 report(s) of 'small', seed(s) 7"), std::string::npos)
      << r.out;
  EXPECT_EQ(read(baseline_), text);
  for (const auto& e : fs::directory_iterator(golden_)) {
    EXPECT_EQ(e.path().filename(), "small.json");  // no temporary left behind
  }
}

TEST_F(CompareCli, IdenticalReportsPass) {
  Result r = run("compare " + baseline_ + " " + baseline_ + " --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2 compared (0 regressed, 0 improved)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: ok"), std::string::npos);
  // The scenario run again on the spot gives the same numbers.
  r = run("compare " + baseline_ + " " + scenario_ + " --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  // Directories of reports.
  r = run("compare " + golden_ + " " + golden_ + " --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST_F(CompareCli, PlantedFivePercentQpsRegressionFailsNamingMetricAndScenario) {
  const std::string cand = candidate([](Json& j) {
    Json& qps = j["reports"][1]["qps"];
    qps = qps.get<double>() * 0.95;
  });
  std::string err;
  Result r = run("compare " + baseline_ + " " + cand, &err);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("small | planner row_wise | seed 7: REGRESSED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("regressed:\n  small / row_wise: qps "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(-5.00%, tolerance 1%)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: FAILED (exit 1)"), std::string::npos);
  EXPECT_NE(err.find("failed"), std::string::npos) << err;
  // The same in JSON and CSV.
  r = run("compare " + baseline_ + " " + cand + " --quiet --format json");
  EXPECT_EQ(r.code, 1);
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["result"], "failed");
  EXPECT_EQ(j["pairs"][1]["scenario"], "small");
  EXPECT_EQ(j["pairs"][1]["verdict"], "regressed");
  r = run("compare " + baseline_ + " " + cand + " --quiet --format csv");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("small,row_wise,,7,compared,qps,higher,"), std::string::npos) << r.out;
  // A looser tolerance lets it pass.
  r = run("compare " + baseline_ + " " + cand + " --quiet --tolerance qps=6%");
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST_F(CompareCli, ImprovementsPassAndAreReported) {
  const std::string cand = candidate([](Json& j) {
    Json& qps = j["reports"][0]["qps"];
    qps = qps.get<double>() * 1.05;
  });
  const Result r = run("compare " + baseline_ + " " + cand + " --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("small | planner table_wise | seed 7: improved"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("improved:\n  small / table_wise: qps "), std::string::npos) << r.out;
}

TEST_F(CompareCli, StaleBaselineIsReportedNotCompared) {
  Result r =
      run("compare " + baseline_ + " " + scenario_ + " --set workload.batch_per_gpu=512 --quiet");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("seed 7: STALE: the scenario document changed (global_batch 8192 vs "
                       "4096)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("  qps "), std::string::npos) << r.out;  // no metric table
  EXPECT_NE(r.out.find("2 stale"), std::string::npos);
  r = run("compare " + baseline_ + " " + scenario_ + " --set cluster.preset=dgx-h100 --quiet");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("the hardware preset changed"), std::string::npos) << r.out;
}

TEST_F(CompareCli, VersionOnlyChangeIsNotStale) {
  const std::string cand = candidate([](Json& j) {
    for (Json& rep : j["reports"]) rep["shardsim_version"] = "9.9.9";
  });
  const Result r = run("compare " + baseline_ + " " + cand + " --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("shardsim versions differ"), std::string::npos) << r.out;
}

TEST_F(CompareCli, MismatchedAndUnmatchedReportsAreReported) {
  Result r = run("compare " + baseline_ + " " + scenario_ + " --seed 8 --quiet");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("MISMATCHED: different seeds: baseline 7, candidate 8"), std::string::npos)
      << r.out;
  const std::string one = candidate([](Json& j) { j = Json(j["reports"][0]); });
  r = run("compare " + baseline_ + " " + one + " --quiet");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("planner row_wise | seed 7: BASELINE ONLY"), std::string::npos) << r.out;
  r = run("compare " + baseline_ + " " + one + " --quiet --allow-unmatched");
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST_F(CompareCli, SeveralSeedsCompareMeans) {
  const std::string golden = dir_ + "/seeds";
  Result r = run("baseline " + scenario_ + " --out " + golden + " --seeds 2 --quiet");
  ASSERT_EQ(r.code, 0);
  const Json j = Json::parse(read(golden + "/small.json"));
  ASSERT_EQ(j["reports"].size(), 4u);  // seeds 7 and 8, two planners each
  EXPECT_EQ(j["reports"][2]["seed"], 8);
  // The scenario side runs the baseline's seeds.
  r = run("compare " + golden + "/small.json " + scenario_ + " --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("| 2 seeds (7, 8), means: ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("noise"), std::string::npos) << r.out;
  r = run("compare " + golden + "/small.json " + scenario_ + " --seeds 3 --quiet");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("different seeds: baseline 7, 8, candidate 7, 8, 9"), std::string::npos)
      << r.out;
}

TEST_F(CompareCli, BadInputExitsTwo) {
  std::string err;
  EXPECT_EQ(run("compare " + dir_ + "/nope.json " + baseline_, &err).code, 2);
  EXPECT_NE(err.find("nope.json"), std::string::npos) << err;
  const std::string malformed = write_temp("malformed.json", "{\"reports\": [\n  {\"scenario\"\n");
  EXPECT_EQ(run("compare " + baseline_ + " " + malformed, &err).code, 2);
  EXPECT_NE(err.find("malformed.json:"), std::string::npos) << err;
  const std::string other = write_temp("other.json", "{\"name\": \"not a report\"}");
  EXPECT_EQ(run("compare " + baseline_ + " " + other, &err).code, 2);
  EXPECT_NE(err.find("not a shardsim report"), std::string::npos) << err;
  EXPECT_EQ(run("compare " + baseline_ + " " + baseline_ + " --tolerance qsp=1%", &err).code, 2);
  EXPECT_NE(err.find("did you mean 'qps'"), std::string::npos) << err;
  const std::string tol = write_temp("tol.yaml", "tolerances:\n  qps: -1\n");
  EXPECT_EQ(run("compare " + baseline_ + " " + baseline_ + " --tolerances " + tol, &err).code, 2);
  EXPECT_NE(err.find("tol.yaml:2:"), std::string::npos) << err;
  EXPECT_EQ(run("compare " + baseline_ + " " + baseline_ + " --seeds 2", &err).code, 2);
  EXPECT_NE(err.find("neither side is one"), std::string::npos) << err;
  const std::string bad_scenario = write_temp("bad.yaml", "name: x\ncluster: {presett: a}\n");
  EXPECT_EQ(run("compare " + baseline_ + " " + bad_scenario, &err).code, 2);
  EXPECT_EQ(run("baseline " + bad_scenario + " --out " + dir_ + "/x", &err).code, 2);
  EXPECT_FALSE(fs::exists(dir_ + "/x/bad.json"));
  EXPECT_EQ(run("compare " + baseline_, &err).code, 2);  // CANDIDATE missing
}

}  // namespace
