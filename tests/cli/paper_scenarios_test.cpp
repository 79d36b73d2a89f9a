// The reproduction scenarios under scenarios/papers/ (scripts/reproduce.sh): every one validates
// and runs for one iteration, the experiments of one paper use the same dataset tables (they are
// written out in each file), and an OPER plan of one of them goes through a plan file and back
// into a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "shardsim/io/scenario_loader.hpp"
#include "support/cli_run.hpp"

namespace shardsim {
namespace {

namespace fs = std::filesystem;
using testing::run;

std::vector<fs::path> paper_scenarios() {
  std::vector<fs::path> out;
  for (const auto& e :
       fs::recursive_directory_iterator(fs::path(SHARDSIM_SOURCE_DIR) / "scenarios" / "papers")) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PaperScenarios, EveryOneValidates) {
  const auto files = paper_scenarios();
  EXPECT_GE(files.size(), 9u);
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    const testing::Result r = run("validate " + f.string());
    EXPECT_EQ(r.code, 0) << r.err;
  }
}

// Every scenario as written, for one iteration. The paper drivers run these scenarios; the
// sanitizer build leaves the drivers' smoke runs to the plain build (scripts/test.sh), so these
// are its runs of them. A scenario whose driver always sets an option gets it here.
class PaperScenarioRun : public ::testing::TestWithParam<fs::path> {};

TEST_P(PaperScenarioRun, OneIterationRuns) {
  const fs::path& f = GetParam();
  const std::map<std::string, std::string> driver_options = {
      {"2d-table1.yaml", " --set placement.options.groups=4"},  // the driver sweeps the groups
      {"2d-table1-exfm.yaml", " --set placement.options.groups=4"},
  };
  const auto extra = driver_options.find(f.filename().string());
  const testing::Result r = run("run " + f.string() + " --iterations 1 --quiet --format json" +
                                (extra == driver_options.end() ? std::string() : extra->second));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out.substr(0, 200);
}

INSTANTIATE_TEST_SUITE_P(Papers, PaperScenarioRun, ::testing::ValuesIn(paper_scenarios()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string name =
                               fs::relative(info.param,
                                            fs::path(SHARDSIM_SOURCE_DIR) / "scenarios" / "papers")
                                   .replace_extension()
                                   .string();
                           for (char& c : name) {
                             if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
                           }
                           return name;
                         });

// Each table of a scenario as "name:rows:dim:pooling:alpha".
std::vector<std::string> table_signatures(const fs::path& scenario) {
  const Scenario sc = load_scenario_file(scenario.string());
  std::vector<std::string> tables;
  for (const auto& t : sc.model.tables) {
    tables.push_back(t.name + ":" + std::to_string(t.rows) + ":" + std::to_string(t.dim) + ":" +
                     std::to_string(t.pooling.expected()) + ":" + std::to_string(t.alpha));
  }
  return tables;
}

TEST(PaperScenarios, OneDatasetHasTheSameTablesInEveryExperiment) {
  // oper-fig10/avazu.yaml and oper-table2/avazu.yaml must describe the same model.
  std::map<std::string, std::vector<std::string>> tables_by_dataset;
  for (const fs::path& f : paper_scenarios()) {
    const std::vector<std::string> tables = table_signatures(f);
    const std::string key = f.parent_path().filename().string().substr(0, 4) + "/" +
                            f.stem().string();  // paper prefix + dataset
    auto [it, fresh] = tables_by_dataset.try_emplace(key, tables);
    if (!fresh) {
      EXPECT_EQ(it->second, tables) << f;
    }
  }
  EXPECT_GE(tables_by_dataset.size(), 4u);
}

TEST(PaperScenarios, TwoDTable1sExfmIsTable2sModel) {
  // 2D Table 1's ExFM rows run Table 2's ExFM stand-in at another GPU count and batch.
  const fs::path papers = fs::path(SHARDSIM_SOURCE_DIR) / "scenarios" / "papers";
  const std::vector<std::string> table1 = table_signatures(papers / "2d-table1-exfm.yaml");
  EXPECT_EQ(table1.size(), 4000u);
  EXPECT_EQ(table1, table_signatures(papers / "2d-table2.yaml"));
  const Scenario a = load_scenario_file((papers / "2d-table1-exfm.yaml").string());
  const Scenario b = load_scenario_file((papers / "2d-table2.yaml").string());
  EXPECT_EQ(a.model.dense_features, b.model.dense_features);
  EXPECT_EQ(a.model.bottom_mlp, b.model.bottom_mlp);
  EXPECT_EQ(a.model.top_mlp, b.model.top_mlp);
  EXPECT_EQ(a.model.dense_arch.flops_per_sample, b.model.dense_arch.flops_per_sample);
  EXPECT_EQ(a.model.dense_arch.parameters, b.model.dense_arch.parameters);
  EXPECT_EQ(a.model.interaction, b.model.interaction);
  EXPECT_EQ(a.model.comm_precision, b.model.comm_precision);
  EXPECT_EQ(a.model.comm_bwd_precision, b.model.comm_bwd_precision);
  EXPECT_EQ(a.model.dense_grad_precision, b.model.dense_grad_precision);
  EXPECT_EQ(a.workload.batch_per_gpu, 896u);  // Table 1's ExFM batch (§4.2); Table 2's is 1152
}

TEST(PaperScenarios, OperPlanFileRoundTripsIntoARun) {
  const std::string scenario =
      std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/papers/oper-table3/criteo-kaggle.yaml";
  const std::string plan = testing::unique_temp("oper_plan") + ".yaml";
  ASSERT_EQ(run("plan " + scenario + " --planner oper --out " + plan + " --quiet").code, 0);
  const std::string text = [&] {
    std::ifstream in(plan);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  EXPECT_NE(text.find("communication: one_sided"), std::string::npos);
  EXPECT_NE(text.find("replica_sync: local_aggregated"), std::string::npos);
  // The file simulated gives the same report as the planner (placement.file, one iteration).
  const testing::Result direct =
      run("run " + scenario + " --set 'placement.planner=[oper]' --format json --quiet");
  const testing::Result from_file =
      run("run " + scenario + " --set 'placement={file: " + plan + "}' --format json --quiet");
  ASSERT_EQ(direct.code, 0) << direct.err;
  ASSERT_EQ(from_file.code, 0) << from_file.err;
  const auto a = nlohmann::json::parse(direct.out), b = nlohmann::json::parse(from_file.out);
  ASSERT_TRUE(a["iteration_time_s"].is_object()) << direct.out.substr(0, 200);
  EXPECT_EQ(a["planner"], "oper");
  EXPECT_EQ(a["iteration_time_s"], b["iteration_time_s"]);
  EXPECT_EQ(a["comm_bytes"], b["comm_bytes"]);
  EXPECT_EQ(a["memory_bytes"], b["memory_bytes"]);
}

}  // namespace
}  // namespace shardsim
