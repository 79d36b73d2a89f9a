// Bad scenario input: every case is an InputError that names the file, the line and the key
// (DESIGN.md §3: "unknown keys are errors with a did-you-mean hint"; exit code 2).
// The base document is test::tiny_lines(); each test replaces one line, so the expected line
// numbers below are those of the replaced line (see the numbered listing in the helper).
#include <gtest/gtest.h>

#include "scenario_test_helpers.hpp"

namespace shardsim {
namespace {

using test::expect_input_error;
using test::tiny_plus;
using test::tiny_with;

TEST(ScenarioErrors, TheTinyScenarioItselfIsValid) {
  EXPECT_NO_THROW((void)load_scenario_text(test::tiny_text(), "tiny.yaml"));
}

TEST(ScenarioErrors, MalformedYamlNamesTheFileAndLine) {
  // An unclosed flow list on line 12: yaml-cpp stops at the line where the list should end.
  try {
    (void)load_scenario_text(tiny_with(12, "  bottom_mlp: [64, 16"), "bad.yaml");
    ADD_FAILURE() << "malformed YAML must be an InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bad.yaml:"), std::string::npos) << msg;
    EXPECT_GE(e.where().line, 12) << msg;
    EXPECT_NE(msg.find("malformed YAML"), std::string::npos) << msg;
  }
  // A tab-free indentation error: a key indented under a scalar, line 4.
  try {
    (void)load_scenario_text(tiny_with(4, "    nodes: 1\n  - x"), "bad.yaml");
    ADD_FAILURE() << "malformed YAML must be an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:"), std::string::npos) << e.what();
    EXPECT_GT(e.where().line, 0) << e.what();
  }
}

TEST(ScenarioErrors, UnknownKeyWithDidYouMean) {
  expect_input_error(tiny_with(15, "  batch_per_gpuu: 512"), 15, "workload.batch_per_gpuu",
                     "did you mean 'batch_per_gpu'?");
  expect_input_error(tiny_with(4, "  node: 1"), 4, "cluster.node", "did you mean 'nodes'?");
  expect_input_error(tiny_with(10, "      dims: 32"), 10, "model.tables[1].dims",
                     "did you mean 'dim'?");
  expect_input_error(tiny_plus("workloads: {}"), 18, "workloads", "did you mean 'workload'?");
}

TEST(ScenarioErrors, WrongType) {
  expect_input_error(tiny_with(9, "      rows: abc"), 9, "model.tables[1].rows",
                     "expected an integer, found 'abc'");
  expect_input_error(tiny_with(12, "  bottom_mlp: 64"), 12, "model.bottom_mlp", "expected a list");
  expect_input_error(tiny_with(4, "  nodes: [1, 2]"), 4, "cluster.nodes", "expected an integer");
  std::vector<std::string> lines = test::tiny_lines();
  lines[15] = "placement: table_wise";
  lines[16] = "# (the planner belongs under placement.planner)";
  expect_input_error(test::join_lines(lines), 16, "placement", "expected a mapping");
}

TEST(ScenarioErrors, MissingRequiredKey) {
  // workload without batch_per_gpu: reported at the workload mapping (its first key, line 15).
  expect_input_error(tiny_with(15, "  iterations: 5"), 15, "workload.batch_per_gpu",
                     "missing required key");
  // A table without rows: at the table (line 8, where its first key is).
  expect_input_error(tiny_with(9, ""), 8, "model.tables[1].rows", "missing required key");
  // No preset at all.
  expect_input_error(tiny_with(3, ""), 4, "cluster.preset", "missing required key");
}

TEST(ScenarioErrors, ZeroAndNegativeRows) {
  expect_input_error(tiny_with(9, "      rows: 0"), 9, "model.tables[1].rows",
                     "expected a positive integer, found 0");
  expect_input_error(tiny_with(9, "      rows: -5"), 9, "model.tables[1].rows",
                     "expected a positive integer, found -5");
}

TEST(ScenarioErrors, RowsAboveTheLimit) {
  expect_input_error(tiny_with(9, "      rows: 1000000000000000"), 9, "model.tables[1].rows",
                     "more than the limit of 10^13");
  expect_input_error(tiny_with(9, "      rows: 1e15"), 9, "model.tables[1].rows",
                     "more than the limit of 10^13");
  // 10^13 itself is accepted.
  EXPECT_NO_THROW((void)load_scenario_text(tiny_with(9, "      rows: 10000000000000"), "ok.yaml"));
}

