// End-to-end tests of `shardsim trace fit` (docs/traces.md §13).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "shardsim/trace/expected_count_histograms.hpp"
#include "support/cli_run.hpp"

namespace shardsim {
namespace {

using testing::run;

struct FitWorkspace : testing::Workspace {
  FitWorkspace() : testing::Workspace("shardsim_trace_fit_cli") {}
};

const std::string kFitHeader = R"(name: fitted
cluster: {preset: dgx-a100, nodes: 1}
workload: {batch_per_gpu: 512, iterations: 1, warmup: 0, seed: 3, trace: {mode: sampled}}
placement: {planner: table_wise}
)";

std::string fit_scenario_with(const std::string& tables) {
  return kFitHeader + "model:\n  tables:\n" + tables +
         "  bottom_mlp: [64, 32]\n  top_mlp: [64, 1]\n";
}

// The `model:` fragment with the scenario's MLPs added, appended to the header.
std::string scenario_from_fragment(const std::string& fragment) {
  return kFitHeader + fragment + "  bottom_mlp: [64, 32]\n  top_mlp: [64, 1]\n";
}

nlohmann::json fit_stats_of(const std::string& path) {
  const auto r = run("trace stats " + path + " --format json --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

double hist_l1(const nlohmann::json& a, const nlohmann::json& b, const char* key) {
  const auto x = a[key].get<std::vector<double>>();
  const auto y = b[key].get<std::vector<double>>();
  return l1_distance(bin_shares(x), bin_shares(y));
}

// --from-trace: fit every table of a trace to its own statistics; the fitted scenario's sampled
// trace has statistics within 0.1 L1 of the original, overall and per table.
TEST(TraceFitCli, FromTraceRoundTrip) {
  const FitWorkspace ws;
  const std::string original = ws.write(
      "original.yaml",
      fit_scenario_with("    - {name: a, rows: 200000, dim: 16, pooling: 4, alpha: 1.1, q: 5}\n"
                        "    - {name: b, rows: 3000000, dim: 16, pooling: 2, alpha: 0.7}\n"
                        "    - {name: c, rows: 2000, dim: 16, pooling: 8, alpha: 0.4}\n"));
  const std::string bin = ws.path("t.bin");
  ASSERT_EQ(run("trace gen " + original + " --out " + bin + " --quiet").code, 0);
  const std::string start = ws.write(
      "start.yaml", fit_scenario_with("    - {name: x, rows: 1000, dim: 16, pooling: 1}\n"));
  const auto fit = run("trace fit --from-trace " + bin + " --scenario " + start + " --out " +
                       ws.path("fragment.yaml") + " --quiet");
  ASSERT_EQ(fit.code, 0) << fit.err;
  EXPECT_NE(fit.out.find("before"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("after"), std::string::npos) << fit.out;
  const std::string fitted =
      ws.write("fitted.yaml", scenario_from_fragment(testing::read_file(ws.path("fragment.yaml"))));
  const auto a = fit_stats_of(bin);
  const auto b = fit_stats_of(fitted);
  for (const char* key : {"hist_distinct_by_count", "hist_lookups_by_count"}) {
    EXPECT_LE(hist_l1(a["overall"], b["overall"], key), 0.1) << key;
    for (const char* t : {"a", "b", "c"})
      EXPECT_LE(hist_l1(a["tables"][t], b["tables"][t], key), 0.1) << t << " " << key;
  }
  // Refuses to overwrite the fragment without --force.
  const auto again = run("trace fit --from-trace " + bin + " --scenario " + start + " --out " +
                         ws.path("fragment.yaml") + " --quiet");
  EXPECT_NE(again.code, 0);
}

TEST(TraceFitCli, BadTargetsExitWith2NamingFileLineAndKey) {
  const FitWorkspace ws;
  const std::string sc =
      ws.write("s.yaml", fit_scenario_with("    - {name: x, rows: 1000, dim: 16, pooling: 1}\n"));
  const std::string good_head = "tables: 2\nbatch_size: 100\nlookups: 300\n";
  struct Bad {
    std::string name, text, expect;
  };
  const std::vector<Bad> bad{
      {"sum.yaml",
       good_head + "overall:\n  hist_distinct_by_count: [0.5, 0.4]\n"
                   "  hist_lookups_by_count: [0.5, 0.5]\n",
       "sum.yaml:5"},
      {"negative.yaml",
       good_head + "overall:\n  hist_distinct_by_count: [1.5, -0.5]\n"
                   "  hist_lookups_by_count: [0.5, 0.5]\n",
       "negative share"},
      {"unknown.yaml", good_head + "batch: 4\n", "batch_size"},
      {"missing.yaml", "tables: 2\n", "batch_size"},
      {"count.yaml",
       good_head + "overall: {hist_distinct_by_count: [1], hist_lookups_by_count: [1]}\n"
                   "per_table: []\n",
       "per_table"},
      {"notyaml.yaml", "tables: [1, 2\n", "notyaml.yaml"},
  };
  for (const Bad& b : bad) {
    const auto r = run("trace fit " + ws.write(b.name, b.text) + " --scenario " + sc);
    EXPECT_EQ(r.code, 2) << b.name << ": " << r.err;
    EXPECT_NE(r.err.find(b.name), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(b.expect), std::string::npos) << b.name << ": " << r.err;
  }
  EXPECT_EQ(run("trace fit " + ws.path("absent.yaml") + " --scenario " + sc).code, 2);
}

}  // namespace
}  // namespace shardsim
