#pragma once
// Scratch files and folders of the tests, unique to a test process and removed when it ends.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace shardsim::testing {

// The scratch paths handed out in this test process. When it ends normally, everything in the
// temporary folder named by one of them, alone or with a suffix that does not start with a digit
// (".txt", ".yaml", "_points"), is removed, so the suite leaves nothing behind; a test that
// crashes leaves its files for a look.
class ScratchPaths {
 public:
  static ScratchPaths& instance() {
    static ScratchPaths paths;
    return paths;
  }
  void add(const std::filesystem::path& path) {
    std::lock_guard lock(m_);
    paths_.push_back(path.lexically_normal());
  }
  ~ScratchPaths() {
    // A forked child that exits through exit() must not remove its parent's files.
    if (paths_.empty() || ::getpid() != owner_) return;
    std::error_code ec;
    std::vector<std::filesystem::path> doomed;
    std::vector<std::filesystem::path> folders;
    for (const auto& p : paths_) folders.push_back(p.parent_path());
    std::sort(folders.begin(), folders.end());
    folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
    for (const auto& folder : folders) {
      for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end;
           it.increment(ec)) {
        const std::string name = it->path().filename().string();
        for (const auto& p : paths_) {
          const std::string base = p.filename().string();
          if (p.parent_path() == folder && name.compare(0, base.size(), base) == 0 &&
              (name.size() == base.size() ||
               std::isdigit(static_cast<unsigned char>(name[base.size()])) == 0)) {
            doomed.push_back(it->path());
            break;
          }
        }
      }
    }
    for (const auto& d : doomed) std::filesystem::remove_all(d, ec);
  }

 private:
  ScratchPaths() = default;
  const pid_t owner_ = ::getpid();
  std::mutex m_;
  std::vector<std::filesystem::path> paths_;
};

// A scratch path unique to this test process and call: ctest runs the tests of this file in
// parallel processes, so a shared file name would let one test read another's stderr.
// Process ids come back, and a crashed run may have left its files, so a name already taken is
// skipped. A caller may add a suffix to the name (`write_temp`: "_<name>"; `run`: ".txt"); what
// starts with the name is removed when the process ends (ScratchPaths).
inline std::string unique_temp(const std::string& stem) {
  static std::atomic<int> counter = 0;
  for (;;) {
    std::string path = ::testing::TempDir() + "/" + stem + "_" + std::to_string(::getpid()) + "_" +
                       std::to_string(counter++);
    if (!std::filesystem::exists(path) && !std::filesystem::exists(path + ".txt")) {
      ScratchPaths::instance().add(path);
      return path;
    }
  }
}

}  // namespace shardsim::testing
