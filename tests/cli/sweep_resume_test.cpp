// Resumable sweeps (issue 22; docs/robustness.md, "Resumable sweeps"): a sweep killed part-way,
// even in the middle of writing a point, and rerun with --resume writes the same bytes as one
// that never stopped, and simulates only the points it had not finished.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "../support/cli_run.hpp"
#include "../support/point_files.hpp"

namespace shardsim {
namespace {

namespace resume_test {

namespace fs = std::filesystem;
using shardsim::testing::files_in;
using shardsim::testing::run;
using shardsim::testing::run_with_fault;
using shardsim::testing::Workspace;

// The example's sweep (3 points x 2 planners), and a 2D variant whose first point does not fit
// and whose others have groups and a replica sync: every part of a report goes through a
// checkpoint.
const std::string kExample = std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/example.yaml";
const std::string kTwoD = kExample +
                          " --set placement.planner=two_d --set placement.options.groups=2"
                          " --set placement.options.inner=table_wise";

// Every file under `dir` except the checkpoints, by relative path.
std::map<std::string, std::string> outputs(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), dir).string();
    if (rel.rfind("points", 0) == 0) continue;
    files[rel] = shardsim::testing::read_file(e.path().string());
  }
  return files;
}

struct Case {
  std::string scenario;
  std::string fault;
};

void check_interrupted_and_resumed(const Case& c) {
  Workspace ws("sweep_resume");
  const std::string whole = ws.path("whole");
  const std::string cut = ws.path("cut");
  const auto full = run("sweep " + c.scenario + " --out " + whole + " --format json");
  ASSERT_EQ(full.code, 0) << full.err;

  const auto killed =
      run_with_fault(c.fault, "sweep " + c.scenario + " --out " + cut + " --format json");
  EXPECT_NE(killed.code, 0);
  EXPECT_FALSE(fs::exists(fs::path(cut) / "report.json"));  // killed before the outputs
  EXPECT_EQ(files_in(fs::path(cut) / "points", ".point"), 2u) << c.fault;  // two of 3 finished...
  const bool torn = c.fault.rfind("tear", 0) == 0;
  EXPECT_EQ(files_in(fs::path(cut) / "points", ".tmp."), torn ? 1u : 0u);  // ...one half-written

  const auto resumed =
      run("sweep " + c.scenario + " --out " + cut + " --resume --format json --jobs 2");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resume: 2 of 3 runs already finished (their checkpoints); "
                             "simulating 1"),
            std::string::npos)
      << resumed.err;
  if (torn) {
    EXPECT_NE(resumed.err.find("removed 1 half-written point file"), std::string::npos);
  }
  EXPECT_EQ(files_in(fs::path(cut) / "points", ".tmp."), 0u);
  EXPECT_EQ(resumed.out, full.out);  // stdout: the same JSON
  EXPECT_EQ(outputs(cut), outputs(whole));
}

}  // namespace resume_test

using resume_test::check_interrupted_and_resumed;
using resume_test::kExample;
using resume_test::kTwoD;
using resume_test::outputs;
using shardsim::testing::run_with_fault;

TEST(SweepResume, KilledAfterTwoPointsResumesToTheSameBytes) {
  check_interrupted_and_resumed({kExample, "kill_after_point:2"});
}

TEST(SweepResume, KilledWhileWritingAPointResumesToTheSameBytes) {
  check_interrupted_and_resumed({kExample, "tear_point:3"});
}

TEST(SweepResume, TwoDReportsWithAnUnfitPointResumeToTheSameBytes) {
  check_interrupted_and_resumed({kTwoD, "kill_after_point:2"});
}

TEST(SweepResume, AFinishedSweepResumesWithNothingToDoAndADamagedPointIsRedone) {
  shardsim::testing::Workspace ws("sweep_resume");
  const std::string dir = ws.path("out");
  const auto first =
      shardsim::testing::run("sweep " + kExample + " --out " + dir + " --format csv");
  ASSERT_EQ(first.code, 0) << first.err;
  const auto before = outputs(dir);
  auto again =
      shardsim::testing::run("sweep " + kExample + " --out " + dir + " --resume --format csv");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(
      again.err.find("resume: 3 of 3 runs already finished (their checkpoints); simulating 0"),
      std::string::npos)
      << again.err;
  EXPECT_EQ(again.out, first.out);
  EXPECT_EQ(outputs(dir), before);
  // A checkpoint cut short under its final name (e.g. by a crash before the data reached the
  // disk) is seen by its checksum and simulated again.
  const std::filesystem::path victim =
      std::filesystem::directory_iterator(std::filesystem::path(dir) / "points")->path();
  std::filesystem::resize_file(victim, std::filesystem::file_size(victim) / 3);
  again = shardsim::testing::run("sweep " + kExample + " --out " + dir + " --resume --format csv");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("checksum does not match"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("2 of 3 runs already finished"), std::string::npos) << again.err;
  EXPECT_EQ(outputs(dir), before);
}

TEST(SweepResume, AnEarlierSweepsPointsAreNotOverwrittenUnasked) {
  shardsim::testing::Workspace ws("sweep_resume");
  const std::string dir = ws.path("out");
  ASSERT_EQ(run_with_fault("kill_after_point:1", "sweep " + kExample + " --out " + dir).code == 0,
            false);
  const std::string kept = shardsim::testing::read_file(
      std::filesystem::directory_iterator(std::filesystem::path(dir) / "points")->path().string());
  const auto refused = shardsim::testing::run("sweep " + kExample + " --out " + dir);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("holds 1 finished point(s) of an earlier sweep"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("--resume"), std::string::npos);
  EXPECT_EQ(shardsim::testing::read_file(
                std::filesystem::directory_iterator(std::filesystem::path(dir) / "points")
                    ->path()
                    .string()),
            kept);
  // --force starts over: every point simulated, no resume.
  const auto forced = shardsim::testing::run("sweep " + kExample + " --out " + dir + " --force");
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_EQ(forced.err.find("resume:"), std::string::npos);
}

TEST(SweepResume, ResumeNeedsAnOutFolder) {
  const auto r = shardsim::testing::run("sweep " + kExample + " --resume");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--resume needs --out DIR"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace shardsim
