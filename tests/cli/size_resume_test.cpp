// Resumable sizing searches (issue 22; docs/robustness.md, "Resumable sweeps and sizing
// searches"): `size --out DIR` keeps each finished probe under DIR/points; a search killed
// part-way, even in the middle of writing a probe, and rerun with --resume writes the same bytes
// (standard output and size.txt/json/csv) as one that never stopped, simulating only the probes
// it had not finished.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/cli_run.hpp"
#include "../support/point_files.hpp"

namespace shardsim {
namespace {

namespace size_resume_test {

namespace fs = std::filesystem;
using shardsim::testing::files_in;
using shardsim::testing::read_file;
using shardsim::testing::run;
using shardsim::testing::run_with_fault;
using shardsim::testing::Workspace;

const std::string kExample = std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/example.yaml";
// The brute force over 1..6 nodes (6 probes), and the search over two presets on 2 jobs.
const std::string kBrute = "size " + kExample + " --fit --exhaustive --max-nodes 6 --format csv";
const std::string kSearch = "size " + kExample +
                            " --target-qps 20000000 --presets dgx-a100,dgx-h100 --max-nodes 16"
                            " --format json --jobs 2";

// The number after `text` in `err` (e.g. "simulated "), or -1.
long number_after(const std::string& err, const std::string& text) {
  const auto at = err.find(text);
  if (at == std::string::npos) return -1;
  return std::strtol(err.c_str() + at + text.size(), nullptr, 10);
}

void check_killed_and_resumed(const std::string& args, const std::string& fault) {
  Workspace ws("size_resume");
  const std::string whole = ws.path("whole");
  const std::string cut = ws.path("cut");
  const auto full = run(args + " --out " + whole);
  ASSERT_EQ(full.code, 0) << full.err;
  const std::size_t probes = files_in(fs::path(whole) / "points", ".point");
  ASSERT_GT(probes, 3u);

  const auto killed = run_with_fault(fault, args + " --out " + cut);
  EXPECT_NE(killed.code, 0);
  EXPECT_TRUE(killed.out.empty());
  EXPECT_FALSE(fs::exists(fs::path(cut) / "size.json"));  // killed before the outputs
  EXPECT_EQ(files_in(fs::path(cut) / "points", ".point"), 2u) << fault;
  const bool torn = fault.rfind("tear", 0) == 0;
  EXPECT_EQ(files_in(fs::path(cut) / "points", ".tmp."), torn ? 1u : 0u);

  // Without --resume (or --force) the kept probes are not silently thrown away.
  const auto refused = run(args + " --out " + cut);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("holds 2 finished probe(s)"), std::string::npos) << refused.err;

  const auto resumed = run(args + " --out " + cut + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_EQ(number_after(resumed.err, "resume: "), 2) << resumed.err;
  EXPECT_EQ(number_after(resumed.err, "simulated "), static_cast<long>(probes) - 2) << resumed.err;
  EXPECT_EQ(resumed.out, full.out);
  for (const char* file : {"size.txt", "size.json", "size.csv"}) {
    EXPECT_EQ(read_file(fs::path(cut) / file), read_file(fs::path(whole) / file)) << file;
  }
  EXPECT_EQ(files_in(fs::path(cut) / "points", ".tmp."), 0u);
  EXPECT_EQ(files_in(fs::path(cut) / "points", ".point"), probes);

  // Resumed again: nothing left to simulate, the same bytes.
  const auto again = run(args + " --out " + cut + " --resume");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(number_after(again.err, "simulated "), 0) << again.err;
  EXPECT_EQ(again.out, full.out);
}

TEST(SizeResume, TheBruteForceKilledAfterTwoProbesResumesToTheSameBytes) {
  check_killed_and_resumed(kBrute, "kill_after_point:2");
}

TEST(SizeResume, TheSearchKilledWhileWritingAProbeResumesToTheSameBytes) {
  check_killed_and_resumed(kSearch, "tear_point:3");
}

TEST(SizeResume, OutputFlagsAreCheckedBeforeAnyProbe) {
  Workspace ws("size_resume_flags");
  const auto no_out = run(kBrute + " --resume");
  EXPECT_EQ(no_out.code, 2);
  EXPECT_NE(no_out.err.find("--resume needs --out DIR"), std::string::npos) << no_out.err;
  const auto force_alone = run(kBrute + " --force");
  EXPECT_EQ(force_alone.code, 2);
  EXPECT_NE(force_alone.err.find("there is no --out"), std::string::npos) << force_alone.err;
  // An existing output without --force: refused, nothing simulated, nothing kept.
  const std::string dir = ws.path("taken");
  fs::create_directories(dir);
  { std::ofstream(fs::path(dir) / "size.json") << "mine\n"; }
  const auto taken = run(kBrute + " --out " + dir);
  EXPECT_EQ(taken.code, 2);
  EXPECT_NE(taken.err.find("size.json"), std::string::npos) << taken.err;
  EXPECT_EQ(read_file(fs::path(dir) / "size.json"), "mine\n");
  EXPECT_FALSE(fs::exists(fs::path(dir) / "points"));
  // --force overwrites it.
  const auto forced = run(kBrute + " --out " + dir + " --force");
  ASSERT_EQ(forced.code, 0) << forced.err;
  EXPECT_EQ(read_file(fs::path(dir) / "size.csv"), forced.out);
}

}  // namespace size_resume_test

}  // namespace
}  // namespace shardsim
