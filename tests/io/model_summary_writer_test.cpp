// The model summary's writers (io/model_summary_writer.hpp; docs/report.md "Model summary"):
// line prefixes, and what a preset without a host block and a bound that never fits print.
#include "shardsim/io/model_summary_writer.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace shardsim {
namespace model_summary_writer_test {

ModelSummary no_host_summary() {
  ModelSummary s;
  s.tables = 2;
  s.rows = 1'500'000;
  s.size_classes.resize(1);
  s.size_classes[0].label = "< 1 MB";
  s.preset = "hand";
  s.gpus_per_node = 8;
  s.scenario_nodes = 1;
  s.hbm_bytes_per_gpu = 40e9;
  s.hbm_nodes = NodeBound{true, 3, 24};
  s.hbm_nodes_one_sided = NodeBound{true, 1, 8};
  return s;
}

TEST(ModelSummaryWriter, TextLinesCarryThePrefix) {
  std::ostringstream out;
  write_model_summary_text(out, no_host_summary(), 2.5e6, "model", "# ");
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("# model\n#   tables: 2, 1,500,000 rows\n", 0), 0u) << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_EQ(line.rfind("# ", 0), 0u) << line;
  EXPECT_NE(text.find("#     tables in HBM: 3 nodes (24 GPUs)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("one-sided plans (no lookup activations): 1 node (8 GPUs)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tables in host memory allowed: not computed (the preset has no host block)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("shardsim's own RAM: about 2.5 MB"), std::string::npos) << text;
}

TEST(ModelSummaryWriter, JsonNullsWhatDoesNotExist) {
  ModelSummary s = no_host_summary();
  s.hbm_nodes = NodeBound{};
  const auto j = model_summary_to_json(s, std::nullopt);
  EXPECT_TRUE(j["min_nodes"]["hbm"].is_null());
  EXPECT_EQ(j["min_nodes"]["hbm_one_sided"]["gpus"], 8);
  EXPECT_TRUE(j["min_nodes"]["host_tier"].is_null());
  EXPECT_TRUE(j["shardsim_ram_estimate_bytes"].is_null());
  EXPECT_EQ(j["size_classes"][0]["class"], "< 1 MB");
  std::ostringstream out;
  write_model_summary_text(out, s, std::nullopt);
  EXPECT_NE(out.str().find("tables in HBM: none (no cluster of up to 4,194,304 GPUs holds it)"),
            std::string::npos)
      << out.str();
  EXPECT_EQ(out.str().find("shardsim's own RAM"), std::string::npos) << out.str();
}

TEST(ModelSummaryWriter, DenseStateNamesTheDenseOptimizer) {
  ModelSummary s = no_host_summary();
  s.dense_optimizer = DenseOptimizerKind::sgd;
  std::ostringstream out;
  write_model_summary_text(out, s, std::nullopt);
  EXPECT_NE(out.str().find("(fp32 weights and gradients (SGD keeps no state))"), std::string::npos)
      << out.str();
  EXPECT_EQ(model_summary_to_json(s, std::nullopt)["dense_optimizer"], "sgd");
  s.dense_optimizer = DenseOptimizerKind::adam;
  out.str("");
  write_model_summary_text(out, s, std::nullopt);
  EXPECT_NE(out.str().find("gradients and two Adam moments"), std::string::npos) << out.str();
}

}  // namespace model_summary_writer_test
}  // namespace shardsim
