// Sweeps under mpirun (issue 19; docs/distributed.md): the same sweep on 1, 2 and 3 ranks writes
// the same bytes as one process; a rank killed mid-run ends the job naming the run it held, with
// no output written, and the finished points resume; a damaged message is refused. Built only
// when CMake finds MPI (tests/CMakeLists.txt).
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

const std::string kExample = std::string(SHARDSIM_SOURCE_DIR) + "/scenarios/example.yaml";

TEST(MpiSweep, OneTwoAndThreeRanksWriteTheBytesOfOneProcess) {
  Workspace ws("mpi_sweep");
  const auto plain =
      shardsim::testing::run("sweep " + kExample + " --out " + ws.path("plain") + " --format json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  const auto expected = files_under(ws.path("plain"));
  ASSERT_GT(expected.size(), 10u);
  for (const int ranks : {1, 2, 3}) {
    const std::string out = ws.path("ranks" + std::to_string(ranks));
    // --jobs 2 on 2 ranks: runs in parallel inside each rank too.
    const std::string jobs = ranks == 2 ? " --jobs 2" : "";
    const auto r = run_mpi(ranks, "sweep " + kExample + " --out " + out + " --format json" + jobs);
    ASSERT_EQ(r.code, 0) << ranks << " ranks: " << r.err;
    EXPECT_EQ(r.out, plain.out) << ranks << " ranks";
    EXPECT_EQ(files_under(out), expected) << ranks << " ranks";
  }
  const auto csv = run_mpi(3, "sweep " + kExample + " --format csv");
  const auto plain_csv = shardsim::testing::run("sweep " + kExample + " --format csv");
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out, plain_csv.out);
}

TEST(MpiSweep, AKilledRankEndsTheJobNamingItsRunAndTheRestResumes) {
  Workspace ws("mpi_sweep");
  const std::string out = ws.path("out");
  // Rank 1 dies (SIGKILL) as it is handed its first run.
  const auto killed = run_mpi(3, "sweep " + kExample + " --out " + out + " --format json",
                              "kill_rank:1:after_point:0");
  EXPECT_NE(killed.code, 0);
  EXPECT_TRUE(killed.out.empty()) << killed.out;
  EXPECT_NE(killed.err.find("the MPI job is ending"), std::string::npos) << killed.err;
  EXPECT_NE(killed.err.find("rank 1 ("), std::string::npos) << killed.err;
  EXPECT_NE(killed.err.find(" at cluster.nodes="), std::string::npos) << killed.err;
  EXPECT_NE(killed.err.find("no output was written"), std::string::npos) << killed.err;
  for (const char* name : {"report.json", "summary.csv", "per_gpu.csv"}) {
    EXPECT_FALSE(fs::exists(fs::path(out) / name)) << name;
  }
  // What finished is kept; a resume on 2 ranks gives the bytes of an uninterrupted sweep.
  const auto resumed =
      run_mpi(2, "sweep " + kExample + " --out " + out + " --resume --format json");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("already finished (their checkpoints)"), std::string::npos)
      << resumed.err;
  const auto plain =
      shardsim::testing::run("sweep " + kExample + " --out " + ws.path("plain") + " --format json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(resumed.out, plain.out);
  EXPECT_EQ(files_under(out), files_under(ws.path("plain")));
}

TEST(MpiSweep, ADamagedResultIsRefusedAndNothingIsWritten) {
  Workspace ws("mpi_sweep");
  const std::string out = ws.path("out");
  const auto r = run_mpi(3, "sweep " + kExample + " --out " + out + " --format json",
                         "corrupt_rank:2:point:1");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("MPI rank 2: a malformed message: its checksum does not match"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(fs::path(out) / "report.json"));
}

// A run that fails on a worker (an option that only planning refuses: 16 groups of the first
// point's 8 GPUs; the other points plan) fails the sweep as in one process: the same message, the
// same exit code, no output files. Longest first, one a rank in rank order: the 32- and 16-GPU
// points go to ranks 0 and 1, the failing 8-GPU point to rank 2.
TEST(MpiSweep, ARunFailingOnAWorkerFailsAsInOneProcess) {
  Workspace ws("mpi_sweep");
  const std::string args = "sweep " + kExample +
                           " --set placement.planner=two_d --set placement.options.groups=16"
                           " --format csv --out ";
  const auto plain = shardsim::testing::run(args + ws.path("plain"));
  ASSERT_EQ(plain.code, 2) << plain.err;
  const auto error_line = [](const std::string& err) {
    const auto at = err.find("[error]");
    return at == std::string::npos ? std::string() : err.substr(at, err.find('\n', at) - at);
  };
  ASSERT_NE(error_line(plain.err).find("cannot be split into 16 groups"), std::string::npos);
  const auto r = run_mpi(3, args + ws.path("ranks3"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(error_line(r.err), error_line(plain.err));
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(fs::exists(fs::path(ws.path("ranks3")) / "summary.csv"));
}

// `size` spreads its probes: the search (two presets at once) and the brute force (every node
// count of a preset at once) print the bytes of one process.
TEST(MpiSize, TwoAndThreeRanksPrintTheBytesOfOneProcess) {
  for (const std::string mode :
       {"--target-qps 2000000 --presets dgx-a100,dgx-h100 --max-nodes 16 --format json",
        "--fit --exhaustive --max-nodes 6 --format csv"}) {
    const std::string args = "size " + kExample + " " + mode;
    const auto plain = shardsim::testing::run(args);
    ASSERT_EQ(plain.code, 0) << plain.err;
    for (const int ranks : {2, 3}) {
      const auto r = run_mpi(ranks, args);
      ASSERT_EQ(r.code, 0) << ranks << " ranks: " << r.err;
      EXPECT_EQ(r.out, plain.out) << ranks << " ranks, " << mode;
    }
  }
}

TEST(MpiSweep, OtherCommandsRefuseSeveralRanks) {
  const auto r = run_mpi(2, "run " + kExample + " --format csv");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("it runs as one process"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace shardsim
