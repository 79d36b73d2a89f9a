// `shardsim diff A B` end to end (io/report_diff.hpp): the scenario keys that differ, the
// metrics' change, unmatched planners, and a missing file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace shardsim::diff_cli_test {
namespace {

using testing::run;

struct Runs : testing::Workspace {
  Runs() : testing::Workspace("shardsim_diff") {}
  // report.json of the default scenario (table_wise, row_wise) with `sets`.
  std::string report(const std::string& name, const std::string& sets) const {
    const std::string out = path(name);
    const auto r =
        run("run --set workload.iterations=2 --set placement.planner=[table_wise,row_wise] " +
            sets + " --out " + out + " --quiet");
    EXPECT_EQ(r.code, 0) << r.err;
    return out;
  }
};

TEST(DiffCli, NamesExactlyTheKeyThatChangedAndTheQpsChange) {
  const Runs ws;
  const std::string a = ws.report("a", "");
  const std::string b = ws.report("b", "--set model.precision.comms=fp16");
  const auto r = run("diff " + a + " " + b + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["pairs"].size(), 2u);
  for (const auto& p : j["pairs"]) {
    ASSERT_EQ(p["keys"].size(), 1u) << p.dump();
    EXPECT_EQ(p["keys"][0]["key"], "model.precision.comms");
    EXPECT_EQ(p["keys"][0]["after"], "\"fp16\"");
  }
  // fp16 halves the row-wise plan's AlltoAll bytes: its QPS rises.
  const auto& rw = j["pairs"][1];
  EXPECT_EQ(rw["planner"], "row_wise");
  EXPECT_GT(rw["metrics"]["qps"]["relative"].get<double>(), 0.05);
  const auto text = run("diff " + a + " " + b);
  EXPECT_NE(text.out.find("model.precision.comms: \"fp32\" -> \"fp16\""), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("bound by"), std::string::npos);
}

TEST(DiffCli, IdenticalRunsHaveNoChanges) {
  const Runs ws;
  const std::string a = ws.report("a", "");
  const std::string b = ws.report("b", "");
  const auto r = run("diff " + a + "/report.json " + b + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);  // kept: the loop reads into it
  for (const auto& p : j["pairs"]) {
    EXPECT_TRUE(p["keys"].empty());
    EXPECT_EQ(p["metrics"]["qps"]["change"], 0.0);
  }
  EXPECT_NE(run("diff " + a + " " + b).out.find("scenario keys: no changes"), std::string::npos);
}

TEST(DiffCli, SeveralKeysAndPlannersOnOneSide) {
  const Runs ws;
  const std::string a = ws.report("a", "");
  const std::string b = ws.report("b",
                                  "--set cluster.nodes=1 --set workload.batch_per_gpu=2048 "
                                  "--set placement.planner=[table_wise,data_parallel]");
  const auto j = nlohmann::json::parse(run("diff " + a + " " + b + " --format json").out);
  ASSERT_EQ(j["pairs"].size(), 1u);
  std::vector<std::string> keys;
  for (const auto& k : j["pairs"][0]["keys"]) keys.push_back(k["key"]);
  EXPECT_EQ(keys, (std::vector<std::string>{"cluster.nodes", "placement.planner",
                                            "workload.batch_per_gpu"}));
  EXPECT_EQ(j["only_before"], nlohmann::json::array({"row_wise"}));
  EXPECT_EQ(j["only_after"], nlohmann::json::array({"data_parallel"}));
}

TEST(DiffCli, AMissingFileExitsTwo) {
  const Runs ws;
  const std::string a = ws.report("a", "");
  const auto r = run("diff " + a + " " + ws.path("nothing.json"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nothing.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace shardsim::diff_cli_test
