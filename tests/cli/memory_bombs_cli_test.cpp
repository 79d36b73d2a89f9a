// Inputs that are refused before they cost memory (issue 57, items 1 and 2), end to end: exit 2
// with the message at the key. Each refused run's peak resident memory is measured (wait4's
// rusage of the one child, which counts the children it waited for) and must stay below twice
// --max-memory or 200 MB, whichever is larger (issue 57's bound); loading them would take GBs.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "io/scenario_test_helpers.hpp"
#include "support/cli_run.hpp"

namespace shardsim::memory_bombs_cli_test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Issue 57's bound; under ASan its shadow memory and redzones double what a run holds (and its
// quarantine of freed blocks is kept small below).
constexpr double kPeakRssBoundBytes = kAddressSanitizer ? 400e6 : 200e6;

struct Measured {
  int code = -1;
  std::string err;
  double peak_rss_bytes = 0;
};

// Runs `shardsim args` as the only child of a fresh fork, so that its peak resident memory is its
// own and not that of an earlier test's child.
Measured run_measured(const std::string& args) {
  const testing::Workspace ws("shardsim_bombs_err");
  const std::string err_file = ws.path("stderr.txt");
  const std::string cmd = std::string(SHARDSIM_BINARY) + " " + args + " >/dev/null 2>" + err_file;
  std::string asan = "quarantine_size_mb=16";
  if (const char* given = std::getenv("ASAN_OPTIONS")) asan = std::string(given) + ":" + asan;
  Measured m;
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("ASAN_OPTIONS", asan.c_str(), 1);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid < 0) return m;
  int status = 0;
  rusage u{};
  if (wait4(pid, &status, 0, &u) != pid) return m;
  m.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  m.err = testing::read_file(err_file);
  m.peak_rss_bytes = static_cast<double>(u.ru_maxrss) * 1024;  // Linux: kilobytes
  return m;
}

TEST(MemoryBombs, AnAnchoredLongStringAliasedThousandsOfTimesIsRefusedAtOnce) {
  // The repro: a 100 KB name anchored once and aliased 3,000 times as a sweep axis
  // (300 MB of text once expanded, from a 110 KB file).
  const testing::Workspace ws("shardsim_bombs");
  std::string text = test::tiny_with(1, "name: &s \"" + std::string(100000, 'x') + "\"");
  text += "sweep:\n  name: [";
  for (int i = 0; i < 3000; ++i) text += i ? ",*s" : "*s";
  text += "]\n";
  const std::string file = ws.write("sb.yaml", text);
  const Measured r = run_measured("validate " + file + " --max-memory 100M");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("aliases expand the document's text from"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sb.yaml:"), std::string::npos) << r.err;
  EXPECT_LT(r.peak_rss_bytes, kPeakRssBoundBytes);
}

// The tiny scenario with `count` tables listed at model.tables (line 7 on), one line each.
std::string listed_tables(int count) {
  std::string tables;
  tables.reserve(static_cast<std::size_t>(count) * 56);
  for (int i = 0; i < count; ++i) {
    tables += "    - {name: t" + std::to_string(i) + ", rows: 1000, dim: 16, pooling: 2}\n";
  }
  tables.pop_back();
  std::string text = test::tiny_with(7, tables);
  // Lines 8-11 (table b) are left out: the listed tables are the whole list.
  const std::string b = "    - name: b\n      rows: 5000\n      dim: 32\n      pooling: 4\n";
  text.erase(text.find(b), b.size());
  return text;
}

TEST(MemoryBombs, HalfAMillionListedTablesAreRefusedAtTheListBeforeTheirNodesAreBuilt) {
  // 27 MB of text, 4.5 million YAML nodes once loaded: ~2.3 GB resident before the guard saw the
  // model. Now refused at model.tables from the count of the parser's events.
  const testing::Workspace ws("shardsim_bombs");
  const std::string file = ws.write("many.yaml", listed_tables(500000));
  const Measured r = run_measured("validate " + file + " --max-memory 100M");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("many.yaml:7:5: key 'model.tables': lists 500000 tables: loading the "
                       "scenario would need about 2."),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(--max-memory 100M); YAML nodes: 4.5e+06 x 500 B"), std::string::npos)
      << r.err;
  EXPECT_LT(r.peak_rss_bytes, kPeakRssBoundBytes);
}

TEST(MemoryBombs, AFileLargerThanTheLimitIsRefusedBeforeItIsRead) {
  // 3 MB of listed tables under a 1 MB limit: the text alone is more than the limit.
  const testing::Workspace ws("shardsim_bombs");
  const std::string file = ws.write("many.yaml", listed_tables(60000));
  const Measured r = run_measured("validate " + file + " --max-memory 1M");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("many.yaml: key '--max-memory': the file holds 3.2 MB of text"),
            std::string::npos)
      << r.err;
}

TEST(MemoryBombs, EveryCommandThatLoadsAScenarioRefusesItBeforeLoading) {
  // 60,000 tables (540,000 nodes, ~270 MB to load) under 20M: `run`, `plan` and `validate` install
  // the guard before they load the scenario.
  const testing::Workspace ws("shardsim_bombs");
  const std::string file = ws.write("many.yaml", listed_tables(60000));
  for (const std::string cmd : {"run", "plan", "validate"}) {
    const Measured r = run_measured(cmd + " " + file + " --max-memory 20M");
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("key 'model.tables': lists 60000 tables"), std::string::npos)
        << cmd << ": " << r.err;
  }
}

TEST(MemoryBombs, TwoThousandListedTablesStillValidateUnderTheLimit) {
  // ~1 MB of estimated loading (18,000 nodes), well below 100 MB.
  const testing::Workspace ws("shardsim_bombs");
  const Measured r =
      run_measured("validate " + ws.write("ok.yaml", listed_tables(2000)) + " --max-memory 100M");
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(MemoryBombs, APlanOverTheLimitIsRefusedOnceMadeBeforeItIsSimulated) {
  // hybrid's bound is T x N shards (checked after planning, run/resource_guard.hpp): before
  // planning the guard counts their records alone; with only row_wise allowed the plan is that
  // bound, and its simulation's per-shard arrays, counted once the plan exists, pass a limit just
  // above the first estimate. 202 tables on 64 x 8 GPUs: 103,424 shards, ~14 MB more.
  const testing::Workspace ws("shardsim_plan_guard");
  std::vector<std::string> lines = test::tiny_lines();
  lines[3] = "  nodes: 64";
  lines[11] = "  generate: {count: 200, rows: 100000, dim: 16, pooling: 1}\n" + lines[11];
  lines[16] = "  planner: hybrid\n  options: {schemes: [row_wise]}";
  const std::string text = test::join_lines(lines);
  const std::string file = ws.write("rw.yaml", text);
  const testing::Result v = testing::run("validate " + file + " --format json");
  ASSERT_EQ(v.code, 0) << v.err;
  const std::string key = "\"estimated_memory_bytes\": ";
  const std::size_t at = v.out.find(key);
  ASSERT_NE(at, std::string::npos) << v.out;
  const double before = std::stod(v.out.substr(at + key.size()));
  const auto limit = [](double bytes) { return std::to_string(static_cast<long long>(bytes)); };
  const Measured refused =
      run_measured("run " + file + " --quiet --max-memory " + limit(before + 1e6));
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("plan 'hybrid' and its simulation: 103424 shards"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("rw.yaml"), std::string::npos) << refused.err;
  EXPECT_EQ(run_measured("run " + file + " --quiet --max-memory " + limit(before + 30e6)).code, 0);
}

}  // namespace
}  // namespace shardsim::memory_bombs_cli_test
