// Checking the standard streams at the end of a command (core/standard_streams.hpp).
#include "shardsim/core/standard_streams.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"

namespace shardsim {

int finish_standard_streams(int exit_code) {
  // std::cout is synchronised with stdio (never unsynced here): its writes are in stdout's
  // buffer, and a failed one has set stdout's error flag or std::cout's badbit.
  errno = 0;
  std::cout.flush();
  bool out_failed = !std::cout.good();
  int error = errno;
  if (std::fflush(stdout) != 0) {
    out_failed = true;
    error = errno;
  }
  if (std::ferror(stdout) != 0) out_failed = true;
  // Some devices and file systems report a failed write only when the file is closed.
  if (std::fclose(stdout) != 0) {
    if (!out_failed) error = errno;
    out_failed = true;
  }
  if (out_failed) {
    log_error(
        "could not write to standard output: {}; what was printed is incomplete (hint: free space "
        "on the target, or write the results with --out DIR, whose files are written whole or "
        "not at all)",
        error != 0 ? std::string(std::strerror(error))
                   : std::string("an earlier write failed (a full disk or a failing device)"));
  }
  std::cerr.flush();
  const bool err_failed = std::fflush(stderr) != 0 || std::ferror(stderr) != 0 || !std::cerr.good();
  if ((out_failed || err_failed) && exit_code == 0) {
    return static_cast<int>(ExitCode::output_failed);
  }
  return exit_code;
}

}  // namespace shardsim
