// The catalogue of bad inputs (docs/robustness.md, "The catalogue"), end to end: each case runs
// the `shardsim` binary on one bad input and expects exit code 2 and a message on stderr that
// names the file (and line, when the input has lines), the key and what was expected. One test
// per case: `ctest -R Catalogue` lists them; docs/notes/robustness-catalogue.md names each.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "io/scenario_test_helpers.hpp"
#include "shardsim/trace/xxhash64.hpp"
#include "support/cli_run.hpp"

namespace shardsim {
namespace {

namespace fs = std::filesystem;
using testing::run;
using testing::unique_temp;

// A folder per case: the scenario `bad.yaml` and the files it refers to.
struct Workspace : testing::Workspace {
  Workspace() : testing::Workspace("shardsim_catalogue") {}
};

struct Case {
  std::string name;
  // Writes the inputs; returns the arguments of `shardsim`.
  std::function<std::string(const Workspace&)> setup;
  std::string where;  // e.g. "bad.yaml:9:" (file and line), or "<command line>"
  std::string key;    // the key named as "key '...'" (empty: the message names none)
  std::string what;   // what was expected / found
};

// The tiny scenario (tests/io/scenario_test_helpers.hpp: line numbers are documented there)
// with line `line` replaced, run with `args`.
std::function<std::string(const Workspace&)> scenario(int line, const std::string& text,
                                                      const std::string& args = "") {
  return [=](const Workspace& w) {
    return "run " + w.write("bad.yaml", test::tiny_with(line, text)) + " " + args;
  };
}
std::function<std::string(const Workspace&)> scenario_plus(const std::string& extra,
                                                           const std::string& command = "run",
                                                           const std::string& args = "") {
  return [=](const Workspace& w) {
    return command + " " + w.write("bad.yaml", test::tiny_plus(extra)) + " " + args;
  };
}

// tests/data/nccl_logs/all_reduce_perf_2x4.log (rows at lines 17-19: 8 B, 8 KiB, 8 MiB) with the
// first `from` replaced by `to`, calibrated on its preset.
std::function<std::string(const Workspace&)> nccl_log_with(const std::string& from,
                                                           const std::string& to) {
  return [=](const Workspace& w) {
    std::string log = testing::read_file(std::string(SHARDSIM_SOURCE_DIR) +
                                         "/tests/data/nccl_logs/all_reduce_perf_2x4.log");
    log.replace(log.find(from), from.size(), to);
    return "calibrate " + w.write("nccl.log", log) + " --preset hpc-a100x4";
  };
}

// A points CSV (`calibrate --points`) of one measurement, `row`, under the required columns.
std::function<std::string(const Workspace&)> points_csv(const std::string& row) {
  return [=](const Workspace& w) {
    return "calibrate --points " +
           w.write("points.csv", "collective,size_bytes,time_us,preset,nodes\n" + row + "\n");
  };
}

// The tiny scenario simulating the plan file `plan.yaml` with `plan` as its text (8 GPUs;
// tables a: 1000 x 16 and b: 5000 x 32).
std::function<std::string(const Workspace&)> plan_file(const std::string& plan) {
  return [=](const Workspace& w) {
    w.write("plan.yaml", plan);
    return "run " + w.write("bad.yaml", test::tiny_with(17, "  file: plan.yaml"));
  };
}
const std::string kPlanHead = "format: shardsim-plan-1\nnum_gpus: 8\ntables:\n  a: [{gpu: 0}]\n";

// The tiny scenario reading its cost parameters from the cost file `fitted.yaml` with `text`.
std::function<std::string(const Workspace&)> cost_file(const std::string& text) {
  return [=](const Workspace& w) {
    w.write("fitted.yaml", text);
    return "run " + w.write("bad.yaml", test::tiny_plus("cost: {file: fitted.yaml}"));
  };
}

// The trace file of tests/fuzz/fixtures (tables a: 1000 rows, b: 5000 rows), edited by `edit`,
// replayed by the tiny scenario.
std::vector<char> fixture_trace() {
  std::ifstream in(std::string(SHARDSIM_SOURCE_DIR) + "/tests/fuzz/fixtures/trace.bin",
                   std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}
void put64(std::vector<char>& b, std::size_t at, std::uint64_t v) {
  std::memcpy(b.data() + at, &v, 8);
}
void reseal_header(std::vector<char>& b) {
  put64(b, 40, xxh64(std::as_bytes(std::span<const char>(b.data(), 40))));
}
std::function<std::string(const Workspace&)> trace_file(
    const std::function<void(std::vector<char>&)>& edit) {
  return [=](const Workspace& w) {
    std::vector<char> bytes = fixture_trace();
    edit(bytes);
    w.write("trace.bin", std::string(bytes.begin(), bytes.end()));
    return "run " + w.write("bad.yaml", test::tiny_with(15,
                                                        "  batch_per_gpu: 4\n  trace: {file: "
                                                        "trace.bin}"));
  };
}

std::string sweep_of_points(int axes) {
  std::string s = "sweep:\n";
  for (int k = 0; k < axes; ++k) {
    s += "  cost.k" + std::to_string(k) + ": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
  }
  return s;
}

std::vector<Case> catalogue() {
  const std::string empty_tables = [] {
    std::vector<std::string> l = test::tiny_lines();
    l[5] = "  tables: []";
    l.erase(l.begin() + 6, l.begin() + 11);
    return test::join_lines(l);
  }();
  return {
      // ----- malformed YAML, wrong types, unknown and missing keys
      {"MalformedYaml", scenario(12, "  bottom_mlp: [64, 16"), "bad.yaml:13:", "",
       "malformed YAML"},
      {"TabIndentation", scenario(4, "\tnodes: 1"), "bad.yaml:4:", "", "illegal tab"},
      {"NotUtf8", scenario(1, "name: caf\xe9"), "bad.yaml:1:", "", "not valid UTF-8"},
      {"AliasBomb",
       [](const Workspace& w) {
         std::string s = "name: [&a0 [x, x, x, x, x, x, x, x, x, x]";
         for (int i = 1; i < 9; ++i) {
           s += ", &a" + std::to_string(i) + " [";
           for (int k = 0; k < 10; ++k) s += (k ? ", *a" : "*a") + std::to_string(i - 1);
           s += "]";
         }
         return "run " + w.write("bad.yaml", s + "]\n");
       },
       "bad.yaml:1:", "", "aliases expand the document"},
      {"AliasedLongString",  // issue 57, item 1: 110 KB of text, 300 MB once expanded
       [](const Workspace& w) {
         std::string s = test::tiny_with(1, "name: &s \"" + std::string(100000, 'x') + "\"");
         s += "sweep:\n  name: [*s";
         for (int i = 1; i < 3000; ++i) s += ",*s";
         return "sweep " + w.write("bad.yaml", s + "]\n") + " --max-memory 100M";
       },
       "bad.yaml:19:", "", "aliases expand the document's text from"},
      {"NestingTooDeep",
       [](const Workspace& w) {
         return "run " + w.write("bad.yaml", "name: " + std::string(50000, '[') +
                                                 std::string(50000, ']') + "\n");
       },
       "bad.yaml:1:106:", "name", "nest 101 levels deep here, more than the 100 levels"},
      {"AlphaBeyondAccurateRange", scenario(11, "      pooling: 4\n      alpha: 1e308"),
       "bad.yaml:12:", "model.tables[1].alpha", "expected an exponent <= 50, found 1e+308"},
      {"QBeyondExactRanks", scenario(11, "      pooling: 4\n      q: 1e308"),
       "bad.yaml:12:", "model.tables[1].q", "expected an offset <= 1e+12, found 1e+308"},
      {"PoolingBeyondAMillion", scenario(11, "      pooling: 1e308"), "bad.yaml:11:",
       "model.tables[1].pooling.value", "expected at most 1000000 lookups a sample"},
      {"WrongTypeScalar", scenario(9, "      rows: abc"), "bad.yaml:9:", "model.tables[1].rows",
       "expected an integer, found 'abc'"},
      {"WrongTypeMapping", scenario(15, "  batch_per_gpu: {a: 1}"),
       "bad.yaml:15:", "workload.batch_per_gpu", "expected an integer, found a mapping"},
      {"UnknownKeyWithSuggestion", scenario(15, "  batch_per_gpuu: 512"),
       "bad.yaml:15:", "workload.batch_per_gpuu", "did you mean 'batch_per_gpu'?"},
      {"MissingRequiredKey", scenario(15, "  iterations: 5"),
       "bad.yaml:15:", "workload.batch_per_gpu", "missing required key"},
      {"KeyWrittenTwice", scenario(10, "      dim: 32\n      dim: 64"),
       "bad.yaml:11:", "model.tables[1].dim", "written twice"},
      // ----- out-of-range values
      {"RowsZero", scenario(9, "      rows: 0"), "bad.yaml:9:", "model.tables[1].rows",
       "expected a positive integer, found 0"},
      {"RowsNegative", scenario(9, "      rows: -5"), "bad.yaml:9:", "model.tables[1].rows",
       "expected a positive integer, found -5"},
      {"Rows1e15", scenario(9, "      rows: 1000000000000000"),
       "bad.yaml:9:", "model.tables[1].rows", "more than the limit of 10^13"},
      {"DimNotMultipleOf4", scenario(10, "      dim: 30"), "bad.yaml:10:", "model.tables[1].dim",
       "not a multiple of 4"},
      {"AlphaNegative",
       scenario(7, "    - {name: a, rows: 1000, dim: 16, pooling: 2, alpha: -0.5}"),
       "bad.yaml:7:", "model.tables[0].alpha", "expected a number >= 0"},
      {"BatchZero", scenario(15, "  batch_per_gpu: 0"), "bad.yaml:15:", "workload.batch_per_gpu",
       "expected a positive integer, found 0"},
      {"ZeroGpus", scenario(4, "  nodes: 0"), "bad.yaml:4:", "cluster.nodes",
       "expected a positive integer, found 0"},
      {"NanAlpha", scenario(7, "    - {name: a, rows: 1000, dim: 16, pooling: 2, alpha: nan}"),
       "bad.yaml:7:", "model.tables[0].alpha", "finite"},
      {"YamlNanAlpha", scenario(7, "    - {name: a, rows: 1000, dim: 16, pooling: 2, alpha: .nan}"),
       "bad.yaml:7:", "model.tables[0].alpha", "expected a number"},
      {"InfPooling", scenario(11, "      pooling: inf"), "bad.yaml:11:", "model.tables[1].pooling",
       "finite"},
      {"EmptyTableList",
       [=](const Workspace& w) { return "run " + w.write("bad.yaml", empty_tables); },
       "bad.yaml:6:", "model.tables", "no embedding tables"},
      {"TooManyGeneratedTables",
       scenario(13,
                "  top_mlp: [64, 1]\n  generate: {count: 2000000, rows: 10, dim: 16, pooling: 1}"),
       "bad.yaml:14:", "model.generate.count", "more than the limit of 1000000"},
      {"HeavyHittersSumAboveOne", scenario(11, "      pooling: 4\n      heavy_hitters: [0.6, 0.5]"),
       "bad.yaml:12:", "model.tables[1].heavy_hitters", "sum to 1.1"},
      {"NodesNotWholeScaleUpDomains",
       scenario(4, "  nodes: 3\n  overrides: {scale_up_domain_nodes: 2}"),
       "bad.yaml:4:", "cluster.nodes", "whole scale-up domains of 2 nodes"},
      {"NodesBeyondTheNetwork", scenario(4, "  nodes: 1121"), "bad.yaml:4:", "cluster.nodes",
       "capacity of 1120 nodes"},
      {"PrecisionTheGpuLacks",
       scenario(13, "  top_mlp: [64, 1]\n  precision: {mlp: bf16}",
                "--set cluster.preset=rtx2080ti-8"),
       "bad.yaml:14:", "model.precision.mlp", "no bf16 support"},
      {"NegativeCostParameter", scenario_plus("cost: {collective_launch_s: -1}"),
       "bad.yaml:18:", "cost.collective_launch_s", ">= 0"},
      {"PresetOverrideZero",
       scenario(4, "  nodes: 1\n  overrides: {gpu: {hbm_achievable_GBps: 0}}"),
       "bad.yaml:5:", "cluster.overrides.gpu.hbm_achievable_GBps", "expected a positive number"},
      // ----- the engine's `simulation:` block (io/simulation_loader.cpp)
      {"SimulationUnknownKey", scenario_plus("simulation: {link_sharin: none}"),
       "bad.yaml:18:", "simulation.link_sharin", "did you mean 'link_sharing'?"},
      {"SimulationUnknownLinkSharing", scenario_plus("simulation: {link_sharing: per_flw}"),
       "bad.yaml:18:", "simulation.link_sharing", "did you mean 'per_flow'?"},
      {"SimulationPerFlowTooManyGpus",
       scenario(4, "  nodes: 64", "--set simulation.link_sharing=per_flow"), "bad.yaml",
       "simulation.link_sharing", "more than its limit of 256"},
      {"SimulationUnknownPipelineKey",
       scenario_plus("simulation:\n  pipeline: {input_alltoal: serial}"),
       "bad.yaml:19:", "simulation.pipeline.input_alltoal", "did you mean 'input_alltoall'?"},
      {"SimulationUnknownPipelineMode",
       scenario_plus("simulation:\n  pipeline: {pooled_alltoall: overlaped}"),
       "bad.yaml:19:", "simulation.pipeline.pooled_alltoall", "did you mean 'overlapped'?"},
      {"StragglersNotAList", scenario_plus("simulation: {stragglers: 3}"),
       "bad.yaml:18:", "simulation.stragglers", "expected a list of stragglers"},
      {"StragglerGpu9999",
       scenario_plus("simulation:\n  stragglers:\n    - {gpu: 9999, slowdown: 1.5}"),
       "bad.yaml:20:", "simulation.stragglers[0].gpu", "GPU 9999 does not exist"},
      {"StragglerListedTwice",
       scenario_plus("simulation:\n  stragglers:\n    - {gpu: 1, slowdown: 1.5}\n"
                     "    - {gpu: 1, slowdown: 2}"),
       "bad.yaml:21:", "simulation.stragglers[1].gpu", "GPU 1 is listed twice"},
      {"StragglerSlowdownBelowOne",
       scenario_plus("simulation:\n  stragglers:\n    - {gpu: 1, slowdown: 0.5}"),
       "bad.yaml:20:", "simulation.stragglers[0].slowdown", "expected a slowdown >= 1"},
      {"StragglerSlowdownInf",
       scenario_plus("simulation:\n  stragglers:\n    - {gpu: 1, slowdown: .inf}"),
       "bad.yaml:20:", "simulation.stragglers[0].slowdown", "expected a"},
      {"JitterNegative", scenario_plus("simulation: {jitter: {cv: -0.1}}"),
       "bad.yaml:18:", "simulation.jitter.cv", "expected a number >= 0"},
      {"JitterAboveOne", scenario_plus("simulation: {jitter: {cv: 3}}"),
       "bad.yaml:18:", "simulation.jitter.cv", "in [0, 1], found 3"},
      {"JitterNan", scenario_plus("simulation: {jitter: {cv: nan}}"),
       "bad.yaml:18:", "simulation.jitter.cv", "finite"},
      // ----- unknown presets, planners and options
      {"UnknownPreset", scenario(3, "  preset: dgx-a1000"), "bad.yaml:3:", "cluster.preset",
       "did you mean 'dgx-a100'?"},
      {"UnknownPlanner", scenario(17, "  planner: tabel_wise"), "bad.yaml:17:", "placement.planner",
       "did you mean 'table_wise'?"},
      {"UnknownPlannerOption", scenario(17, "  planner: table_wise\n  options: {cots: size}"),
       "bad.yaml:18:", "placement.options.cots", "did you mean 'cost'?"},
      {"SyncIntervalBeyondTheMeasuredWindow",
       scenario(17,
                "  planner: two_d\n  options: {groups: 2, inner: table_wise, sync_interval: 100}"),
       "bad.yaml", "placement.options.sync_interval",
       "no measured iteration pays the replica sync"},
      {"TwoDWithoutGroups", scenario(17, "  planner: two_d"), "bad.yaml", "placement.options",
       "the two_d planner needs `groups` or `group_size`"},
      {"TwoDGroupsDoNotSplitTheCluster",
       scenario(17, "  planner: two_d\n  options: {groups: 3, inner: table_wise}"),
       "bad.yaml:18:", "placement.options.groups", "groups must divide it"},
      // ----- plan files
      {"PlanMissesRows", plan_file(kPlanHead + "  b: [{rows: [0, 4000], gpu: 1}]\n"),
       "plan.yaml:5:", "tables.b", "rows [4000, 5000) are not placed"},
      {"PlanOverlapsRows",
       plan_file(kPlanHead +
                 "  b:\n    - {rows: [0, 3000], gpu: 1}\n    - {rows: [2000, 5000], gpu: 2}\n"),
       "plan.yaml:7:", "tables.b[1]", "rows [2000, 3000) are placed more than once"},
      {"PlanNamesGpu9999", plan_file(kPlanHead + "  b: [{gpu: 9999}]\n"),
       "plan.yaml:5:", "tables.b[0]", "GPU 9999 does not exist (the cluster has 8 GPUs"},
      {"PlanUnknownTable", plan_file(kPlanHead + "  bb: [{gpu: 1}]\n"), "plan.yaml:5:", "tables.bb",
       "did you mean 'b'?"},
      {"PlanForAnotherCluster", plan_file("num_gpus: 16\ntables: {a: [{gpu: 0}], b: [{gpu: 1}]}\n"),
       "plan.yaml:1:", "num_gpus", "made for 16 GPUs but the cluster has 8"},
      {"PlanMalformed", plan_file("tables: {a: [{gpu: 0}], b: [{gpu: 1}]\n"), "plan.yaml:2:", "",
       "malformed YAML"},
      {"PlanKeyWrittenTwice",
       plan_file("format: shardsim-plan-1\nnum_gpus: 8\ntables:\n  a: [{gpu: 0}]\n  b: [{gpu: 1}]\n"
                 "tables:\n  a: [{gpu: 2}]\n  b: [{gpu: 3}]\n"),
       "plan.yaml:6:", "tables", "written twice in the same mapping"},
      {"PlanFileMissing", scenario(17, "  file: nope.yaml"), "bad.yaml:17:", "placement.file",
       "no plan file at"},
      // ----- trace files
      {"TraceTruncated", trace_file([](std::vector<char>& b) { b.resize(b.size() - 20); }),
       "trace.bin", "workload.trace.file", "cut short"},
      {"TraceWrongMagic", trace_file([](std::vector<char>& b) { b[0] = 'X'; }), "trace.bin",
       "workload.trace.file", "not a shardsim trace file"},
      {"TraceWrongVersion", trace_file([](std::vector<char>& b) {
         b[8] = 2;
         reseal_header(b);
       }),
       "trace.bin", "workload.trace.file", "format version 2, but this shardsim reads version 1"},
      {"TraceHeaderClaims1e12Entries", trace_file([](std::vector<char>& b) {
         put64(b, 24, 1'000'000'000'000ULL);
         reseal_header(b);
       }),
       "trace.bin", "workload.trace.file", "claims 2 tables of 1000000000000 samples"},
      {"TraceOfAnotherModel",
       [](const Workspace& w) {
         const std::vector<char> b = fixture_trace();
         w.write("trace.bin", std::string(b.begin(), b.end()));
         std::vector<std::string> lines = test::tiny_lines();
         lines[8] = "      rows: 6000";
         lines[14] = "  batch_per_gpu: 4\n  trace: {file: trace.bin}";
         return "run " + w.write("bad.yaml", test::join_lines(lines));
       },
       "trace.bin", "workload.trace.file", "has 5000 rows in the trace but 6000 in the model"},
      {"TraceCsvBadLine",
       [](const Workspace& w) {
         w.write("trace.csv", "table,sample,row\n0,0,1\n1,zero,2\n");
         return "run " + w.write("bad.yaml", test::tiny_with(15,
                                                             "  batch_per_gpu: 4\n  trace: "
                                                             "{file: trace.csv}"));
       },
       "trace.csv:3", "workload.trace.file", "three whole numbers"},
      {"TraceCsvSparseIds",
       [](const Workspace& w) {
         w.write("trace.csv", "table,sample,row\n0,0,1\n877514,6061,2\n");
         return "run " + w.write("bad.yaml", test::tiny_with(15,
                                                             "  batch_per_gpu: 4\n  trace: "
                                                             "{file: trace.csv}"));
       },
       "trace.csv:1", "workload.trace.file", "large gaps"},
      // ----- `trace fit` targets (docs/traces.md §13)
      {"FitTargetSharesDoNotSumToOne",
       [](const Workspace& w) {
         w.write("target.yaml",
                 "tables: 2\nbatch_size: 100\nlookups: 300\noverall:\n"
                 "  hist_distinct_by_count: [0.5, 0.4]\n  hist_lookups_by_count: [1]\n");
         return "trace fit " + w.path("target.yaml") + " --scenario " +
                w.write("bad.yaml", test::tiny_text());
       },
       "target.yaml:5:", "overall.hist_distinct_by_count", "the shares sum to 0.9000, not 1"},
      {"FitTargetNegativeShare",
       [](const Workspace& w) {
         w.write("target.yaml",
                 "tables: 2\nbatch_size: 100\nlookups: 300\noverall:\n"
                 "  hist_distinct_by_count: [1]\n  hist_lookups_by_count: [1.25, -0.25]\n");
         return "trace fit " + w.path("target.yaml") + " --scenario " +
                w.write("bad.yaml", test::tiny_text());
       },
       "target.yaml:6:", "overall.hist_lookups_by_count[1]", "a negative share -0.25"},
      {"FitTargetUnknownKey",
       [](const Workspace& w) {
         w.write("target.yaml",
                 "tables: 2\nbatch_size: 100\nlookups: 300\nlookup: 3\noverall:\n"
                 "  hist_distinct_by_count: [1]\n  hist_lookups_by_count: [1]\n");
         return "trace fit " + w.path("target.yaml") + " --scenario " +
                w.write("bad.yaml", test::tiny_text());
       },
       "target.yaml:4:", "lookup", "did you mean 'lookups'?"},
      {"FitTargetKeyWrittenTwice",
       [](const Workspace& w) {
         w.write("target.yaml",
                 "tables: 2\nbatch_size: 100\nlookups: 300\nlookups: 400\noverall:\n"
                 "  hist_distinct_by_count: [1]\n  hist_lookups_by_count: [1]\n");
         return "trace fit " + w.path("target.yaml") + " --scenario " +
                w.write("bad.yaml", test::tiny_text());
       },
       "target.yaml:4:", "lookups", "written twice in the same mapping"},
      // ----- cost files (`cost: {file: ...}`, what `shardsim calibrate --out` writes)
      {"CostFileMissing", scenario_plus("cost: {file: nope.yaml}"), "bad.yaml:18:", "cost.file",
       "no cost file at"},
      {"CostFileUnknownKey", cost_file("# fitted\ncolective_launch_s: 1e-6\n"),
       "fitted.yaml:2:", "colective_launch_s", "did you mean 'collective_launch_s'?"},
      {"CostFileValueOutOfRange",
       cost_file("collective_launch_s: 1e-6\nkernel_hbm_efficiency: 1.5\n"),
       "fitted.yaml:2:", "kernel_hbm_efficiency", "expected a fraction in (0, 1], found 1.5"},
      {"CostFileKeyWrittenTwice",
       cost_file("collective_launch_s: 1e-6\ncollective_launch_s: 2e-6\n"),
       "fitted.yaml:2:", "collective_launch_s", "written twice in the same mapping"},
      {"CostFileNamesAnotherFile", cost_file("collective_launch_s: 1e-6\nfile: other.yaml\n"),
       "fitted.yaml:2:", "file", "may not name another cost file"},
      // ----- nccl-tests logs and FBGEMM benchmark logs (`shardsim calibrate`)
      {"NcclLogRowNotANumber",
       [](const Workspace& w) {
         std::string log = testing::read_file(std::string(SHARDSIM_SOURCE_DIR) +
                                              "/tests/data/nccl_logs/all_reduce_perf_2x4.log");
         const auto at = log.find("0.23    0.40");
         log.replace(at, 12, "0.23    x.40");
         return "calibrate " + w.write("nccl.log", log) + " --preset hpc-a100x4";
       },
       "nccl.log:18:", "busbw", "'x.40' is not a number"},
      {"NcclLogNoRankLines",
       [](const Workspace& w) {
         std::string log = testing::read_file(std::string(SHARDSIM_SOURCE_DIR) +
                                              "/tests/data/nccl_logs/all_reduce_perf_2x4.log");
         std::string kept;
         std::istringstream in(log);
         for (std::string line; std::getline(in, line);) {
           if (line.find("#  Rank") != 0) kept += line + "\n";
         }
         return "calibrate " + w.write("nccl.log", kept) + " --preset hpc-a100x4";
       },
       "nccl.log", "ranks", "cannot tell the rank count"},
      {"FbgemmLogDimZero",
       [](const Workspace& w) {
         return "calibrate --kernels " +
                w.write("kernels.log",
                        "INFO:root:Forward, B: 512, E: 1000, T: 4, D: 0, L: 8, W: True, BW: 1.0 "
                        "GB/s, T: 10us\n") +
                " --preset dgx-a100";
       },
       "kernels.log:1:", "D", "D = 0 is not an embedding dim"},
      {"FbgemmLogNoResultLines",
       [](const Workspace& w) {
         return "calibrate --kernels " + w.write("kernels.log", "INFO:root:Iteration 0: 1.0us\n") +
                " --preset dgx-a100";
       },
       "kernels.log", "rows", "no result lines"},
      // Absurd measurements (issue 57, item 5): refused at their line.
      {"NcclLogTimeOverAnHour", nccl_log_with("401.7", "1e308"), "nccl.log:19:", "time",
       "more than an hour"},
      {"NcclLogTimeZero", nccl_log_with("36.04", "0"), "nccl.log:18:", "time",
       "a measured time must be positive"},
      {"NcclLogSizeBeyondTwoToThe63", nccl_log_with("8388608  ", "99999999999999999999  "),
       "nccl.log:19:", "size", "expected a number of bytes up to 2^63"},
      {"NcclLogFasterThanTheLinks", nccl_log_with("401.7", "0.001"), "nccl.log:19:", "time",
       "more than 10x the fastest link of hpc-a100x4"},
      {"NcclLogIsADirectory",
       [](const Workspace& w) {
         fs::create_directories(w.dir / "nccl-logs");
         return "calibrate " + w.path("nccl-logs") + " --preset hpc-a100x4";
       },
       "nccl-logs", "LOG", "is a directory, expected an nccl-tests log file"},
      {"PointsSizeBeyondTwoToThe63", points_csv("allreduce,99999999999999999999,100,dgx-a100,1"),
       "points.csv:2:", "size_bytes", "expected a number of bytes up to 2^63"},
      {"PointsTimeOverAnHour", points_csv("allreduce,1048576,1e308,dgx-a100,1"),
       "points.csv:2:", "time_us", "more than an hour"},
      {"PointsFasterThanTheLinks", points_csv("allreduce,1073741824,1,dgx-a100,1"),
       "points.csv:2:", "time", "more than 10x the fastest link of dgx-a100"},
      {"FbgemmLogTimeOverAnHour",
       [](const Workspace& w) {
         return "calibrate --kernels " +
                w.write("kernels.log",
                        "INFO:root:Forward, B: 512, E: 1000, T: 4, D: 64, L: 8, W: True, BW: 1.0 "
                        "GB/s, T: 1e12us\n") +
                " --preset dgx-a100";
       },
       "kernels.log:1:", "T", "more than an hour"},
      // ----- --set
      {"SetBadPath", scenario(1, "name: tiny", "--set cluster..nodes=2"), "<command line>",
       "--set cluster..nodes", "bad key path"},
      {"SetBadValue", scenario(1, "name: tiny", "--set cluster.nodes=abc"), "bad.yaml: key",
       "cluster.nodes", "expected an integer, found 'abc'"},
      {"SetIndexPastTheEnd", scenario(1, "name: tiny", "--set model.tables[5].rows=1"),
       "<command line>", "--set model.tables[5].rows", "past the end of 'model.tables'"},
      {"SetWithoutEquals", scenario(1, "name: tiny", "--set cluster.nodes"), "<command line>",
       "--set cluster.nodes", "has no '='"},
      {"SetValueNotYaml", scenario(1, "name: tiny", "--set 'cluster.nodes=[1,'"), "<command line>",
       "--set cluster.nodes", "is not valid YAML"},
      {"SetUnknownKey", scenario(1, "name: tiny", "--set cluster.nodez=2"), "bad.yaml",
       "cluster.nodez", "did you mean 'nodes'?"},
      // ----- sweep blocks
      {"SweepNotAList", scenario_plus("sweep:\n  cluster.nodes: 4", "sweep"),
       "bad.yaml:19:", "sweep.cluster.nodes", "expected a list of values"},
      {"SweepEmptyList", scenario_plus("sweep:\n  cluster.nodes: []", "sweep"),
       "bad.yaml:19:", "sweep.cluster.nodes", "empty"},
      {"SweepUnknownKey", scenario_plus("sweep:\n  cluster.nodez: [1, 2]", "sweep"),
       "bad.yaml:19:", "cluster.nodez", "did you mean 'nodes'?"},
      {"SweepBadValue", scenario_plus("sweep:\n  cluster.nodes: [1, 0]", "sweep"),
       "bad.yaml:19:", "cluster.nodes", "expected a positive integer, found 0"},
      {"SweepIndexPastTheEnd", scenario_plus("sweep:\n  model.tables[7].rows: [1, 2]", "sweep"),
       "bad.yaml:19:", "sweep.model.tables[7].rows", "past the end"},
      {"ReportJsonKeyWrittenTwice",
       [](const Workspace& w) {
         const std::string r = w.write(
             "r.json", R"({"scenario": "s", "planner": "table_wise", "planner": "row_wise"})");
         return "diff " + r + " " + r;
       },
       "r.json", "planner", "written twice"},
      {"SweepTooManyPoints", scenario_plus(sweep_of_points(5), "sweep"),
       "bad.yaml:23:", "sweep.cost.k4", "more than 10000 points"},
      {"SweepOverMaxPoints",
       scenario_plus("sweep:\n  cluster.nodes: [1, 2, 3]", "sweep", "--max-points 2"),
       "bad.yaml:19:", "sweep.cluster.nodes", "more than 2 points"},
      // ----- resource limits
      {"MaxMemoryNotASize", scenario(1, "name: tiny", "--max-memory 8X"), "<command line>",
       "--max-memory", "'8X' is not a memory size"},
      {"OverTheMemoryLimit", scenario(4, "  nodes: 64", "--max-memory 1M"), "bad.yaml",
       "--max-memory", "the run would need about"},
      {"ListedTablesOverTheMemoryLimit",  // issue 57, item 2: refused before the nodes are built
       [](const Workspace& w) {
         std::string t;
         for (int i = 0; i < 20000; ++i) t += "    - {rows: 1000, dim: 16, pooling: 2}\n";
         t.pop_back();  // table b follows on the next line: 20,001 tables
         return "run " + w.write("bad.yaml", test::tiny_with(7, t)) + " --max-memory 10M";
       },
       "bad.yaml:7:5:", "model.tables", "lists 20001 tables: loading the scenario would need"},
      {"SweepOverTheMemoryLimit",
       scenario_plus("sweep:\n  cluster.nodes: [32, 64]", "sweep", "--max-memory 2M --jobs 2"),
       "bad.yaml", "--max-memory", "2 runs at once"},
  };
}

// Test names come from the case names; gtest prints a case by its name.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class Catalogue : public ::testing::TestWithParam<Case> {};

TEST_P(Catalogue, ExitsTwoNamingFileLineKeyAndExpectation) {
  const Case& c = GetParam();
  const Workspace w;
  const std::string args = c.setup(w);
  const testing::Result r = run(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(c.where), std::string::npos) << "where '" << c.where << "' in: " << r.err;
  if (!c.key.empty()) {
    EXPECT_NE(r.err.find("key '" + c.key + "'"), std::string::npos)
        << "key '" << c.key << "' in: " << r.err;
  }
  EXPECT_NE(r.err.find(c.what), std::string::npos) << "'" << c.what << "' in: " << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << "no report for bad input: " << r.out;
}

// `validate` runs every check `run` and `sweep` make before simulating (docs/robustness.md):
// each case of those two commands, given to `validate` instead, fails the same way. The flags
// that only a run takes (--jobs: runs at once) are left out with their cases.
TEST_P(Catalogue, ValidateRefusesWhatRunRefuses) {
  const Case& c = GetParam();
  const Workspace w;
  std::string args = c.setup(w);
  const std::size_t space = args.find(' ');
  const std::string command = args.substr(0, space);
  if ((command != "run" && command != "sweep") || args.find("--jobs") != std::string::npos) {
    GTEST_SKIP() << "not a run: " << args;
  }
  args = "validate" + args.substr(space);
  const testing::Result r = run(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(c.what), std::string::npos) << "'" << c.what << "' in: " << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(BadInput, Catalogue, ::testing::ValuesIn(catalogue()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace shardsim