TEST(ScenarioErrors, DimNotAMultipleOfFour) {
  const std::string msg = expect_input_error(tiny_with(10, "      dim: 30"), 10,
                                             "model.tables[1].dim", "not a multiple of 4");
  EXPECT_NE(msg.find("FBGEMM"), std::string::npos) << msg;
  EXPECT_NE(msg.find("use 28 or 32"), std::string::npos) << msg;
  expect_input_error(tiny_with(10, "      dim: 0"), 10, "model.tables[1].dim", "positive");
}

TEST(ScenarioErrors, NegativeAlphaAndQ) {
  expect_input_error(tiny_with(7, "    - {name: a, rows: 1000, dim: 16, pooling: 2, alpha: -0.5}"),
                     7, "model.tables[0].alpha", "expected a number >= 0");
  expect_input_error(tiny_with(11, "      pooling: 4\n      q: -1"), 12, "model.tables[1].q",
                     "expected a number >= 0");
}

TEST(ScenarioErrors, BatchAndNodesMustBePositive) {
  expect_input_error(tiny_with(15, "  batch_per_gpu: 0"), 15, "workload.batch_per_gpu",
                     "expected a positive integer, found 0");
  expect_input_error(tiny_with(4, "  nodes: 0"), 4, "cluster.nodes",
                     "expected a positive integer, found 0");
  expect_input_error(tiny_with(15, "  batch_per_gpu: 512\n  iterations: 0"), 16,
                     "workload.iterations", "expected a positive integer, found 0");
  expect_input_error(tiny_with(15, "  batch_per_gpu: 512\n  warmup: -1"), 16, "workload.warmup",
                     "expected an integer >= 0");
}

TEST(ScenarioErrors, NanAndInfinity) {
  expect_input_error(tiny_with(7, "    - {name: a, rows: 1000, dim: 16, pooling: 2, alpha: nan}"),
                     7, "model.tables[0].alpha", "finite");
  expect_input_error(tiny_with(7, "    - {name: a, rows: 1000, dim: 16, pooling: 2, alpha: .nan}"),
                     7, "model.tables[0].alpha", "expected a number");
  expect_input_error(tiny_with(11, "      pooling: inf"), 11, "model.tables[1].pooling", "finite");
  expect_input_error(tiny_with(9, "      rows: .inf"), 9, "model.tables[1].rows",
                     "expected an integer");
  expect_input_error(tiny_with(15, "  batch_per_gpu: nan"), 15, "workload.batch_per_gpu",
                     "expected an integer");
}

TEST(ScenarioErrors, NoTables) {
  // An empty list and no generate block: at the list.
  std::vector<std::string> lines = test::tiny_lines();
  lines[5] = "  tables: []";
  lines.erase(lines.begin() + 6, lines.begin() + 11);  // drop both tables (lines 7-11)
  expect_input_error(test::join_lines(lines), 6, "model.tables", "no embedding tables");
  // No tables key at all: at the model mapping (its first key, line 6 after the edit).
  lines.erase(lines.begin() + 5);
  expect_input_error(test::join_lines(lines), 6, "model", "no embedding tables");
}

TEST(ScenarioErrors, UnknownPreset) {
  expect_input_error(tiny_with(3, "  preset: dgx-a1000"), 3, "cluster.preset",
                     "did you mean 'dgx-a100'?");
  expect_input_error(tiny_with(3, "  preset: dgx-a100\n  preset_file: x.yaml"), 4,
                     "cluster.preset_file", "not both");
}

TEST(ScenarioErrors, UnknownPlanner) {
  expect_input_error(tiny_with(17, "  planner: tabel_wise"), 17, "placement.planner",
                     "did you mean 'table_wise'?");
  expect_input_error(tiny_with(17, "  planner: [table_wise, rowwise]"), 17, "placement.planner[1]",
                     "did you mean 'row_wise'?");
  expect_input_error(tiny_with(17, "  planner: []"), 17, "placement.planner", "empty");
  expect_input_error(tiny_with(17, "  planner: [row_wise, row_wise]"), 17, "placement.planner[1]",
                     "listed twice");
  expect_input_error(tiny_with(17, "  planner: row_wise\n  options: [1]"), 18, "placement.options",
                     "expected a mapping");
}

TEST(ScenarioErrors, DuplicateTableNames) {
  const std::string msg = expect_input_error(tiny_with(8, "    - name: a"), 8,
                                             "model.tables[1].name", "duplicate table name 'a'");
  EXPECT_NE(msg.find("bad.yaml:7"), std::string::npos) << "should point at the first: " << msg;
  // A default name colliding with an explicit one: t1 is the second table's default.
  std::vector<std::string> lines = test::tiny_lines();
  lines[6] = "    - {name: t1, rows: 1000, dim: 16, pooling: 2}";
  lines[7] = "    - rows: 5000";  // unnamed: "t1" by its index
  lines[8] = "      dim: 32";
  lines[9] = "      pooling: 4";
  lines.erase(lines.begin() + 10);
  expect_input_error(test::join_lines(lines), 8, "model.tables[1]", "duplicate table name 't1'");
}

