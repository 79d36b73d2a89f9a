#pragma once
// Logging through spdlog, to stderr, so that stdout carries only the report.
#include <chrono>
#include <cstdint>
#include <string>

namespace shardsim {

enum class Verbosity { quiet, normal, verbose };

void setup_logging(Verbosity verbosity);

// Progress for long loops: logs "<what>: done/total (pct%)" at info level at most every
// `interval`, and only once the loop has run longer than `interval`, so short runs stay silent.
class Progress {
 public:
  Progress(std::string what, std::uint64_t total,
           std::chrono::milliseconds interval = std::chrono::milliseconds(2000));
  void advance(std::uint64_t n = 1);
  void finish();

 private:
  std::string what_;
  std::uint64_t total_;
  std::uint64_t done_ = 0;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bool reported_ = false;
};

}  // namespace shardsim
