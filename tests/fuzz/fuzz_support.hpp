#pragma once
// Shared by the libFuzzer targets (docs/robustness.md "Fuzzing"). A target feeds its input to a
// loader; the loader must answer with a result or an InputError / DoesNotFitError. Any other
// exception escapes the target, and libFuzzer reports it as a crash ("deadly signal" after
// std::terminate), as it does for sanitizer findings and time-outs.
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"

namespace shardsim::fuzz {

// The folder of small valid files the fuzzed inputs may refer to by relative path
// (tests/fuzz/fixtures: a preset, a plan, traces).
inline std::string fixtures_dir() {
  return std::string(SHARDSIM_SOURCE_DIR) + "/tests/fuzz/fixtures";
}

inline void quiet_once() {
  static const bool done = [] {
    setup_logging(Verbosity::quiet);
    spdlog::set_level(spdlog::level::off);
    return true;
  }();
  (void)done;
}

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A broken invariant: abort, so libFuzzer keeps the input as a crash.
[[noreturn]] inline void invariant_failed(const char* what) {
  std::fprintf(stderr, "fuzz invariant failed: %s\n", what);
  std::abort();
}

// Runs `body`; the two errors a user may see are fine, anything else escapes. An InputError
// must name the file it is about (DESIGN.md §3: "a message that names the file, line and key").
template <class F>
void expect_clean(F&& body) {
  try {
    body();
  } catch (const InputError& e) {
    if (e.where().file.empty()) {
      std::fprintf(stderr, "%s\n", e.what());
      invariant_failed("an InputError that names no file");
    }
  } catch (const DoesNotFitError&) {
  }
}

// A scratch file of this fuzzing process, <temporary folder>/<stem>_<pid><suffix>, removed
// when the process ends normally (kept after a crash, for a look).
class ScratchFile {
 public:
  ScratchFile(const std::string& stem, const std::string& suffix)
      : path((std::filesystem::temp_directory_path() /
              (stem + "_" + std::to_string(::getpid()) + suffix))
                 .string()) {}
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string path;
};

}  // namespace shardsim::fuzz
