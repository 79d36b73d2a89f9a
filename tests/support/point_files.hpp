#pragma once
// Shared by the resume tests (tests/cli/sweep_resume_test.cpp, size_resume_test.cpp): counting
// the checkpoints an interrupted command left, and running one with an injected fault
// (SHARDSIM_FAULT_INJECT, run/checkpoint_dir.cpp: the process is killed at the fault).
#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/cli_run.hpp"

namespace shardsim::testing {

// Finished checkpoints (`kind` ".point") or temporaries (".tmp.") in `dir` (0 when it is absent).
inline std::size_t files_in(const std::filesystem::path& dir, const std::string& kind) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool temporary = name.find(".tmp.") != std::string::npos;
    if (kind == ".tmp." ? temporary : !temporary && e.path().extension() == kind) ++n;
  }
  return n;
}

// `shardsim args` with SHARDSIM_FAULT_INJECT=`fault` (e.g. "kill_after_point:2").
inline Result run_with_fault(const std::string& fault, const std::string& args) {
  ::setenv("SHARDSIM_FAULT_INJECT", fault.c_str(), 1);
  Result r = run(args);
  ::unsetenv("SHARDSIM_FAULT_INJECT");
  return r;
}

}  // namespace shardsim::testing
