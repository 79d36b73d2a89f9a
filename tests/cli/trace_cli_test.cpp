// End-to-end tests of `shardsim trace` and of replaying trace files with `run`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/cli_run.hpp"

namespace shardsim::trace_cli_test {
namespace {

namespace fs = std::filesystem;
using testing::run;
using testing::unique_temp;

// A folder of its own per test, holding the scenario (trace paths are relative to it).
struct Workspace : testing::Workspace {
  Workspace() : testing::Workspace("shardsim_trace_cli") {}
};

std::string scenario(const std::string& trace) {
  return R"(name: small
cluster: {preset: dgx-a100, nodes: 1}
model:
  tables:
    - {name: a, rows: 100000, dim: 32, pooling: 4, alpha: 1.05}
    - {name: b, rows: 2000000, dim: 64, pooling: {dist: uniform, min: 1, max: 3}, alpha: 0.9}
    - {name: c, rows: 5000, dim: 16, pooling: 1, alpha: 1.2, heavy_hitters: [0.1]}
  bottom_mlp: [64, 32]
  top_mlp: [64, 1]
workload:
  batch_per_gpu: 256
  iterations: 3
  warmup: 1
  seed: 7
  trace: )" +
         trace + R"(
placement: {planner: [table_wise, row_wise]}
)";
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(TraceCli, GenThenStatsOfTheFileEqualsStatsOfTheScenario) {
  const Workspace ws;
  const std::string yaml = ws.write("s.yaml", scenario("{unique_in_bag: true, reuse: 0.2}"));
  const std::string bin = ws.path("t.bin");
  const auto gen = run("trace gen " + yaml + " --out " + bin + " --quiet");
  ASSERT_EQ(gen.code, 0) << gen.err;
  EXPECT_NE(gen.out.find("3 tables, 8192 samples each"), std::string::npos) << gen.out;
  const auto from_file = run("trace stats " + bin + " --format json");
  const auto from_scenario = run("trace stats " + yaml + " --format json --quiet");
  ASSERT_EQ(from_file.code, 0) << from_file.err;
  ASSERT_EQ(from_scenario.code, 0) << from_scenario.err;
  EXPECT_EQ(from_file.out, from_scenario.out);
  // Generating the tables on 3 threads changes nothing.
  EXPECT_EQ(run("trace stats " + yaml + " --format json --quiet --jobs 3").out, from_scenario.out);
  const auto j = nlohmann::json::parse(from_file.out);
  ASSERT_EQ(j.size(), 2u);
  ASSERT_EQ(j["tables"].size(), 3u);
  const std::set<std::string> keys = {
      "lookups",       "distinct_rows",          "mean_pooling",
      "top1pct_share", "hist_distinct_by_count", "hist_lookups_by_count",
      "alpha_fit"};
  for (const auto& obj : {j["tables"]["a"], j["tables"]["b"], j["tables"]["c"], j["overall"]}) {
    std::set<std::string> got;
    for (const auto& [k, v] : obj.items()) got.insert(k);
    EXPECT_EQ(got, keys);
  }
  // 8 GPUs x 256 samples x 4 iterations = 8192 bags; table a has pooling 4.
  EXPECT_EQ(j["tables"]["a"]["lookups"], 4 * 8192);
  EXPECT_EQ(j["tables"]["a"]["mean_pooling"], 4.0);
  EXPECT_EQ(j["overall"]["lookups"].get<std::uint64_t>(),
            j["tables"]["a"]["lookups"].get<std::uint64_t>() +
                j["tables"]["b"]["lookups"].get<std::uint64_t>() +
                j["tables"]["c"]["lookups"].get<std::uint64_t>());
  EXPECT_GT(j["tables"]["a"]["alpha_fit"].get<double>(), 0.5);
  // The text format too.
  const auto text = run("trace stats " + bin);
  ASSERT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("overall:"), std::string::npos);
}

