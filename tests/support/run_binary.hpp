#pragma once
// Runs the `shardsim` binary for end-to-end tests: stdout captured, stderr to a file.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace shardsim::testing {

struct BinaryResult {
  int code = -1;
  std::string out;
  std::string err;
};

// A scratch path unique to this test process and call (ctest runs tests in parallel processes).
inline std::string unique_temp_path(const std::string& stem) {
  static int counter = 0;
  return ::testing::TempDir() + "/" + stem + "_" + std::to_string(::getpid()) + "_" +
         std::to_string(counter++);
}

inline BinaryResult run_shardsim(const std::string& args) {
  const std::string err_file = unique_temp_path("shardsim_stderr") + ".txt";
  const std::string cmd = std::string(SHARDSIM_BINARY) + " " + args + " 2>" + err_file;
  BinaryResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  r.err.assign(std::istreambuf_iterator<char>(in), {});
  std::filesystem::remove(err_file);
  return r;
}

}  // namespace shardsim::testing
