// Removing dead writers' temporaries (io/stale_temporaries.hpp).
#include "shardsim/io/stale_temporaries.hpp"

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

namespace shardsim {

namespace fs = std::filesystem;

bool is_dead_temporary(const std::string& name) {
  constexpr std::string_view kMarker = ".tmp.";
  const auto at = name.rfind(kMarker);
  if (at == std::string::npos || at + kMarker.size() >= name.size()) return false;
  const std::string digits = name.substr(at + kMarker.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) {
    return false;
  }
  const long pid = std::strtol(digits.c_str(), nullptr, 10);
  if (pid <= 0) return true;
  // EPERM: the process runs under another user; it is alive.
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

std::size_t remove_dead_temporaries(const fs::path& out_dir) {
  std::error_code ec;
  fs::path root = out_dir.lexically_normal();
  if (root.filename().empty() && root.has_parent_path()) root = root.parent_path();
  std::vector<fs::path> dead;
  const fs::path beside = root.has_parent_path() ? root.parent_path() : fs::path(".");
  const std::string prefix = root.filename().string() + ".tmp.";
  for (const auto& e : fs::directory_iterator(beside, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && is_dead_temporary(name)) dead.push_back(e.path());
  }
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!is_dead_temporary(it->path().filename().string())) continue;
    dead.push_back(it->path());
    it.disable_recursion_pending();  // removed whole below
  }
  std::size_t removed = 0;
  for (const fs::path& p : dead) {
    std::error_code gone;
    if (fs::remove_all(p, gone) > 0 && !gone) ++removed;
  }
  return removed;
}

}  // namespace shardsim
