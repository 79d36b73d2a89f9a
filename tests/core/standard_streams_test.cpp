// Output to the standard streams is checked (core/standard_streams.hpp, docs/robustness.md):
// every subcommand that prints to standard output fails with exit code 5 and a message when
// standard output cannot be written (/dev/full: every write fails with ENOSPC), instead of
// exiting 0 over an incomplete report.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace shardsim {
namespace {

using testing::run;
using testing::Workspace;

bool have_dev_full() {
  return std::filesystem::exists("/dev/full");
}

void expect_output_failure(const std::string& args) {
  const testing::Result r = run(args + " > /dev/full");
  EXPECT_EQ(r.code, 5) << args << "\n" << r.err;
  EXPECT_NE(r.err.find("could not write to standard output"), std::string::npos) << args << "\n"
                                                                                 << r.err;
  EXPECT_NE(r.err.find("incomplete"), std::string::npos) << r.err;
}

TEST(StandardStreams, EverySubcommandThatPrintsFailsOnAFullDevice) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this system";
  Workspace ws("shardsim_streams");
  const std::string points = ws.write("points.csv",
                                      "label,collective,size_bytes,time_us,preset,nodes\n"
                                      "a,allreduce,1048576,60,dgx-h100,2\n"
                                      "b,allreduce,1073741824,6000,dgx-h100,2\n"
                                      "c,allgather,1073741824,3500,dgx-h100,2\n");
  const std::string target = ws.write("target.yaml",
                                      "tables: 2\nbatch_size: 100\nlookups: 300\noverall:\n"
                                      "  hist_distinct_by_count: [0.5, 0.5]\n"
                                      "  hist_lookups_by_count: [0.3, 0.7]\n");
  const std::string src = SHARDSIM_SOURCE_DIR;
  const std::string scenario = src + "/scenarios/default.yaml";
  const std::string golden = src + "/tests/golden/default.json";
  // The trace commands sample every bag of the default scenario (about 3 s each, 25 s under the
  // sanitizers); one iteration is enough to fill the device.
  const std::string one_iteration = " --set workload.iterations=1 --set workload.warmup=0";
  const std::vector<std::string> commands = {
      "run --quiet",
      "run --quiet --format json",
      "run --quiet --format csv",
      "sweep " + src + "/scenarios/example.yaml --quiet --format csv",
      "validate " + scenario + " --quiet",
      "plan " + scenario + " --quiet",
      "plan " + scenario + " --quiet --stats",
      "trace stats " + scenario + " --quiet" + one_iteration,
      "trace gen " + scenario + " --quiet --out " + ws.path("t.bin") + one_iteration,
      "hw list",
      "hw show dgx-h100",
      "collective allreduce --preset dgx-h100 --nodes 2 -b 8 -e 1M -f 4",
      "calibrate --points " + points + " --quiet",
      "compare " + golden + " " + golden + " --quiet",
      "baseline " + scenario + " --quiet --out " + ws.path("golden"),
      "size " + src + "/scenarios/example.yaml --fit --max-nodes 2 --quiet",
      "trace import " + src + "/tests/fuzz/fixtures/trace.csv --quiet --out " + ws.path("i.bin"),
      "trace fit " + target + " --scenario " + scenario + " --classes 1 --quiet",
      "calibrate --kernels " + src +
          "/tests/data/kernels/fbgemm_pr1244_nbit_device_amd.log --preset dgx-a100 --quiet",
  };
  for (const std::string& c : commands) expect_output_failure(c);
}

TEST(StandardStreams, AWholeReportStillExitsZero) {
  const testing::Result r = run("hw show dgx-h100");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("dgx-h100"), std::string::npos);
}

TEST(StandardStreams, AnEarlierFailureKeepsItsOwnExitCode) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this system";
  // Bad input is exit 2 whether or not standard output could be written.
  const testing::Result r = run("validate no-such-scenario.yaml > /dev/full");
  EXPECT_EQ(r.code, 2) << r.err;
}

TEST(StandardStreams, AFailingStandardErrorIsNotSuccessEither) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this system";
  // -v logs progress to standard error; with it on /dev/full the run cannot say what it did.
  const int status =
      std::system((std::string(SHARDSIM_BINARY) + " validate " + SHARDSIM_SOURCE_DIR +
                   "/scenarios/default.yaml -v > /dev/null 2> /dev/full")
                      .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);
}

}  // namespace
}  // namespace shardsim