TEST(TraceCli, GenNeverOverwritesWithoutForceAndIsThreadCountFree) {
  const Workspace ws;
  const std::string yaml = ws.write("s.yaml", scenario("{layout: clustered}"));
  const std::string bin = ws.path("t.bin");
  ASSERT_EQ(run("trace gen " + yaml + " --out " + bin + " --quiet").code, 0);
  const std::string first = bytes_of(bin);
  ws.write("t.bin", "precious");
  const auto refused = run("trace gen " + yaml + " --out " + bin);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_EQ(bytes_of(bin), "precious");
  ASSERT_EQ(run("trace gen " + yaml + " --out " + bin + " --force --jobs 3 --quiet").code, 0);
  EXPECT_EQ(bytes_of(bin), first);  // the same bytes whatever --jobs
  // No temporary files are left behind.
  int files = 0;
  for (const auto& e : fs::directory_iterator(ws.dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 2);
  // A different seed is a different trace.
  ASSERT_EQ(run("trace gen " + yaml + " --out " + bin + " --force --seed 8 --quiet").code, 0);
  EXPECT_NE(bytes_of(bin), first);
}

TEST(TraceCli, RunReplaysATraceFileLikeSampledMode) {
  const Workspace ws;
  const std::string gen_yaml = ws.write("gen.yaml", scenario("{mode: sampled, reuse: 0.3}"));
  ASSERT_EQ(run("trace gen " + gen_yaml + " --out " + ws.path("t.bin") + " --quiet").code, 0);
  // The trace path is relative to the scenario's folder; run from elsewhere.
  const std::string replay_yaml = ws.write("replay.yaml", scenario("{file: t.bin}"));
  const auto sampled = run("run " + gen_yaml + " --format json --quiet");
  const auto replayed = run("run " + replay_yaml + " --format json --quiet");
  ASSERT_EQ(sampled.code, 0) << sampled.err;
  ASSERT_EQ(replayed.code, 0) << replayed.err;
  const auto a = nlohmann::json::parse(sampled.out)["reports"];
  const auto b = nlohmann::json::parse(replayed.out)["reports"];
  ASSERT_EQ(a.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(a[i]["iteration_time_s"], b[i]["iteration_time_s"]);
    EXPECT_EQ(a[i]["imbalance_ratio"], b[i]["imbalance_ratio"]);
    EXPECT_EQ(a[i]["comm_bytes"], b[i]["comm_bytes"]);
  }
}

TEST(TraceCli, BadTraceFilesExitWith2AndAMessage) {
  const Workspace ws;
  const std::string yaml = ws.write("s.yaml", scenario("{}"));
  ASSERT_EQ(run("trace gen " + yaml + " --out " + ws.path("t.bin") + " --quiet").code, 0);
  const std::string good = bytes_of(ws.path("t.bin"));
  // A header that claims 10^12 tables of 10^12 samples.
  std::string lying = good;
  const std::uint64_t huge = 1'000'000'000'000ULL;
  lying.replace(24, 8, reinterpret_cast<const char*>(&huge), 8);
  ws.write("lying.bin", lying);
  ws.write("cut.bin", good.substr(0, good.size() / 2));
  std::string flipped = good;
  flipped[good.size() - 100] ^= 1;
  ws.write("flipped.bin", flipped);
  ws.write("notatrace.bin", "hello");
  for (const char* name : {"lying.bin", "cut.bin", "flipped.bin", "notatrace.bin", "missing.bin"}) {
    const auto stats = run(std::string("trace stats ") + ws.path(name));
    EXPECT_EQ(stats.code, 2) << name << ": " << stats.err;
    EXPECT_NE(stats.err.find(name), std::string::npos) << stats.err;
    const std::string replay = ws.write("r.yaml", scenario(std::string("{file: ") + name + "}"));
    const auto replayed = run("run " + replay);
    EXPECT_EQ(replayed.code, 2) << name << ": " << replayed.err;
    EXPECT_NE(replayed.err.find("workload.trace.file"), std::string::npos) << replayed.err;
  }
  // Options that shape synthetic traces next to `file` are ignored, with a warning.
  const auto both = run("validate " + ws.write("b.yaml", scenario("{file: t.bin, reuse: 0.5}")));
  EXPECT_EQ(both.code, 0) << both.err;
  EXPECT_NE(both.err.find("workload.trace.reuse': ignored"), std::string::npos) << both.err;
  const auto reuse = run("validate " + ws.write("r1.yaml", scenario("{reuse: 1.0}")));
  EXPECT_EQ(reuse.code, 2);
  EXPECT_NE(reuse.err.find("not in [0, 1)"), std::string::npos) << reuse.err;
  EXPECT_NE(reuse.err.find("r1.yaml:15:18"), std::string::npos) << reuse.err;
  const auto typo = run("validate " + ws.write("r2.yaml", scenario("{unique_in_bags: true}")));
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("unique_in_bag"), std::string::npos) << typo.err;
}

TEST(TraceCli, ImportCsvThenStats) {
  const Workspace ws;
  const std::string csv =
      ws.write("hand.csv", "# rows: 1000\ntable,sample,row\n0,0,5\n0,0,6\n0,1,5\n0,2,7\n");
  const std::string bin = ws.path("hand.bin");
  const auto imp = run("trace import " + csv + " --out " + bin);
  ASSERT_EQ(imp.code, 0) << imp.err;
  const auto j = nlohmann::json::parse(run("trace stats " + bin + " --format json").out);
  EXPECT_EQ(j["tables"]["t0"]["lookups"], 4);
  EXPECT_EQ(j["tables"]["t0"]["distinct_rows"], 3);
  // Top 1% of 1000 rows = 10 rows: every lookup.
  EXPECT_EQ(j["tables"]["t0"]["top1pct_share"], 1.0);
  EXPECT_EQ(j["tables"]["t0"]["hist_distinct_by_count"], nlohmann::json::parse("[2, 1]"));
  // The CSV directly gives the same statistics.
  EXPECT_EQ(run("trace stats " + csv + " --format json").out,
            run("trace stats " + bin + " --format json").out);
  const auto bad = run("trace import " + ws.write("bad.csv", "table,sample,row\n0,0\n") +
                       " --out " + ws.path("bad.bin"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("bad.csv:2"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(ws.path("bad.bin")));
}

}  // namespace
}  // namespace shardsim::trace_cli_test
