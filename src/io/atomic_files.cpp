// Files written to "<name>.tmp.<pid>" and renamed into place, with temporaries removed on
// failure and on SIGINT/SIGTERM/SIGHUP (io/atomic_files.hpp).
#include "shardsim/io/atomic_files.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <system_error>
#include <vector>

#include "io/output_set_swap.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/io/stale_temporaries.hpp"

namespace shardsim {

namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------------ the signal-time registry
// Fixed storage, so that the handler touches no allocator: each slot holds a NUL-terminated path
// and a state (0 free, 1 being filled or cleared, 2 armed). The handler unlinks armed files, then
// removes armed (by then empty) directories, and re-raises the signal with its default action.
constexpr int kSlots = 256;
constexpr std::size_t kPathBytes = 4096;
constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};

struct Slot {
  std::atomic<int> state{0};
  bool directory = false;
  char path[kPathBytes];
};
Slot g_slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

extern "C" void remove_pending_and_reraise(int sig) {
  for (int pass = 0; pass < 2; ++pass) {
    for (Slot& s : g_slots) {
      if (s.state.load(std::memory_order_acquire) != 2 || s.directory != (pass == 1)) continue;
      if (s.directory) {
        ::rmdir(s.path);
      } else {
        ::unlink(s.path);
      }
    }
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      // A signal the parent chose to ignore (nohup: SIGHUP) stays ignored; one with a handler of
      // the embedding program keeps it.
      if (old.sa_handler != SIG_DFL) continue;
      struct sigaction act {};
      act.sa_handler = remove_pending_and_reraise;
      sigemptyset(&act.sa_mask);
      for (int other : kSignals) sigaddset(&act.sa_mask, other);
      act.sa_flags = 0;
      ::sigaction(sig, &act, nullptr);
    }
  });
}

void remove_quietly(const fs::path& p) {
  std::error_code ec;
  fs::remove(p, ec);
}

// `dir` without a trailing separator ("out/" -> "out"), so that "<dir>.tmp.<pid>" is a sibling.
fs::path normalized_dir(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  if (p.filename().empty() && p.has_parent_path()) p = p.parent_path();
  return p;
}

// Writes `content` to `path` (created or truncated); false on any error, with errno's text.
bool write_whole_file(const fs::path& path, const std::string& content, std::string& why) {
  errno = 0;
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os) {
    why = std::strerror(errno != 0 ? errno : EIO);
    return false;
  }
  os.write(content.data(), static_cast<std::streamsize>(content.size()));
  os.close();
  if (!os) {
    why = errno != 0 ? std::strerror(errno) : "the write failed";
    return false;
  }
  return true;
}

}  // namespace

PendingTemporary::PendingTemporary(const std::string& path, bool directory) {
  if (path.size() >= kPathBytes) return;  // unprotected; cleaned up on failure all the same
  install_handlers_once();
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
      continue;
    }
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].directory = directory;
    g_slots[i].state.store(2, std::memory_order_release);
    slot_ = i;
    return;
  }
}

PendingTemporary::~PendingTemporary() {
  release();
}

void PendingTemporary::release() {
  if (slot_ < 0) return;
  g_slots[slot_].state.store(0, std::memory_order_release);
  slot_ = -1;
}

std::string temporary_path_for(const std::string& path) {
  return fmt::format("{}.tmp.{}", path, static_cast<long>(::getpid()));
}

void check_files_writable(const std::string& dir, std::span<const std::string> names, bool force,
                          const std::string& key) {
  auto fail = [&](std::string problem, std::string hint = {}) {
    throw InputError(SourceLocation{dir}, key, std::move(problem), std::move(hint));
  };
  const fs::path root = normalized_dir(dir);
  std::error_code ec;
  const fs::file_status root_status = fs::status(root, ec);
  if (!fs::exists(root_status)) return;
  if (!fs::is_directory(root_status)) {
    fail("exists and is not a directory", fmt::format("choose another {} path", key));
  }
  for (const std::string& name : names) {
    const fs::file_status st = fs::symlink_status(root / name, ec);
    if (!fs::exists(st)) continue;
    if (fs::is_directory(st)) {
      fail(name + " already exists and is a directory",
           fmt::format("remove it or choose another {}", key));
    }
    if (!force) fail(name + " already exists", "pass --force to overwrite");
  }
}

