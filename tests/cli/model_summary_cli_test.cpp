// The model summary (docs/report.md "Model summary") that `validate` and `plan` print after what
// they printed before: as text, in JSON, and as YAML comments after a plan on stdout.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "shardsim/hw/cluster.hpp"
#include "shardsim/io/plan_file.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/plan/model_summary.hpp"
#include "support/cli_run.hpp"

namespace shardsim {
namespace model_summary_cli_test {

using testing::Result;
using testing::run;
using testing::Workspace;

// Two listed tables and ten generated ones of 10M rows x 64 fp32 columns (2.56 GB each).
const char* kGenerated = R"(name: summary
cluster: {preset: dgx-a100, nodes: 1}
model:
  tables:
    - {name: a, rows: 100000, dim: 32, pooling: 4, alpha: 1.05}
    - {name: b, rows: 2000000, dim: 64, pooling: 2, alpha: 0.9}
  generate: {count: 10, rows: 10000000, dim: 64, pooling: 5, alpha: 1.0}
  bottom_mlp: [64, 32]
  top_mlp: [64, 1]
workload: {batch_per_gpu: 1024, iterations: 2, warmup: 1, seed: 7}
placement: {planner: [table_wise, row_wise]}
)";

// GPUs of 2 GiB without a reserve: the 26 GB of tables need several nodes.
const char* kSmallGpus =
    " --set cluster.overrides.gpu.hbm_capacity_GiB=2 --set cluster.overrides.reserved_memory_GiB=0";

TEST(ModelSummaryCli, ValidatePrintsTheModelAfterItsLine) {
  Workspace ws("shardsim_summary_cli");
  const std::string path = ws.write("s.yaml", kGenerated);
  std::string err;
  const Result r = run("validate " + path, &err);
  ASSERT_EQ(r.code, 0) << err;
  // The line it printed before comes first, unchanged.
  EXPECT_EQ(r.out.find(path + ": OK: 'summary', 12 tables, 1 x dgx-a100 (8 GPUs), 2 planner(s); "
                              "estimated memory "),
            0u)
      << r.out;
  for (const char* part :
       {"\nmodel\n", "  tables: 12, 102,100,000 rows\n", "weights per table", "1 - 10 GB",
        "  embedding weights: 26.12 GB (fp32 rows at their stored size)\n",
        "  optimizer state: 408.4 MB (rowwise_adagrad)\n", "activations per sample:",
        "batch: 1,024 per GPU, global 8,192 on 8 GPUs", "base memory per GPU:",
        "fewest nodes of dgx-a100 by memory alone (a lower bound: perfect packing",
        "    tables in HBM: 1 node (8 GPUs)\n", "one-sided plans", "tables in host memory allowed",
        "shardsim's own RAM: about", "not the GPUs'"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  // The generated tables: 10 in 1 - 10 GB (2.56 GB each), b (512 MB) and a (12.8 MB) below.
  const Result j = run("validate " + path + " --format json" + kSmallGpus, &err);
  ASSERT_EQ(j.code, 0) << err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["status"], "OK");
  EXPECT_EQ(doc["tables"], 12);
  const auto& m = doc["model"];
  EXPECT_EQ(m["tables"], 12);
  EXPECT_EQ(m["size_classes"][1]["tables"], 2);
  EXPECT_EQ(m["size_classes"][2]["tables"], 10);
  EXPECT_DOUBLE_EQ(m["size_classes"][2]["weight_bytes"].get<double>(), 10 * 2.56e9);
  EXPECT_DOUBLE_EQ(m["weight_bytes"].get<double>(), 10 * 2.56e9 + 512e6 + 12.8e6);
  EXPECT_DOUBLE_EQ(m["optimizer_bytes"].get<double>(), 4.0 * 102'100'000);
  EXPECT_GT(m["shardsim_ram_estimate_bytes"].get<double>(), 0);
  // The same numbers as the library's summary of the loaded scenario; several nodes.
  const Scenario sc = load_scenario_file(path, {{"cluster.overrides.gpu.hbm_capacity_GiB", "2"},
                                                {"cluster.overrides.reserved_memory_GiB", "0"}});
  const ModelSummary s = summarize_model(sc.model, sc.workload, sc.cluster.preset, 1);
  ASSERT_TRUE(s.hbm_nodes.fits);
  EXPECT_GT(s.hbm_nodes.nodes, 1);
  // At least the stored bytes over 8 GPUs of 2 GiB a node.
  EXPECT_GE(s.hbm_nodes.nodes * 8 * 2 * 1073741824.0, s.stored_bytes());
  EXPECT_EQ(m["min_nodes"]["hbm"]["nodes"], s.hbm_nodes.nodes);
  EXPECT_EQ(m["min_nodes"]["hbm"]["gpus"], s.hbm_nodes.gpus);
  EXPECT_EQ(m["min_nodes"]["hbm_one_sided"]["nodes"], s.hbm_nodes_one_sided.nodes);
  EXPECT_EQ(m["min_nodes"]["host_tier"]["nodes"], s.host_tier_nodes.nodes);
  EXPECT_DOUBLE_EQ(m["base_bytes_per_gpu"].get<double>(), s.base_bytes_per_gpu);
}

TEST(ModelSummaryCli, ValidateOfASweepSummarisesItsFirstPoint) {
  Workspace ws("shardsim_summary_cli");
  const std::string path =
      ws.write("s.yaml", std::string(kGenerated) + "sweep: {cluster.nodes: [2, 4]}\n");
  std::string err;
  const Result r = run("validate " + path, &err);
  ASSERT_EQ(r.code, 0) << err;
  EXPECT_NE(r.out.find(": OK: 2 sweep points"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nmodel (sweep point 1 of 2: cluster.nodes=2)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("global 16,384 on 16 GPUs"), std::string::npos) << r.out;
}

TEST(ModelSummaryCli, PlanPrintsItAfterTheStatisticsAndAfterThePlan) {
  Workspace ws("shardsim_summary_cli");
  const std::string path = ws.write("s.yaml", kGenerated);
  std::string err;
  // --stats: after every plan's statistics.
  Result r = run("plan " + path + " --stats", &err);
  ASSERT_EQ(r.code, 0) << err;
  const std::size_t model = r.out.find("\nmodel\n");
  ASSERT_NE(model, std::string::npos) << r.out;
  EXPECT_LT(r.out.find("planner row_wise"), model) << r.out;
  EXPECT_NE(r.out.find("fewest nodes of dgx-a100", model), std::string::npos) << r.out;
  // In JSON, a "model" key beside the statistics (one plan) or the plans.
  r = run("plan " + path + " --planner table_wise --stats --format json", &err);
  ASSERT_EQ(r.code, 0) << err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["planner"], "table_wise");
  EXPECT_EQ(j["model"]["tables"], 12);
  r = run("plan " + path + " --stats --format json", &err);
  ASSERT_EQ(r.code, 0) << err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["plans"].size(), 2u);
  EXPECT_EQ(j["model"]["min_nodes"]["preset"], "dgx-a100");
  // A plan on stdout: the summary follows as YAML comments, so the text is still a plan file.
  r = run("plan " + path + " --planner table_wise", &err);
  ASSERT_EQ(r.code, 0) << err;
  const std::size_t comments = r.out.find("# model\n");
  ASSERT_NE(comments, std::string::npos) << r.out;
  std::istringstream tail(r.out.substr(comments));
  for (std::string line; std::getline(tail, line);) EXPECT_EQ(line.rfind('#', 0), 0u) << line;
  const std::string plan_path = ws.write("plan.yaml", r.out);
  const Scenario sc = load_scenario_file(path);
  const Plan plan =
      read_plan_file(plan_path, sc.model, Cluster(sc.cluster.preset, sc.cluster.nodes));
  EXPECT_EQ(plan.shards.size(), 12u);
  // --out: the plan goes to the file, the summary to stdout.
  r = run("plan " + path + " --planner table_wise --out " + ws.path("out.yaml"), &err);
  ASSERT_EQ(r.code, 0) << err;
  EXPECT_EQ(r.out.find("model\n"), 0u) << r.out;
}

}  // namespace model_summary_cli_test
}  // namespace shardsim
