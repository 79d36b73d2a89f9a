#pragma once
// Runs the `shardsim` binary from tests: exit code, stdout, and stderr through a scratch file.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "scratch.hpp"

namespace shardsim::testing {

struct Result {
  int code = -1;
  std::string out;
  std::string err;  // what the binary wrote on stderr
};

// Runs the binary with `args`; stdout and stderr are captured (stderr through a scratch file),
// and stderr is also copied to `*err` when given.
inline Result run(const std::string& args, std::string* err = nullptr) {
  const std::string err_file = unique_temp("shardsim_stderr") + ".txt";
  const std::string cmd = std::string(SHARDSIM_BINARY) + " " + args + " 2>" + err_file;
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  {
    std::ifstream in(err_file);
    r.err.assign(std::istreambuf_iterator<char>(in), {});
  }
  if (err) *err = r.err;
  std::filesystem::remove(err_file);
  return r;
}

// A scratch folder of its own (removed with the object) for a test's input and output files.
class Workspace {
 public:
  explicit Workspace(const std::string& stem) : dir(unique_temp(stem)) {
    std::filesystem::create_directories(dir);
  }
  ~Workspace() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // Writes `text` to `name` in the folder (bytes as given) and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }

  const std::filesystem::path dir;
};

// The bytes of a file ("" when it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = unique_temp("shardsim_cli") + "_" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace shardsim::testing
