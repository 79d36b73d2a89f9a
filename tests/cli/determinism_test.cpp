// Determinism (docs/robustness.md, "Determinism"): the same scenario and seed give byte-identical
// outputs across runs and across --jobs: every file of `--out` (report.json, summary.csv,
// per_gpu.csv, the communication matrices), sweeps, plan files, trace files and baselines; in
// expected and sampled trace modes and when replaying a trace file. A different seed changes
// them (so these tests can fail). The Chrome trace of `run --trace-out` too, with every
// `simulation:` option that draws or shares (jitter, stragglers, both link-sharing models).
// `run` and `plan` are single-threaded; `--jobs` belongs to sweep, baseline and trace gen.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/cli_run.hpp"

namespace shardsim::determinism_test {
namespace {

namespace fs = std::filesystem;
using testing::run;
using testing::unique_temp;

// `trace` is the workload's trace mapping, or just a mode.
std::string scenario(const std::string& trace) {
  const std::string mapping =
      trace.front() == '{' ? trace : "{mode: " + trace + ", layout: clustered}";
  return R"(name: det
cluster: {preset: dgx-a100, nodes: 1}
model:
  tables:
    - {name: a, rows: 100000, dim: 32, pooling: 4, alpha: 1.05}
    - {name: b, rows: 2000000, dim: 64, pooling: {dist: lognormal, mean: 3, sigma: 0.5}, alpha: 0.9}
    - {name: c, rows: 5000, dim: 16, pooling: 1, alpha: 1.2, heavy_hitters: [0.1]}
  generate: {count: 5, rows: {dist: loguniform, min: 100, max: 100000}, dim: [16, 32], pooling: {dist: uniform, min: 1, max: 8}}
  bottom_mlp: [64, 32]
  top_mlp: [64, 1]
workload: {batch_per_gpu: 256, iterations: 3, warmup: 1, seed: 11, trace: )" +
         mapping + R"(}
placement: {planner: [table_wise, row_wise, data_parallel, access_greedy, hybrid]}
)";
}

struct Workspace : testing::Workspace {
  Workspace() : testing::Workspace("shardsim_determinism") {}
};

std::string read(const fs::path& p) {
  return testing::read_file(p);
}

// name -> bytes of every file under `dir`.
// Every file under `dir` by relative path (a sweep's points/ checkpoints included: they must not
// depend on --jobs either).
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = read(e.path());
  }
  return out;
}

void expect_same_files(const fs::path& a, const fs::path& b) {
  const auto fa = files_of(a), fb = files_of(b);
  ASSERT_FALSE(fa.empty());
  ASSERT_EQ(fa.size(), fb.size());
  for (const auto& [name, bytes] : fa) {
    ASSERT_TRUE(fb.count(name)) << name;
    EXPECT_TRUE(bytes == fb.at(name)) << name << " differs between " << a << " and " << b;
  }
}

void run_ok(const std::string& args) {
  const testing::Result r = run(args + " --quiet");
  ASSERT_EQ(r.code, 0) << args << "\n" << r.err;
}

TEST(Determinism, RunOutputsAreByteIdenticalAcrossRuns) {
  for (const char* mode : {"expected", "sampled"}) {
    SCOPED_TRACE(mode);
    const Workspace w;
    const std::string s = w.write("s.yaml", scenario(mode));
    run_ok("run " + s + " --out " + w.path("one") + " --trace-out " + w.path("one.json"));
    run_ok("run " + s + " --out " + w.path("two") + " --trace-out " + w.path("two.json"));
    expect_same_files(w.path("one"), w.path("two"));
    EXPECT_EQ(files_of(w.path("one")).size(), 3u + 2 * 5);  // report, summary, per-GPU + 2 x 5
    EXPECT_GT(read(w.path("one.json")).size(), 1000u);
    EXPECT_TRUE(read(w.path("one.json")) == read(w.path("two.json"))) << "Chrome trace";
    run_ok("run " + s + " --seed 12 --out " + w.path("other") + " --trace-out " +
           w.path("other.json"));
    EXPECT_NE(read(w.path("one") + "/report.json"), read(w.path("other") + "/report.json"));
    EXPECT_NE(read(w.path("one.json")), read(w.path("other.json")));
  }
}

