// Files written to "<name>.tmp.<pid>" and renamed into place (io/atomic_files.hpp).
#include "shardsim/io/atomic_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "shardsim/core/error.hpp"

namespace shardsim {

namespace {

namespace fs = std::filesystem;

void remove_quietly(const fs::path& p) {
  std::error_code ec;
  fs::remove(p, ec);
}

}  // namespace

void write_files_atomically(const std::string& dir, std::span<const FileContent> files, bool force,
                            const std::string& key) {
  auto fail = [&](std::string problem, std::string hint = {}) {
    throw InputError(SourceLocation{dir}, key, std::move(problem), std::move(hint));
  };
  const fs::path root(dir);
  std::error_code ec;

  const fs::file_status root_status = fs::status(root, ec);
  if (fs::exists(root_status) && !fs::is_directory(root_status)) {
    fail("exists and is not a directory", fmt::format("choose another {} path", key));
  }
  for (const FileContent& f : files) {
    const fs::file_status st = fs::symlink_status(root / f.name, ec);
    if (!fs::exists(st)) continue;
    if (fs::is_directory(st)) {
      fail(f.name + " already exists and is a directory",
           fmt::format("remove it or choose another {}", key));
    }
    if (!force) fail(f.name + " already exists", "pass --force to overwrite");
  }

  fs::create_directories(root, ec);
  if (ec) fail("cannot create the directory: " + ec.message());

  const std::string tmp_suffix = fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  std::vector<fs::path> pending;  // temporaries written and not yet renamed
  auto abandon = [&]() {
    for (const fs::path& p : pending) remove_quietly(p);
  };
  for (const FileContent& f : files) {
    const fs::path tmp = root / (f.name + tmp_suffix);
    pending.push_back(tmp);
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    os << f.content;
    os.close();
    if (!os) {
      abandon();
      fail("cannot write " + tmp.filename().string());
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    fs::rename(pending[i], root / files[i].name, ec);
    if (ec) {
      const std::string problem =
          fmt::format("cannot rename {} to {}: {}", pending[i].filename().string(), files[i].name,
                      ec.message());
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(i));
      abandon();
      fail(problem);
    }
  }
}

}  // namespace shardsim
