// `shardsim validate SCENARIO --tables-out FILE` (docs/scenario.md "Freezing a generated model"):
// the frozen scenario, its `generate:` block replaced by the written list, gives the same report
// as the original; an existing FILE is refused without --force; .json gives JSON.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/cli_run.hpp"

namespace shardsim {
namespace tables_out_cli_test {

using testing::Result;
using testing::run;
using testing::Workspace;

std::string scenario(const std::string& model_tables) {
  return "name: freeze\n"
         "cluster: {preset: dgx-a100, nodes: 1}\n"
         "model:\n" +
         model_tables +
         "  bottom_mlp: [64, 16]\n"
         "  top_mlp: [64, 1]\n"
         "workload: {batch_per_gpu: 256, iterations: 2, warmup: 1, seed: 9}\n"
         "placement: {planner: [table_wise, row_wise]}\n";
}

const char* kGenerated =
    "  tables:\n"
    "    - {name: listed, rows: 40000, dim: 32, pooling: {dist: lognormal, mean: 6, sigma: 0.5}}\n"
    "  generate:\n"
    "    count: 24\n"
    "    rows: {dist: lognormal, median: 200000, sigma: 1.2, min: 100}\n"
    "    dim: [16, 32, 64]\n"
    "    pooling: {dist: lognormal, median: 5, sigma: 0.8, min: 1, max: 60}\n"
    "    alpha: {dist: uniform, min: 0.7, max: 1.3}\n";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The reports without what names the scenario's file and text (those differ).
nlohmann::json numbers_of(const std::string& report_json) {
  nlohmann::json j = nlohmann::json::parse(report_json);
  for (auto& r : j["reports"]) {
    r.erase("input_hashes");
    r.erase("scenario_source");
    r.erase("scenario_values");  // the document itself: generated vs listed tables
  }
  return j;
}

TEST(TablesOutCli, TheFrozenScenarioGivesTheSameReport) {
  Workspace ws("shardsim_tables_out");
  const std::string original = ws.write("generated.yaml", scenario(kGenerated));
  std::string err;
  const Result v = run("validate " + original + " --tables-out " + ws.path("tables.yaml"), &err);
  ASSERT_EQ(v.code, 0) << err;
  EXPECT_NE(err.find("wrote the 25 tables of 'freeze' to"), std::string::npos) << err;
  const std::string tables = read(ws.path("tables.yaml"));
  EXPECT_EQ(
      tables.rfind("# The 25 embedding tables, listed and generated, of scenario 'freeze'", 0), 0u)
      << tables;
  std::string indented;  // under model:
  std::istringstream lines(tables);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind('#', 0) != 0) indented += "  " + line + "\n";
  }
  const std::string frozen = ws.write("frozen.yaml", scenario(indented));

  const Result a = run("run " + original + " --format json", &err);
  ASSERT_EQ(a.code, 0) << err;
  const Result b = run("run " + frozen + " --format json", &err);
  ASSERT_EQ(b.code, 0) << err;
  const nlohmann::json diff = nlohmann::json::diff(numbers_of(a.out), numbers_of(b.out));
  EXPECT_TRUE(diff.empty()) << diff.dump().substr(0, 2000);

  // Frozen again: the same list (a fixed point), only the header's source differs.
  const Result again = run("validate " + frozen + " --tables-out " + ws.path("again.yaml"), &err);
  ASSERT_EQ(again.code, 0) << err;
  const std::string second = read(ws.path("again.yaml"));
  EXPECT_EQ(tables.substr(tables.find("tables:\n")), second.substr(second.find("tables:\n")));
}

TEST(TablesOutCli, AnExistingFileNeedsForce) {
  Workspace ws("shardsim_tables_out_force");
  const std::string path = ws.write("s.yaml", scenario(kGenerated));
  const std::string out = ws.write("mine.yaml", "my own notes\n");
  std::string err;
  const Result refused = run("validate " + path + " --tables-out " + out, &err);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(err.find("--tables-out"), std::string::npos) << err;
  EXPECT_NE(err.find("--force"), std::string::npos) << err;
  EXPECT_EQ(read(out), "my own notes\n");  // untouched
  const Result forced = run("validate " + path + " --tables-out " + out + " --force", &err);
  EXPECT_EQ(forced.code, 0) << err;
  EXPECT_NE(read(out).find("tables:\n"), std::string::npos);
  // A folder that does not exist: an error naming the key, nothing written.
  const Result missing =
      run("validate " + path + " --tables-out " + ws.path("no/such/t.yaml"), &err);
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(err.find("--tables-out"), std::string::npos) << err;
}

TEST(TablesOutCli, JsonForANameEndingInJson) {
  Workspace ws("shardsim_tables_out_json");
  const std::string path = ws.write("s.yaml", scenario(kGenerated));
  std::string err;
  const Result r = run("validate " + path + " --tables-out " + ws.path("t.json"), &err);
  ASSERT_EQ(r.code, 0) << err;
  const nlohmann::json j = nlohmann::json::parse(read(ws.path("t.json")));
  EXPECT_EQ(j["scenario"], "freeze");
  ASSERT_EQ(j["tables"].size(), 25u);
  EXPECT_EQ(j["tables"][0]["name"], "listed");
  EXPECT_EQ(j["tables"][0]["pooling"]["dist"], "lognormal");
  EXPECT_EQ(j["tables"][1]["name"], "gen0");
  EXPECT_TRUE(j["tables"][1]["pooling"].is_number());
}

}  // namespace tables_out_cli_test
}  // namespace shardsim
