// The one writer of every output (io/atomic_files.hpp): refusals before writing, temporaries
// removed on failure, and on SIGTERM / SIGINT (in a forked child that dies of the signal).
#include "shardsim/io/atomic_files.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "shardsim/core/error.hpp"

namespace shardsim {
namespace {

namespace fs = std::filesystem;

class AtomicFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("shardsim_atomic_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::set<std::string> listing(const fs::path& dir) const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
    return names;
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void write(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
  }

  fs::path root_;
};

TEST_F(AtomicFiles, OneFileIsWrittenThroughATemporaryAndRenamed) {
  const fs::path out = root_ / "plan.yaml";
  write_file_atomically(out.string(), "abc", false, "--out");
  EXPECT_EQ(read(out), "abc");
  EXPECT_EQ(listing(root_), std::set<std::string>{"plan.yaml"});
  // The temporary is "<path>.tmp.<pid>" in the same folder (so the rename stays on one disk).
  EXPECT_EQ(temporary_path_for(out.string()), out.string() + ".tmp." + std::to_string(::getpid()));
}

TEST_F(AtomicFiles, RefusalsComeFirstAndChangeNothing) {
  const fs::path out = root_ / "plan.yaml";
  write(out, "precious");
  try {
    write_file_atomically(out.string(), "new", false, "--out");
    ADD_FAILURE() << "an existing file needs --force";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "--out");
    EXPECT_EQ(e.where().file, out.string());
    EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos);
  }
  EXPECT_EQ(read(out), "precious");
  write_file_atomically(out.string(), "new", true, "--out");
  EXPECT_EQ(read(out), "new");
  // A directory is never replaced, even with force; a missing folder is not created.
  fs::create_directory(root_ / "dir");
  EXPECT_THROW(write_file_atomically((root_ / "dir").string(), "x", true, "--out"), InputError);
  EXPECT_THROW(write_file_atomically((root_ / "no" / "such.yaml").string(), "x", true, "--out"),
               InputError);
  EXPECT_EQ(listing(root_), (std::set<std::string>{"dir", "plan.yaml"}));
}

TEST_F(AtomicFiles, AWriterThatFailsLeavesNothing) {
  const fs::path out = root_ / "trace.bin";
  write(out, "old");
  for (const bool exists : {true, false}) {
    if (!exists) fs::remove(out);
    EXPECT_THROW(write_file_atomically(out.string(), true, "--out",
                                       [](const std::string& tmp) {
                                         write(tmp, "half a fi");
                                         throw std::runtime_error("disk full");
                                       }),
                 std::runtime_error);
    EXPECT_EQ(listing(root_),
              exists ? std::set<std::string>{"trace.bin"} : std::set<std::string>{});
    if (exists) {
      EXPECT_EQ(read(out), "old");
    }
  }
}

TEST_F(AtomicFiles, ANewDirectoryAppearsWholeFromAStagingSibling) {
  const fs::path dir = root_ / "a" / "out";
  const std::vector<FileContent> files{{"report.json", "{}"}, {"summary.csv", "x\n"}};
  write_files_atomically(dir.string() + "/", files, false, "--out");  // a trailing '/' is fine
  EXPECT_EQ(listing(root_ / "a"), std::set<std::string>{"out"});      // no staging left behind
  EXPECT_EQ(listing(dir), (std::set<std::string>{"report.json", "summary.csv"}));
  EXPECT_EQ(read(dir / "summary.csv"), "x\n");
  // Into the existing directory: per file, refused without force before anything is written.
  const std::vector<FileContent> more{{"new.csv", "n"}, {"summary.csv", "y\n"}};
  EXPECT_THROW(write_files_atomically(dir.string(), more, false, "--out"), InputError);
  EXPECT_EQ(listing(dir), (std::set<std::string>{"report.json", "summary.csv"}));
  const std::vector<std::string> names{"new.csv", "summary.csv"};
  EXPECT_THROW(check_files_writable(dir.string(), names, false, "--out"), InputError);
  EXPECT_NO_THROW(check_files_writable(dir.string(), names, true, "--out"));
  write_files_atomically(dir.string(), more, true, "--out");
  EXPECT_EQ(listing(dir), (std::set<std::string>{"new.csv", "report.json", "summary.csv"}));
  EXPECT_EQ(read(dir / "summary.csv"), "y\n");
}

// Runs `child` in a forked process that then raises `sig`; returns the wait status.
template <class F>
int in_child_killed_by(int sig, F&& child) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    child();
    ::raise(sig);
    ::_exit(0);  // not reached when the signal kills
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST_F(AtomicFiles, ASignalRemovesPendingTemporariesAndStillKills) {
  const fs::path tmp = root_ / "trace.bin.tmp.1";
  const fs::path staging = root_ / "out.tmp.1";
  const fs::path kept = root_ / "kept.tmp.1";
  for (const int sig : {SIGTERM, SIGINT}) {
    const int status = in_child_killed_by(sig, [&] {
      write(tmp, "half");
      fs::create_directory(staging);
      write(staging / "report.json", "{");
      write(kept, "renamed already");
      // Leaked on purpose: the child dies with them registered.
      new PendingTemporary(tmp.string());
      new PendingTemporary(staging.string(), true);
      new PendingTemporary((staging / "report.json").string());
      auto* released = new PendingTemporary(kept.string());
      released->release();
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child must die of the signal, status " << status;
    EXPECT_EQ(WTERMSIG(status), sig);
    // The temporaries are gone; a released path is not touched.
    EXPECT_EQ(listing(root_), std::set<std::string>{"kept.tmp.1"});
    fs::remove(kept);
  }
}

}  // namespace
}  // namespace shardsim
