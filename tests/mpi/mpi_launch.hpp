#pragma once
// Runs `shardsim` under mpirun from the tests of tests/mpi/ (built only when CMake finds MPI).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "../support/cli_run.hpp"

namespace shardsim::testing {

// Runs `shardsim ARGS` as `ranks` MPI ranks (oversubscribed: the ranks may outnumber the cores),
// with SHARDSIM_FAULT_INJECT=`fault` when given.
inline Result run_mpi(int ranks, const std::string& args, const std::string& fault = "") {
  // Open MPI refuses root unless told (CI runs as root in a container).
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  // Containers often forbid the cross-memory attach of Open MPI's shared-memory transport.
  ::setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1);
  // When a rank dies, Open MPI sends the others SIGTERM and, 1 s later by default, SIGKILL
  // (odls_base_sigkill_timeout). Rank 0 logs which runs were running between the two; on a
  // loaded CI machine with the ranks oversubscribed it was not always scheduled within the
  // second (1 failure in 12 runs of MpiSweep.AKilledRank* beside two busy loops; 0 in 15 with
  // 10 s). The tests that kill a rank give it 10 s, as a user can (docs/distributed.md). The
  // others keep the default: Open MPI 4.1's mpirun waits the whole timeout, twice, whenever a
  // rank exits non-zero, even after every rank has gone (20 s with 10 s; 2 s with 1 s), and
  // only a killed rank needs the grace. A timeout set in the environment is kept for all.
  static const bool timeout_given = std::getenv("OMPI_MCA_odls_base_sigkill_timeout") != nullptr;
  if (!timeout_given) {
    if (fault.rfind("kill_rank", 0) == 0) {
      ::setenv("OMPI_MCA_odls_base_sigkill_timeout", "10", 1);
    } else {
      ::unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
    }
  }
  // The sanitizer build (SANITIZE=1 ./scripts/test.sh): a precaution (not tried here) against
  // LeakSanitizer reporting what Open MPI's libraries leave allocated at exit; every other
  // check stays on.
  static const std::string asan = [] {
    const char* v = std::getenv("ASAN_OPTIONS");
    return (v != nullptr && *v != '\0' ? std::string(v) + ":" : std::string()) + "detect_leaks=0";
  }();
  ::setenv("ASAN_OPTIONS", asan.c_str(), 1);
  if (!fault.empty()) ::setenv("SHARDSIM_FAULT_INJECT", fault.c_str(), 1);
  const std::string err_file = unique_temp("shardsim_mpi_stderr") + ".txt";
  const std::string cmd = std::string(SHARDSIM_MPIEXEC) + " --oversubscribe -n " +
                          std::to_string(ranks) + " " + SHARDSIM_BINARY + " " + args + " 2>" +
                          err_file;
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p != nullptr) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
    const int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  ::unsetenv("SHARDSIM_FAULT_INJECT");
  r.err = read_file(err_file);
  std::filesystem::remove(err_file);
  return r;
}

// Every file under `dir` (the checkpoints under points/ included), by relative path.
inline std::map<std::string, std::string> files_under(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) {
      files[std::filesystem::relative(e.path(), dir).string()] = read_file(e.path());
    }
  }
  return files;
}

}  // namespace shardsim::testing