void write_files_atomically(const std::string& dir, std::span<const FileContent> files, bool force,
                            const std::string& key) {
  auto fail = [&](std::string problem, std::string hint = {}) {
    throw InputError(SourceLocation{dir}, key, std::move(problem), std::move(hint));
  };
  std::vector<std::string> names;
  for (const FileContent& f : files) names.push_back(f.name);
  check_files_writable(dir, names, force, key);
  const fs::path root = normalized_dir(dir);
  std::error_code ec;
  const bool root_exists = fs::exists(fs::status(root, ec));

  if (!root_exists) {
    // A new directory: fill a staging sibling, then rename it into place in one step.
    if (root.has_parent_path()) {
      fs::create_directories(root.parent_path(), ec);
      if (ec) fail("cannot create the parent directory: " + ec.message());
    }
    const fs::path staging = temporary_path_for(root.string());
    fs::remove_all(staging, ec);  // a leftover of an earlier process with our pid
    if (!fs::create_directory(staging, ec) || ec) {
      fail("cannot create the directory: " + (ec ? ec.message() : std::string("unknown error")),
           "check the permissions of the parent directory");
    }
    PendingTemporary staging_guard(staging.string(), true);
    std::vector<std::unique_ptr<PendingTemporary>> guards;
    auto abandon = [&] {
      std::error_code ignored;
      fs::remove_all(staging, ignored);
    };
    for (const FileContent& f : files) {
      const fs::path p = staging / f.name;
      guards.push_back(std::make_unique<PendingTemporary>(p.string()));
      std::string why;
      if (!write_whole_file(p, f.content, why)) {
        abandon();
        fail(fmt::format("cannot write {}: {}", f.name, why),
             "check the free space and permissions of the output folder");
      }
    }
    output_rename_step();
    fs::rename(staging, root, ec);
    if (ec) {
      abandon();
      fail(fmt::format("cannot move the finished directory into place: {}", ec.message()));
    }
    return;
  }

  // An existing directory: the new set replaces the earlier one as a whole where the file
  // system can exchange two directories; else file by file below (docs/robustness.md).
  remove_dead_temporaries(root);
  if (swap_in_output_set(root, files, key)) return;
  std::vector<fs::path> pending;  // temporaries written and not yet renamed
  std::vector<std::unique_ptr<PendingTemporary>> guards;
  auto abandon = [&]() {
    for (const fs::path& p : pending) remove_quietly(p);
  };
  for (const FileContent& f : files) {
    const fs::path tmp = temporary_path_for((root / f.name).string());
    pending.push_back(tmp);
    guards.push_back(std::make_unique<PendingTemporary>(tmp.string()));
    std::string why;
    if (!write_whole_file(tmp, f.content, why)) {
      abandon();
      fail(fmt::format("cannot write {}: {}", tmp.filename().string(), why),
           "check the free space and permissions of the output folder");
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    output_rename_step();
    fs::rename(pending[i], root / files[i].name, ec);
    if (ec) {
      const std::string problem =
          fmt::format("cannot rename {} to {}: {}", pending[i].filename().string(), files[i].name,
                      ec.message());
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(i));
      abandon();
      fail(problem);
    }
    guards[i]->release();
  }
}

void check_file_writable(const std::string& path, bool force, const std::string& key) {
  const auto fail = [&](std::string problem, std::string hint = {}) {
    throw InputError(SourceLocation{path}, key, std::move(problem), std::move(hint));
  };
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    fail("is a directory, not a file", "give a file name");
  }
  if (fs::exists(fs::symlink_status(path, ec)) && !force) {
    fail("the file already exists", "pass --force to overwrite it, or choose another name");
  }
  const fs::path target(path);
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) {
    fail(fmt::format("the folder '{}' does not exist", parent.string()), "create it first");
  }
}

void write_file_atomically(const std::string& path, bool force, const std::string& key,
                           const std::function<void(const std::string& temporary)>& write) {
  const auto fail = [&](std::string problem, std::string hint = {}) {
    throw InputError(SourceLocation{path}, key, std::move(problem), std::move(hint));
  };
  check_file_writable(path, force, key);
  std::error_code ec;
  const std::string tmp = temporary_path_for(path);
  PendingTemporary guard(tmp);
  try {
    write(tmp);
  } catch (...) {
    remove_quietly(tmp);
    throw;
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    remove_quietly(tmp);
    fail(fmt::format("cannot move the finished file into place: {}", ec.message()),
         "check the folder's permissions");
  }
}

void write_file_atomically(const std::string& path, const std::string& content, bool force,
                           const std::string& key) {
  write_file_atomically(path, force, key, [&](const std::string& tmp) {
    std::string why;
    if (!write_whole_file(tmp, content, why)) {
      throw InputError(SourceLocation{path}, key, fmt::format("cannot write the file: {}", why),
                       "check the free space and permissions of the output folder");
    }
  });
}

}  // namespace shardsim