TEST(Determinism, SimulationOptionsGiveByteIdenticalReportsAndChromeTraces) {
  for (const char* sharing : {"aggregated", "per_flow", "none", "interference"}) {
    SCOPED_TRACE(sharing);
    const Workspace w;
    const std::string s = w.write(
        "s.yaml", scenario("sampled") + "simulation: {link_sharing: " + sharing +
                      ", jitter: {cv: 0.05}, stragglers: [{gpu: 3, slowdown: 1.5}], pipeline: "
                      "{input_alltoall: serial}}\n");
    for (const char* run_name : {"one", "two"}) {
      run_ok("run " + s + " --out " + w.path(run_name) + " --trace-out " +
             w.path(std::string(run_name) + ".json"));
    }
    expect_same_files(w.path("one"), w.path("two"));
    EXPECT_TRUE(read(w.path("one.json")) == read(w.path("two.json"))) << "Chrome trace";
    run_ok("run " + s + " --seed 12 --trace-out " + w.path("other.json"));
    EXPECT_NE(read(w.path("one.json")), read(w.path("other.json")));  // jitter draws differ
  }
}

TEST(Determinism, SweepOutputsDoNotDependOnJobs) {
  const Workspace w;
  const std::string s =
      w.write("s.yaml", scenario("sampled") +
                            "simulation: {jitter: {cv: 0.05}}\n"
                            "sweep: {cluster.nodes: [1, 2], workload.seed: [1, 2]}\n");
  run_ok("sweep " + s + " --jobs 1 --out " + w.path("one"));
  run_ok("sweep " + s + " --jobs 2 --out " + w.path("two"));
  run_ok("sweep " + s + " --jobs 3 --out " + w.path("three"));
  expect_same_files(w.path("one"), w.path("two"));
  expect_same_files(w.path("one"), w.path("three"));
}

TEST(Determinism, TraceFilesAndTheirReplayDoNotDependOnJobs) {
  const Workspace w;
  const std::string s = w.write("s.yaml", scenario("sampled"));
  run_ok("trace gen " + s + " --jobs 1 --out " + w.path("one.bin"));
  run_ok("trace gen " + s + " --jobs 2 --out " + w.path("two.bin"));
  EXPECT_TRUE(read(w.path("one.bin")) == read(w.path("two.bin")));
  run_ok("trace gen " + s + " --seed 12 --out " + w.path("other.bin"));
  EXPECT_FALSE(read(w.path("one.bin")) == read(w.path("other.bin")));
  // Replaying the file: the same reports every time.
  const std::string replay = w.write("r.yaml", scenario("{file: one.bin}"));
  run_ok("run " + replay + " --out " + w.path("r1"));
  run_ok("run " + replay + " --out " + w.path("r2"));
  expect_same_files(w.path("r1"), w.path("r2"));
}

TEST(Determinism, PlanFilesAreByteIdentical) {
  const Workspace w;
  const std::string s = w.write("s.yaml", scenario("expected"));
  for (const char* planner : {"row_wise", "access_greedy", "hybrid"}) {
    for (const char* ext : {"yaml", "json"}) {
      const std::string a = w.path(std::string(planner) + "1." + ext);
      const std::string b = w.path(std::string(planner) + "2." + ext);
      run_ok("plan " + s + " --planner " + planner + " --out " + a);
      run_ok("plan " + s + " --planner " + planner + " --out " + b);
      EXPECT_TRUE(read(a) == read(b)) << planner << " " << ext;
    }
  }
}

TEST(Determinism, BaselinesDoNotDependOnJobs) {
  const Workspace w;
  const std::string s =
      w.write("s.yaml", scenario("sampled") + "sweep: {workload.batch_per_gpu: [128, 256]}\n");
  run_ok("baseline " + s + " --seeds 2 --jobs 1 --out " + w.path("one"));
  run_ok("baseline " + s + " --seeds 2 --jobs 3 --out " + w.path("two"));
  expect_same_files(w.path("one"), w.path("two"));
}

}  // namespace
}  // namespace shardsim::determinism_test
