// Every writer of the `shardsim` binary (docs/robustness.md, "Outputs"): `run`/`sweep --out
// DIR`, `plan --out`, `trace gen|import --out`, `baseline --out`. Each refuses to overwrite
// without --force (before it runs: the old file is untouched), overwrites with it, leaves
// nothing behind when a write fails (the file-size limit of `ulimit -f` makes the disk "full"),
// and an interrupted `trace gen` (SIGTERM) leaves neither the file nor its temporary.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "support/cli_run.hpp"

namespace shardsim::outputs_test {
namespace {

namespace fs = std::filesystem;
using testing::run;
using testing::unique_temp;

const char* kScenario = R"(name: small
cluster: {preset: dgx-a100, nodes: 1}
model:
  tables:
    - {name: a, rows: 100000, dim: 32, pooling: 4, alpha: 1.05}
    - {name: b, rows: 2000000, dim: 64, pooling: 2, alpha: 0.9}
  bottom_mlp: [64, 32]
  top_mlp: [64, 1]
workload: {batch_per_gpu: 64, iterations: 2, warmup: 1, seed: 7}
placement: {planner: [table_wise, row_wise]}
)";

struct Workspace : testing::Workspace {
  Workspace() : testing::Workspace("shardsim_outputs") {}
};

std::string read(const fs::path& p) {
  return testing::read_file(p);
}

// Every entry under `dir`, recursively, relative to it.
std::set<std::string> tree(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    names.insert(fs::relative(e.path(), dir).string());
  }
  return names;
}

// One writer: the arguments that write `target` (a file or a directory) in workspace `w`.
struct Writer {
  std::string name;
  std::function<std::string(const Workspace&)> args;
  std::string target;  // relative to the workspace
  bool directory = false;
};

std::vector<Writer> writers() {
  return {
      {"RunOutDir",
       [](const Workspace& w) {
         return "run " + w.write("s.yaml", kScenario) + " --out " + w.path("out");
       },
       "out", true},
      {"SweepOutDir",
       [](const Workspace& w) {
         return "sweep " +
                w.write("s.yaml", std::string(kScenario) + "sweep: {cluster.nodes: [1, 2]}\n") +
                " --jobs 2 --out " + w.path("out");
       },
       "out", true},
      {"PlanOut",
       [](const Workspace& w) {
         return "plan " + w.write("s.yaml", kScenario) + " --planner row_wise --out " +
                w.path("plan.yaml");
       },
       "plan.yaml", false},
      {"TraceGenOut",
       [](const Workspace& w) {
         return "trace gen " + w.write("s.yaml", kScenario) + " --out " + w.path("t.bin");
       },
       "t.bin", false},
      {"TraceImportOut",
       [](const Workspace& w) {
         std::string csv = "table,sample,row\n";
         for (int s = 0; s < 400; ++s)
           csv += "0," + std::to_string(s) + "," + std::to_string(s % 7) + "\n";
         return "trace import " + w.write("t.csv", csv) + " --out " + w.path("t.bin");
       },
       "t.bin", false},
      {"ValidateTablesOut",
       [](const Workspace& w) {
         // Twenty generated tables besides: the list must outgrow the 512-byte write limit.
         std::string s = kScenario;
         s.insert(s.find("  bottom_mlp"),
                  "  generate: {count: 20, rows: 1000, dim: 16, pooling: 2}\n");
         return "validate " + w.write("s.yaml", s) + " --tables-out " + w.path("tables.yaml");
       },
       "tables.yaml", false},
      {"RunTraceOut",
       [](const Workspace& w) {
         return "run " + w.write("s.yaml", kScenario) + " --trace-out " + w.path("t.json");
       },
       "t.json", false},
      {"BaselineOut",
       [](const Workspace& w) {
         return "baseline " + w.write("s.yaml", kScenario) + " --out " + w.path("golden");
       },
       "golden", true},
  };
}