TEST(ScenarioErrors, HeavyHitters) {
  expect_input_error(tiny_with(11, "      pooling: 4\n      heavy_hitters: [0.6, 0.5]"), 12,
                     "model.tables[1].heavy_hitters", "sum to 1.1");
  expect_input_error(tiny_with(11, "      pooling: 4\n      heavy_hitters: [0.5, 0.5]"), 12,
                     "model.tables[1].heavy_hitters", "must be < 1");
  expect_input_error(tiny_with(11, "      pooling: 4\n      heavy_hitters: [0.1, 0.2]"), 12,
                     "model.tables[1].heavy_hitters[1]", "non-increasing");
  expect_input_error(tiny_with(11, "      pooling: 4\n      heavy_hitters: [0]"), 12,
                     "model.tables[1].heavy_hitters[0]", "not in (0, 1)");
  expect_input_error(tiny_with(7,
                               "    - {name: a, rows: 1, dim: 16, pooling: 2, heavy_hitters: "
                               "[0.1, 0.05]}"),
                     7, "model.tables[0].heavy_hitters", "only 1 rows");
}

TEST(ScenarioErrors, Pooling) {
  expect_input_error(tiny_with(11, "      pooling: 0"), 11, "model.tables[1].pooling", "positive");
  expect_input_error(tiny_with(11, "      pooling: {dist: lognorm, mean: 3, sigma: 1}"), 11,
                     "model.tables[1].pooling.dist", "did you mean 'lognormal'?");
  expect_input_error(tiny_with(11, "      pooling: {dist: uniform, min: 1, mean: 3}"), 11,
                     "model.tables[1].pooling.mean", "unknown key");
  expect_input_error(tiny_with(11, "      pooling: {dist: uniform, min: 5, max: 3}"), 11,
                     "model.tables[1].pooling.max", "less than min");
  expect_input_error(tiny_with(11, "      pooling: {dist: histogram, bins: [[1, 0], [2, 0]]}"), 11,
                     "model.tables[1].pooling.bins", "all 0");
  expect_input_error(tiny_with(11, "      pooling: {dist: histogram, bins: [[1, 2, 3]]}"), 11,
                     "model.tables[1].pooling.bins[0]", "[value, weight]");
}

TEST(ScenarioErrors, ModelKeys) {
  expect_input_error(tiny_with(12, "  bottom_mlp: []"), 12, "model.bottom_mlp", "empty");
  expect_input_error(tiny_with(13, "  top_mlp: [64, 0]"), 13, "model.top_mlp[1]", "positive");
  expect_input_error(tiny_with(13, "  top_mlp: [64, 1]\n  precision: {tables: tf32}"), 14,
                     "model.precision.tables", "tf32");
  expect_input_error(tiny_with(13, "  top_mlp: [64, 1]\n  precision: {comms: int8}"), 14,
                     "model.precision.comms", "int8 communication is not modelled");
  expect_input_error(tiny_with(13, "  top_mlp: [64, 1]\n  optimizer: adamw"), 14, "model.optimizer",
                     "did you mean 'adam'?");
  // Missing MLPs are required keys, reported at the model mapping (line 6).
  expect_input_error(tiny_with(13, ""), 6, "model.top_mlp", "missing required key");
}

