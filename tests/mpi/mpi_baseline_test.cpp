// `baseline` over several scenario files under mpirun (issue 19; docs/distributed.md): the runs
// of every file spread over the ranks, and the golden files and stdout are the bytes of one
// process for 1, 2 and 3 ranks; a run failing on a worker fails as in one process; a rank killed
// mid-run ends the job naming the file and run it held, with no golden file written.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../support/cli_run.hpp"
#include "mpi_launch.hpp"

namespace shardsim {
namespace {

namespace fs = std::filesystem;
using shardsim::testing::files_under;
using shardsim::testing::run_mpi;
using shardsim::testing::Workspace;

// Two files: example.yaml's sweep over 1, 2, 4 nodes (scaling factors within the file) and the
// default scenario's three planners, each for two seeds: 8 runs. Fewer iterations: seconds.
const std::string kScenarios = std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/example.yaml " +
                               SHARDSIM_SOURCE_DIR + "/scenarios/default.yaml";
const std::string kFlags = " --seeds 2 --iterations 3";

// The first error line on stderr.
std::string error_line(const std::string& err) {
  const auto at = err.find("[error]");
  return at == std::string::npos ? std::string() : err.substr(at, err.find('\n', at) - at);
}

TEST(MpiBaseline, OneTwoAndThreeRanksWriteTheBytesOfOneProcess) {
  Workspace ws("mpi_baseline");
  // The same --out path every time: stdout names it.
  const std::string out = ws.path("out");
  const auto plain = shardsim::testing::run("baseline " + kScenarios + kFlags + " --out " + out);
  ASSERT_EQ(plain.code, 0) << plain.err;
  const auto expected = files_under(out);
  ASSERT_EQ(expected.size(), 2u);
  ASSERT_NE(plain.out.find("example.json: 12 report(s)"), std::string::npos) << plain.out;
  fs::remove_all(out);
  for (const int ranks : {1, 2, 3}) {
    // --jobs 2 on 2 ranks: runs in parallel inside each rank too.
    const std::string jobs = ranks == 2 ? " --jobs 2" : "";
    const auto r = run_mpi(ranks, "baseline " + kScenarios + kFlags + jobs + " --out " + out);
    ASSERT_EQ(r.code, 0) << ranks << " ranks: " << r.err;
    EXPECT_EQ(r.out, plain.out) << ranks << " ranks";
    EXPECT_EQ(files_under(out), expected) << ranks << " ranks";
    fs::remove_all(out);
  }
}

// two_d with 16 groups: example.yaml's 8-GPU point fails at planning, the default scenario's
// 16 GPUs plan. Files in this order, one process runs the default scenario, then fails at
// example.yaml's first point. On 3 ranks (longest first, one a rank: the 32- and 16-GPU points to
// ranks 0 and 1, the failing 8-GPU point to rank 2) the same error line and exit code, and no
// file. A file after it that cannot even be read changes nothing (one process never reads it);
// alone after a good file, it is the error, as in one process.
TEST(MpiBaseline, ARunFailingOnAWorkerFailsAsInOneProcess) {
  Workspace ws("mpi_baseline");
  const std::string dir = std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/";
  const std::string flags =
      " --iterations 3 --set placement.planner=two_d --set placement.options.groups=16 --out ";
  const std::string missing = ws.path("missing.yaml");
  for (const std::string& files :
       {dir + "default.yaml " + dir + "example.yaml",
        dir + "default.yaml " + dir + "example.yaml " + missing, dir + "default.yaml " + missing}) {
    const std::string args = "baseline " + files + flags;
    const auto plain = shardsim::testing::run(args + ws.path("plain"));
    ASSERT_EQ(plain.code, 2) << plain.err;
    const bool reads_missing = files.find("example") == std::string::npos;
    ASSERT_NE(
        error_line(plain.err).find(reads_missing ? missing : "cannot be split into 16 groups"),
        std::string::npos)
        << plain.err;
    const auto r = run_mpi(3, args + ws.path("ranks3"));
    EXPECT_EQ(r.code, 2) << files << ": " << r.err;
    EXPECT_EQ(error_line(r.err), error_line(plain.err)) << files;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(ws.path("ranks3"))) << "no golden file";
  }
}

TEST(MpiBaseline, AKilledRankEndsTheJobNamingItsRunAndWritesNothing) {
  Workspace ws("mpi_baseline");
  const std::string out = ws.path("out");
  // Rank 1 dies (SIGKILL) as it is handed its first run.
  const auto killed =
      run_mpi(3, "baseline " + kScenarios + kFlags + " --out " + out, "kill_rank:1:after_point:0");
  EXPECT_NE(killed.code, 0);
  EXPECT_TRUE(killed.out.empty()) << killed.out;
  EXPECT_NE(killed.err.find("the MPI job is ending"), std::string::npos) << killed.err;
  EXPECT_NE(killed.err.find("rank 1 ("), std::string::npos) << killed.err;
  // Its run is named with its scenario file (the runs of two files are in flight).
  EXPECT_NE(killed.err.find(".yaml)"), std::string::npos) << killed.err;
  EXPECT_NE(killed.err.find("no output was written"), std::string::npos) << killed.err;
  EXPECT_FALSE(fs::exists(fs::path(out) / "example.json"));
  EXPECT_FALSE(fs::exists(fs::path(out) / "default.json"));
}

}  // namespace
}  // namespace shardsim
