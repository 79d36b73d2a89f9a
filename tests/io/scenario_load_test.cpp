// Loading the shipped scenarios (DESIGN.md §3 example and the built-in default) and the
// defaults of every optional key.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "io/scenario_yaml.hpp"
#include "scenario_test_helpers.hpp"
#include "shardsim/core/rng.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {
namespace {

using test::source_path;

TEST(ScenarioLoad, ExampleLoadsAsWritten) {
  const Scenario sc = load_scenario_file(source_path("scenarios/example.yaml"));
  EXPECT_EQ(sc.name, "example");
  EXPECT_EQ(sc.source, source_path("scenarios/example.yaml"));
  EXPECT_EQ(sc.cluster.preset.name, "dgx-a100");
  EXPECT_EQ(sc.cluster.nodes, 2);

  // 3 listed + 100 generated tables, listed first.
  ASSERT_EQ(sc.model.tables.size(), 103u);
  const EmbeddingTable& user = sc.model.tables[0];
  EXPECT_EQ(user.name, "user_id");
  EXPECT_EQ(user.rows, 40000000u);
  EXPECT_EQ(user.dim, 128u);
  EXPECT_EQ(user.pooling.kind, PoolingSpec::Kind::fixed);
  EXPECT_DOUBLE_EQ(user.pooling.value, 3);
  EXPECT_DOUBLE_EQ(user.alpha, 1.1);
  EXPECT_DOUBLE_EQ(user.q, 0);
  EXPECT_TRUE(user.heavy_hitters.empty());

  const EmbeddingTable& ad = sc.model.tables[1];
  EXPECT_EQ(ad.name, "ad_id");
  EXPECT_EQ(ad.rows, 5000000u);
  EXPECT_EQ(ad.dim, 64u);
  EXPECT_EQ(ad.pooling.kind, PoolingSpec::Kind::lognormal);
  EXPECT_DOUBLE_EQ(ad.pooling.mean, 15);
  EXPECT_DOUBLE_EQ(ad.pooling.sigma, 0.5);
  EXPECT_DOUBLE_EQ(ad.pooling.min, 0);  // no clip bounds given: [0, no upper clip)
  EXPECT_DOUBLE_EQ(ad.pooling.max, 0);  // 0 = no upper clip (model/validation.hpp)
  EXPECT_DOUBLE_EQ(ad.alpha, 1.05);

  const EmbeddingTable& item = sc.model.tables[2];
  EXPECT_EQ(item.name, "item");
  EXPECT_EQ(item.rows, 80000000u);
  EXPECT_DOUBLE_EQ(item.pooling.value, 20);
  EXPECT_DOUBLE_EQ(item.alpha, 0.9);
  EXPECT_DOUBLE_EQ(item.q, 50);
  ASSERT_EQ(item.heavy_hitters.size(), 2u);
  EXPECT_DOUBLE_EQ(item.heavy_hitters[0], 0.004);
  EXPECT_DOUBLE_EQ(item.heavy_hitters[1], 0.003);

  EXPECT_EQ(sc.model.tables[3].name, "gen0");
  EXPECT_EQ(sc.model.tables[102].name, "gen99");
  for (std::size_t i = 3; i < 103; ++i) {
    const EmbeddingTable& t = sc.model.tables[i];
    EXPECT_GE(t.rows, 10u);
    EXPECT_LE(t.rows, 2000000000u);
    EXPECT_TRUE(t.dim == 16 || t.dim == 32 || t.dim == 64 || t.dim == 128) << t.dim;
    EXPECT_GE(t.pooling.value, 1);
    EXPECT_LE(t.pooling.value, 40);
    EXPECT_GE(t.alpha, 0.8);
    EXPECT_LE(t.alpha, 1.3);
    EXPECT_DOUBLE_EQ(t.q, 0);
  }

  EXPECT_EQ(sc.model.dense_features, 13u);
  EXPECT_EQ(sc.model.bottom_mlp, (std::vector<std::uint32_t>{512, 256, 128}));
  EXPECT_EQ(sc.model.top_mlp, (std::vector<std::uint32_t>{1024, 1024, 512, 256, 1}));
  EXPECT_EQ(sc.model.table_precision, Precision::fp32);
  EXPECT_EQ(sc.model.comm_precision, Precision::fp32);
  EXPECT_EQ(sc.model.mlp_precision, Precision::tf32);  // default
  EXPECT_EQ(sc.model.optimizer, OptimizerKind::rowwise_adagrad);

  EXPECT_EQ(sc.workload.mode, Mode::training);
  EXPECT_EQ(sc.workload.batch_per_gpu, 4096u);
  EXPECT_EQ(sc.workload.iterations, 10);
  EXPECT_EQ(sc.workload.warmup, 2);
  EXPECT_EQ(sc.workload.seed, 42u);
  EXPECT_EQ(sc.workload.trace.layout, HotRowLayout::scattered);
  EXPECT_EQ(sc.workload.trace.mode, TraceMode::expected);

  EXPECT_EQ(sc.placement.planners, (std::vector<std::string>{"table_wise", "row_wise"}));
  EXPECT_TRUE(sc.placement.options.is_map());
  EXPECT_TRUE(sc.placement.options.keys().empty());
  EXPECT_EQ(sc.placement.options.file(), source_path("scenarios/example.yaml"));
  EXPECT_EQ(sc.placement.options.path(), "placement.options");

  ASSERT_EQ(sc.sweep.size(), 1u);
  EXPECT_EQ(sc.sweep[0].key, "cluster.nodes");
  ASSERT_EQ(sc.sweep[0].values.size(), 3u);
  EXPECT_EQ(sc.sweep[0].values[0].as_string(), "1");
  EXPECT_EQ(sc.sweep[0].values[2].as_string(), "4");
}

TEST(ScenarioLoad, DefaultFileLoads) {
  const Scenario sc = load_scenario_file(source_path("scenarios/default.yaml"));
  EXPECT_EQ(sc.name, "default-criteo-kaggle");
  EXPECT_EQ(sc.cluster.preset.name, "dgx-a100");
  EXPECT_EQ(sc.cluster.nodes, 2);
  ASSERT_EQ(sc.model.tables.size(), 26u);
  EXPECT_EQ(sc.model.tables[0].name, "C1");
  EXPECT_EQ(sc.model.tables[0].rows, 1460u);
  EXPECT_EQ(sc.model.tables[2].rows, 10131227u);  // C3, the largest Criteo Kaggle feature
  EXPECT_EQ(sc.model.tables[25].name, "C26");
  EXPECT_EQ(sc.model.tables[25].rows, 142572u);
  for (const auto& t : sc.model.tables) {
    EXPECT_EQ(t.dim, 16u);
    EXPECT_DOUBLE_EQ(t.pooling.value, 1);
    EXPECT_DOUBLE_EQ(t.alpha, 1.05);
  }
  EXPECT_EQ(sc.model.bottom_mlp, (std::vector<std::uint32_t>{512, 256, 64, 16}));
  EXPECT_EQ(sc.model.top_mlp, (std::vector<std::uint32_t>{512, 256, 1}));
  EXPECT_EQ(sc.workload.batch_per_gpu, 4096u);
  EXPECT_EQ(sc.placement.planners,
            (std::vector<std::string>{"table_wise", "row_wise", "data_parallel"}));
  EXPECT_TRUE(sc.placement.options.is_null());
  EXPECT_TRUE(sc.sweep.empty());
}

TEST(ScenarioLoad, BuiltInDefaultIsTheShippedFile) {
  std::ifstream in(source_path("scenarios/default.yaml"));
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(default_scenario_text(), ss.str());
  const Scenario sc = load_default_scenario();
  EXPECT_EQ(sc.source, kBuiltinDefaultSource);
  EXPECT_EQ(sc.model.tables.size(), 26u);
  const Scenario four = load_default_scenario({parse_override("cluster.nodes=4")});
  EXPECT_EQ(four.cluster.nodes, 4);
}

TEST(ScenarioLoad, TinyScenarioGetsTheDocumentedDefaults) {
  const Scenario sc = load_scenario_text(test::tiny_text(), "tiny.yaml");
  EXPECT_EQ(sc.name, "tiny");
  EXPECT_EQ(sc.cluster.nodes, 1);
  ASSERT_EQ(sc.model.tables.size(), 2u);
  EXPECT_DOUBLE_EQ(sc.model.tables[1].alpha, 1.0);
  EXPECT_DOUBLE_EQ(sc.model.tables[1].q, 0.0);
  EXPECT_EQ(sc.model.dense_features, 13u);
  EXPECT_EQ(sc.model.table_precision, Precision::fp32);
  EXPECT_EQ(sc.model.comm_precision, Precision::fp32);
  EXPECT_EQ(sc.model.mlp_precision, Precision::tf32);
  EXPECT_EQ(sc.workload.mode, Mode::training);
  EXPECT_EQ(sc.workload.iterations, 10);
  EXPECT_EQ(sc.workload.warmup, 2);
  EXPECT_EQ(sc.workload.seed, 42u);
  EXPECT_EQ(sc.workload.trace.layout, HotRowLayout::scattered);
  EXPECT_EQ(sc.workload.trace.mode, TraceMode::expected);
  EXPECT_EQ(sc.placement.planners, (std::vector<std::string>{"table_wise"}));
  const CostParams defaults = default_cost_params();
  EXPECT_DOUBLE_EQ(sc.cost.collective_launch_s, defaults.collective_launch_s);
}

TEST(ScenarioLoad, NameDefaultsToTheFileStem) {
  std::vector<std::string> lines = test::tiny_lines();
  lines.erase(lines.begin());  // no name:
  const Scenario sc = load_scenario_text(test::join_lines(lines), "some/dir/my_run.yaml");
  EXPECT_EQ(sc.name, "my_run");
}

TEST(ScenarioLoad, TableNamesDefaultToTheirIndex) {
  const Scenario sc = load_scenario_text(
      test::tiny_with(7, "    - {rows: 1000, dim: 16, pooling: 2}"), "tiny.yaml");
  EXPECT_EQ(sc.model.tables[0].name, "t0");
  EXPECT_EQ(sc.model.tables[1].name, "b");
}

TEST(ScenarioLoad, OptionalKeysAreRead) {
  std::vector<std::string> lines = test::tiny_lines();
  lines[12] +=
      "\n  dense_features: 0\n  precision: {tables: fp16, comms: bf16, mlp: fp16}"
      "\n  optimizer: sgd";  // after top_mlp (line 13)
  lines[14] +=
      "\n  mode: inference\n  iterations: 3\n  warmup: 0\n  seed: 7"
      "\n  trace: {layout: clustered, mode: sampled}";  // after batch_per_gpu
  const std::string text = test::join_lines(lines) + "cost:\n  collective_launch_s: 0.00002\n";
  const Scenario sc = load_scenario_text(text, "opt.yaml");
  EXPECT_EQ(sc.model.dense_features, 0u);
  EXPECT_EQ(sc.model.table_precision, Precision::fp16);
  EXPECT_EQ(sc.model.comm_precision, Precision::bf16);
  EXPECT_EQ(sc.model.mlp_precision, Precision::fp16);
  EXPECT_EQ(sc.model.optimizer, OptimizerKind::sgd);
  EXPECT_EQ(sc.workload.mode, Mode::inference);
  EXPECT_EQ(sc.workload.iterations, 3);
  EXPECT_EQ(sc.workload.warmup, 0);
  EXPECT_EQ(sc.workload.seed, 7u);
  EXPECT_EQ(sc.workload.trace.layout, HotRowLayout::clustered);
  EXPECT_EQ(sc.workload.trace.mode, TraceMode::sampled);
  EXPECT_DOUBLE_EQ(sc.cost.collective_launch_s, 2e-5);
}

// Quantised tables, fp8 wire formats and the Adam optimizers (docs/scenario.md, "precision"):
// int8 trains (FBGEMM's training TBE, fp32 scale and bias), int4/int2/fp8 tables load for
// inference, whose TBE stores the rows (TableKernel::inference).
TEST(ScenarioLoad, QuantisedTablesAndFp8Comms) {
  const auto load = [](const std::string& precision, const std::string& optimizer,
                       const std::string& mode) {
    std::vector<std::string> lines = test::tiny_lines();
    lines[12] += "\n  precision: " + precision + "\n  optimizer: " + optimizer;
    lines[14] += "\n  mode: " + mode;
    return load_scenario_text(test::join_lines(lines), "quant.yaml");
  };
  const Scenario trained = load("{tables: int8, comms: {fwd: fp8, bwd: bf16}}", "adam", "training");
  EXPECT_EQ(trained.model.table_precision, Precision::int8);
  EXPECT_EQ(trained.model.table_kernel, TableKernel::training);
  EXPECT_EQ(trained.model.comm_precision, Precision::fp8);
  EXPECT_EQ(trained.model.comm_bwd_precision, Precision::bf16);
  // The dense gradient AllReduce keeps DDP's fp32 whatever the embedding wire format.
  EXPECT_EQ(trained.model.dense_grad_precision, Precision::fp32);
  EXPECT_EQ(trained.model.optimizer, OptimizerKind::adam);
  // dim 32 int8 rows in the training TBE: 32 + 8 B.
  EXPECT_DOUBLE_EQ(trained.model.table_row_bytes(32), 40.0);
  const Scenario partial = load("{tables: fp16, comms: fp8}", "partial_rowwise_adam", "training");
  EXPECT_EQ(partial.model.optimizer, OptimizerKind::partial_rowwise_adam);
  EXPECT_EQ(partial.model.comm_bwd_precision, Precision::fp8);
  EXPECT_EQ(load("{dense_grads: bf16}", "sgd", "training").model.dense_grad_precision,
            Precision::bf16);
  EXPECT_EQ(load("{dense_grads: fp16}", "sgd", "training").model.dense_grad_precision,
            Precision::fp16);
  for (const auto& [name, p] : {std::pair<std::string, Precision>{"int8", Precision::int8},
                                {"int4", Precision::int4},
                                {"int2", Precision::int2},
                                {"fp8", Precision::fp8}}) {
    const Scenario served = load("{tables: " + name + "}", "sgd", "inference");
    EXPECT_EQ(served.model.table_precision, p) << name;
    EXPECT_EQ(served.model.table_kernel, TableKernel::inference) << name;
  }
  // dim 32 int8 rows in the inference TBE: round_up(32 + 4, 16) = 48 B.
  EXPECT_DOUBLE_EQ(load("{tables: int8}", "sgd", "inference").model.table_row_bytes(32), 48.0);
}

TEST(ScenarioLoad, PoolingDistributions) {
  const Scenario sc = load_scenario_text(
      test::tiny_with(
          7,
          "    - {name: u, rows: 10, dim: 4, pooling: {dist: uniform, min: 2, max: 6}}\n"
          "    - {name: n, rows: 10, dim: 4, pooling: {dist: normal, mean: 5, sigma: 1, "
          "min: 1, max: 9}}\n"
          "    - {name: h, rows: 10, dim: 4, pooling: {dist: histogram, bins: [[1, 3], "
          "[10, 1]]}}\n"
          "    - {name: f, rows: 10, dim: 4, pooling: {dist: fixed, value: 2.5}}"),
      "p.yaml");
  const auto& t = sc.model.tables;
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].pooling.kind, PoolingSpec::Kind::uniform);
  EXPECT_DOUBLE_EQ(t[0].pooling.min, 2);
  EXPECT_DOUBLE_EQ(t[0].pooling.max, 6);
  EXPECT_EQ(t[1].pooling.kind, PoolingSpec::Kind::normal);
  EXPECT_DOUBLE_EQ(t[1].pooling.mean, 5);
  EXPECT_DOUBLE_EQ(t[1].pooling.sigma, 1);
  EXPECT_DOUBLE_EQ(t[1].pooling.min, 1);
  EXPECT_DOUBLE_EQ(t[1].pooling.max, 9);
  EXPECT_EQ(t[2].pooling.kind, PoolingSpec::Kind::histogram);
  ASSERT_EQ(t[2].pooling.histogram.size(), 2u);
  EXPECT_DOUBLE_EQ(t[2].pooling.histogram[1].first, 10);
  EXPECT_DOUBLE_EQ(t[2].pooling.histogram[1].second, 1);
  EXPECT_EQ(t[3].pooling.kind, PoolingSpec::Kind::fixed);
  EXPECT_DOUBLE_EQ(t[3].pooling.value, 2.5);
}