void PrintTo(const Writer& w, std::ostream* os) {
  *os << w.name;
}

class Outputs : public ::testing::TestWithParam<Writer> {};

// The file the test plants in the way, and checks afterwards.
std::string planted(const Writer& wr, const Workspace& w) {
  if (!wr.directory) return w.path(wr.target);
  fs::create_directories(w.path(wr.target));
  const std::string name = wr.name == "BaselineOut" ? "s.json" : "report.json";
  return w.path(wr.target) + "/" + name;
}

TEST_P(Outputs, RefusesToOverwriteWithoutForceThenOverwritesWithIt) {
  const Writer& wr = GetParam();
  const Workspace w;
  const std::string args = wr.args(w) + " --quiet";
  const std::string victim = planted(wr, w);
  std::ofstream(victim) << "precious";
  const testing::Result refused = run(args);
  EXPECT_EQ(refused.code, 2) << args << "\n" << refused.err;
  EXPECT_NE(refused.err.find("exists"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_TRUE(refused.out.empty()) << "refused before running: " << refused.out;
  EXPECT_EQ(read(victim), "precious");
  const testing::Result forced = run(args + " --force");
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_NE(read(victim), "precious");
  for (const std::string& f : tree(w.dir)) {
    EXPECT_EQ(f.find(".tmp."), std::string::npos) << "temporary left behind: " << f;
  }
}

TEST_P(Outputs, AFailedWriteLeavesNoHalfWrittenOutput) {
  const Writer& wr = GetParam();
  const Workspace w;
  const std::string args = wr.args(w) + " --quiet";
  const std::set<std::string> before = tree(w.dir);
  // 1 block (512 bytes for sh's ulimit) of file size: every output here is larger. SIGXFSZ is
  // ignored, so a write past the limit fails with EFBIG instead of killing the process; stderr
  // goes to the pipe, which the limit does not apply to.
  const std::string cmd = "sh -c \"ulimit -f 1; trap '' XFSZ; exec " +
                          std::string(SHARDSIM_BINARY) + " " + args + " 2>&1\"";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_NE(out.find("File too large"), std::string::npos) << out;
  EXPECT_EQ(out.find("internal error"), std::string::npos) << out;
  EXPECT_EQ(tree(w.dir), before) << "nothing may be left of a failed write:\n" << out;
}

INSTANTIATE_TEST_SUITE_P(EveryWriter, Outputs, ::testing::ValuesIn(writers()),
                         [](const ::testing::TestParamInfo<Writer>& info) {
                           return info.param.name;
                         });

TEST(OutputsInterrupted, SigtermDuringTraceGenLeavesNoFileAndNoTemporary) {
  const Workspace w;
  // 8 GPUs x 4096 samples x 40 iterations x 30 lookups: a ~300 MB file, killed long before.
  std::string yaml = kScenario;
  yaml.replace(yaml.find("batch_per_gpu: 64, iterations: 2"), 32,
               "batch_per_gpu: 4096, iterations: 40");
  const std::string scenario = w.write("big.yaml", yaml);
  const std::string out = w.path("t.bin");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl(SHARDSIM_BINARY, SHARDSIM_BINARY, "trace", "gen", scenario.c_str(), "--out",
            out.c_str(), "--quiet", "--set", "model.tables[0].pooling=20",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const std::string tmp = out + ".tmp." + std::to_string(pid);
  bool seen = false;
  int status = 0;
  for (int i = 0; i < 20000 && !seen; ++i) {  // up to 20 s
    if (fs::exists(tmp)) {
      seen = true;
      break;
    }
    if (::waitpid(pid, &status, WNOHANG) == pid) break;  // finished before we looked
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!seen) {
    if (::waitpid(pid, &status, WNOHANG) == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
    GTEST_SKIP() << "the temporary never showed up before the run ended";
  }
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(tree(w.dir), std::set<std::string>{"big.yaml"});
}

}  // namespace
}  // namespace shardsim::outputs_test
