// An output set swapped in as a whole, and the writers' fault hook (src/io/output_set_swap.hpp).
#include "io/output_set_swap.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/core/fault_injection.hpp"
#include "shardsim/io/stale_temporaries.hpp"

namespace shardsim {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxLinkedEntries = 100000;
constexpr unsigned kRenameExchange = 1u << 1;  // RENAME_EXCHANGE of <linux/fs.h>

bool exchange_paths(const fs::path& a, const fs::path& b) {
#if defined(__linux__) && defined(SYS_renameat2)
  return ::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), kRenameExchange) == 0;
#else
  (void)a, (void)b;
  return false;
#endif
}

// Hard links of what `from` holds, but the names in `skip` and dead temporaries, into `to`
// (which exists); directories are made anew with their permissions and filled the same way.
bool link_tree(const fs::path& from, const fs::path& to, const std::set<std::string>& skip,
               std::size_t& entries) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(from, ec)) {
    const std::string name = e.path().filename().string();
    if (skip.count(name) > 0 || is_dead_temporary(name)) continue;
    if (++entries > kMaxLinkedEntries) return false;
    const fs::file_status st = e.symlink_status(ec);
    if (ec) return false;
    if (fs::is_directory(st)) {
      if (!fs::create_directory(to / name, ec) || ec) return false;
      fs::permissions(to / name, st.permissions(), ec);
      if (ec || !link_tree(e.path(), to / name, {}, entries)) return false;
    } else if (::link(e.path().c_str(), (to / name).c_str()) != 0) {
      return false;  // on Linux link() links a symbolic link itself, not what it points to
    }
  }
  return !ec;
}

// Whether the working directory is `root` or inside it: swapped out, it would be the removed one.
bool holds_working_directory(const fs::path& root) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return true;
  const fs::path rel = cwd.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

bool swap_in_output_set(const fs::path& dir, std::span<const FileContent> files,
                        const std::string& key) {
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec || root == root.root_path() || holds_working_directory(root)) return false;
  const fs::path staging = temporary_path_for(root.string());
  fs::remove_all(staging, ec);  // a leftover of an earlier process with our pid
  if (!fs::create_directory(staging, ec) || ec) return false;
  auto abandon = [&] {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
  };
  fs::permissions(staging, fs::status(root, ec).permissions(), ec);
  std::set<std::string> names;
  for (const FileContent& f : files) names.insert(f.name);
  std::size_t entries = 0;
  if (ec || !link_tree(root, staging, names, entries)) {
    abandon();
    return false;
  }
  PendingTemporary staging_guard(staging.string(), true);
  std::vector<std::unique_ptr<PendingTemporary>> guards;
  for (const FileContent& f : files) {
    const fs::path p = staging / f.name;
    guards.push_back(std::make_unique<PendingTemporary>(p.string()));
    errno = 0;
    std::ofstream os(p, std::ios::binary | std::ios::trunc);
    os.write(f.content.data(), static_cast<std::streamsize>(f.content.size()));
    os.close();
    if (!os) {
      const std::string why = errno != 0 ? std::strerror(errno) : "the write failed";
      abandon();
      throw InputError(SourceLocation{dir.string()}, key,
                       fmt::format("cannot write {}: {}", f.name, why),
                       "check the free space and permissions of the output folder");
    }
  }
  output_rename_step();
  if (!exchange_paths(staging, root)) {
    abandon();
    return false;
  }
  output_rename_step();  // the new set is in place; the earlier one waits to be removed
  abandon();
  return true;
}

namespace {

struct RenameFault {
  int signal = 0;  // 0: none
  long at = 0;
};

RenameFault rename_fault_from_environment() {
  const std::optional<InjectedFault> f = injected_fault();
  if (!f) return {};
  if (f->kind == "kill_at_output_rename") return {SIGKILL, f->at};
  if (f->kind == "term_at_output_rename") return {SIGTERM, f->at};
  return {};
}

std::atomic<long> rename_steps{0};

}  // namespace

void output_rename_step() {
  static const RenameFault fault = rename_fault_from_environment();
  if (fault.signal == 0) return;
  if (++rename_steps == fault.at) ::raise(fault.signal);
}

}  // namespace shardsim