TEST(ScenarioLoad, PresetFileIsRelativeToTheScenario) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "shardsim_scenario_preset_file_test";
  fs::create_directories(dir / "hw");
  fs::copy_file(source_path("configs/hardware/dgx-a100.yaml"), dir / "hw" / "mine.yaml",
                fs::copy_options::overwrite_existing);
  {
    std::ofstream out(dir / "s.yaml");
    out << test::tiny_with(3, "  preset_file: hw/mine.yaml");
  }
  const Scenario sc = load_scenario_file((dir / "s.yaml").string());
  EXPECT_EQ(sc.cluster.preset.name, "dgx-a100");
  EXPECT_EQ(sc.cluster.preset.gpus_per_node, builtin_preset("dgx-a100").gpus_per_node);

  {
    std::ofstream out(dir / "missing.yaml");
    out << test::tiny_with(3, "  preset_file: hw/nothere.yaml");
  }
  try {
    (void)load_scenario_file((dir / "missing.yaml").string());
    ADD_FAILURE() << "a missing preset file must be an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.key(), "cluster.preset_file");
    EXPECT_NE(std::string(e.what()).find("nothere.yaml"), std::string::npos);
  }
  fs::remove_all(dir);
}

TEST(ScenarioLoad, ClusterOverridesReachThePreset) {
  const Scenario sc = load_scenario_text(
      test::tiny_with(4, "  nodes: 3\n  overrides: {gpus_per_node: 4}"), "o.yaml");
  EXPECT_EQ(sc.cluster.nodes, 3);
  EXPECT_EQ(sc.cluster.preset.gpus_per_node, 4);
}

}  // namespace
}  // namespace shardsim