// Table, wire and math precisions (docs/scenario.md, "precision"): an unknown format names the
// formats and the nearest; a format of the wrong use says why; int4/int2/fp8 tables are
// inference-only (FBGEMM trains fp32/fp16/bf16/int8 tables).
TEST(ScenarioErrors, PrecisionChoices) {
  const std::string top = "  top_mlp: [64, 1]\n";
  const std::string bad_int3 = expect_input_error(
      tiny_with(13, top + "  precision: {tables: int3}"), 14, "model.precision.tables",
      "'int3' is not one of: fp32, fp16, bf16, int8, int4, int2, fp8");
  EXPECT_NE(bad_int3.find("did you mean 'int"), std::string::npos) << bad_int3;
  EXPECT_EQ(bad_int3.find("tf32"), std::string::npos) << bad_int3;  // not a table format
  expect_input_error(tiny_with(13, top + "  precision:\n    tables: tf32"), 15,
                     "model.precision.tables", "not a storage or wire format");
  expect_input_error(tiny_with(13, top + "  precision: {comms: {fwd: fp8, bwd: int4}}"), 14,
                     "model.precision.comms.bwd", "int4 communication is not modelled");
  expect_input_error(tiny_with(13, top + "  precision: {comms: fp9}"), 14, "model.precision.comms",
                     "did you mean 'fp8'?");
  expect_input_error(tiny_with(13, top + "  precision: {mlp: int8}"), 14, "model.precision.mlp",
                     "not one of: fp32, tf32, fp16, bf16");
  // The dense gradient AllReduce: DDP's fp32 or its fp16/bf16 compression hooks.
  expect_input_error(tiny_with(13, top + "  precision: {dense_grads: tf32}"), 14,
                     "model.precision.dense_grads", "not a wire format");
  expect_input_error(tiny_with(13, top + "  precision: {dense_grads: fp8}"), 14,
                     "model.precision.dense_grads", "not one of: fp32, fp16, bf16");
  expect_input_error(tiny_with(13, top + "  precision: {dense_grad: bf16}"), 14,
                     "model.precision.dense_grad", "did you mean 'dense_grads'?");
  // The dense optimizer: torch.optim's rules that shardsim prices.
  expect_input_error(tiny_with(13, top + "  dense_optimizer: adamw"), 14, "model.dense_optimizer",
                     "did you mean 'adam'?");
  expect_input_error(tiny_with(13, top + "  dense_optimizer: lamb"), 14, "model.dense_optimizer",
                     "not one of: adam, adagrad, momentum, sgd");
  for (const char* inference_only : {"int4", "int2", "fp8"}) {
    const std::string msg = expect_input_error(
        tiny_with(13, top + "  precision:\n    tables: " + std::string(inference_only)), 15,
        "model.precision.tables", "inference-only");
    EXPECT_NE(msg.find("workload.mode: inference"), std::string::npos) << msg;
  }
}

TEST(ScenarioErrors, WorkloadChoices) {
  expect_input_error(tiny_with(15, "  batch_per_gpu: 512\n  mode: trainig"), 16, "workload.mode",
                     "did you mean 'training'?");
  expect_input_error(tiny_with(15, "  batch_per_gpu: 512\n  trace: {layout: clustred}"), 16,
                     "workload.trace.layout", "did you mean 'clustered'?");
}

TEST(ScenarioErrors, KeyWrittenTwice) {
  expect_input_error(tiny_with(10, "      dim: 32\n      dim: 64"), 11, "model.tables[1].dim",
                     "written twice");
}

TEST(ScenarioErrors, CostKeysGoThroughTheCostModule) {
  expect_input_error(tiny_plus("cost:\n  collective_launch: 1"), 19, "cost.collective_launch",
                     "did you mean 'collective_launch_s'?");
}

TEST(ScenarioErrors, EmptyOrNonMappingDocument) {
  EXPECT_THROW((void)load_scenario_text("", "empty.yaml"), InputError);
  EXPECT_THROW((void)load_scenario_text("- 1\n- 2\n", "list.yaml"), InputError);
}

TEST(ScenarioErrors, DenseArchAndInteraction) {
  const Scenario ok =
      load_scenario_text(tiny_with(13,
                                   "  top_mlp: [64, 1]\n  interaction: concat\n"
                                   "  dense_arch: {flops_per_sample: 2.9e9, parameters: 1000}"),
                         "ok.yaml");
  EXPECT_EQ(ok.model.interaction, InteractionKind::concat);
  EXPECT_DOUBLE_EQ(ok.model.dense_arch.flops_per_sample, 2.9e9);
  EXPECT_EQ(ok.model.dense_arch.parameters, 1000u);
  expect_input_error(tiny_with(13, "  top_mlp: [64, 1]\n  interaction: dott"), 14,
                     "model.interaction", "dot");
  expect_input_error(tiny_with(13, "  top_mlp: [64, 1]\n  dense_arch: {flops_per_sample: 2e15}"),
                     14, "model.dense_arch.flops_per_sample", "at most 1e15");
  expect_input_error(tiny_with(13, "  top_mlp: [64, 1]\n  dense_arch: {flops: 1e9}"), 14,
                     "model.dense_arch.flops", "allowed keys here: flops_per_sample, parameters");
  expect_input_error(
      tiny_with(13, "  top_mlp: [64, 1]\n  dense_arch: {flops_per_sample: 1, parameters: -1}"), 14,
      "model.dense_arch.parameters");
}

}  // namespace
}  // namespace shardsim
