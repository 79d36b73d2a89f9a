// A sweep's output set replaces an earlier one as a whole (issue 57, items 6 and 7;
// docs/robustness.md "Outputs"): killed (SIGKILL or SIGTERM) at each step of its final writes
// that moves files into place, `--out` holds either the earlier complete set or the new complete
// one, never a mix; and the next run leaves no temporary of the dead process at any level.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "../support/cli_run.hpp"
#include "../support/point_files.hpp"

namespace shardsim {
namespace {

namespace output_set_test {

namespace fs = std::filesystem;
using shardsim::testing::run;
using shardsim::testing::run_with_fault;
using shardsim::testing::Workspace;

// The example's sweep (3 points x 2 planners: 15 output files), made quick.
const std::string kSweep = "sweep " + std::string(SHARDSIM_SOURCE_DIR) +
                           "/scenarios/example.yaml --set model.generate.count=4"
                           " --set workload.iterations=1 --set workload.warmup=0 --format json";
// Another sweep of the same shape whose every output differs.
const std::string kOther = kSweep + " --set workload.batch_per_gpu=2048";

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

// Paths under `dir`, and beside it, that are a process's temporaries ("*.tmp.<pid>").
std::vector<std::string> temporaries(const fs::path& dir) {
  std::vector<std::string> found;
  auto check = [&](const fs::path& p) {
    if (p.filename().string().find(".tmp.") != std::string::npos) found.push_back(p.string());
  };
  for (const auto& e : fs::recursive_directory_iterator(dir)) check(e.path());
  for (const auto& e : fs::directory_iterator(dir.parent_path())) check(e.path());
  return found;
}

// `fault` at step 1, 2, ... of the new sweep's writes over a complete earlier output (written by
// `before`), until the sweep gets past its last step; after each kill the next run (`again`)
// cleans up and writes the new set.
void check_each_step(const std::string& before, const std::string& after, const std::string& again,
                     const std::string& fault) {
  Workspace ws("output_set");
  const std::string old_dir = ws.path("old");
  const std::string new_dir = ws.path("new");
  ASSERT_EQ(run(before + " --out " + old_dir).code, 0);
  ASSERT_EQ(run(kOther + " --out " + new_dir).code, 0);
  const auto old_set = outputs(old_dir);
  const auto new_set = outputs(new_dir);
  ASSERT_EQ(old_set.size(), 15u);
  ASSERT_EQ(new_set.size(), old_set.size());
  for (const auto& [name, bytes] : old_set) ASSERT_NE(bytes, new_set.at(name)) << name;

  for (int step = 1; step < 100; ++step) {
    SCOPED_TRACE(fault + ":" + std::to_string(step));
    const fs::path cut = ws.path("cut" + std::to_string(step));
    fs::copy(old_dir, cut, fs::copy_options::recursive);
    const auto r =
        run_with_fault(fault + ":" + std::to_string(step), after + " --out " + cut.string());
    const auto now = outputs(cut);
    if (r.code == 0) {  // past the last step: the new set, whole, and nothing left behind
      EXPECT_EQ(now, new_set);
      EXPECT_TRUE(temporaries(cut).empty());
      EXPECT_GE(step, 2) << "the fault never fired";
      return;
    }
    EXPECT_TRUE(now == old_set || now == new_set)
        << "a mix: " << now.size() << " files, neither the earlier set nor the new one";
    const auto next = run(again + " --out " + cut.string());
    ASSERT_EQ(next.code, 0) << next.err;
    EXPECT_EQ(outputs(cut), new_set);
    const auto left = temporaries(cut);
    EXPECT_TRUE(left.empty()) << left.size() << " temporaries left, e.g. " << left.front();
  }
  FAIL() << "the sweep never got past its last step";
}

TEST(OutputSetAtomic, AKillAtEachRenameOverAForcedOutputLeavesTheOldOrTheNewSet) {
  check_each_step(kSweep, kOther + " --force", kOther + " --force", "kill_at_output_rename");
}

TEST(OutputSetAtomic, AKillAtEachRenameOfAResumeLeavesTheOldOrTheNewSet) {
  // The resumed sweep's inputs differ from the earlier one's: it simulates every point and
  // replaces the whole set (a resumed sweep of the same inputs writes the same bytes).
  check_each_step(kSweep, kOther + " --resume", kOther + " --resume", "kill_at_output_rename");
}

TEST(OutputSetAtomic, ASigtermAtEachRenameLeavesTheOldOrTheNewSet) {
  check_each_step(kSweep, kOther + " --force", kOther + " --force", "term_at_output_rename");
}

// The exchange takes everything else DIR holds into the new DIR: the checkpoints, a user's file,
// a folder of them, a symbolic link.
TEST(OutputSetAtomic, AReplacedSetKeepsWhatElseTheFolderHolds) {
  Workspace ws("output_set");
  const fs::path dir = ws.path("out");
  ASSERT_EQ(run(kSweep + " --out " + dir.string()).code, 0);
  std::ofstream(dir / "notes.txt") << "mine\n";
  fs::create_directories(dir / "extra" / "deeper");
  std::ofstream(dir / "extra" / "deeper" / "plot.png") << "png";
  fs::create_symlink("notes.txt", dir / "link");
  const std::size_t points = shardsim::testing::files_in(dir / "points", ".point");
  ASSERT_EQ(run(kOther + " --out " + dir.string() + " --force").code, 0);
  EXPECT_EQ(shardsim::testing::read_file(dir / "notes.txt"), "mine\n");
  EXPECT_EQ(shardsim::testing::read_file(dir / "extra" / "deeper" / "plot.png"), "png");
  EXPECT_EQ(fs::read_symlink(dir / "link"), "notes.txt");
  EXPECT_EQ(shardsim::testing::files_in(dir / "points", ".point"), 2 * points);
  EXPECT_TRUE(temporaries(dir).empty());
}

}  // namespace output_set_test

}  // namespace
}  // namespace shardsim
