#pragma once
// Logging through spdlog, to stderr, so that stdout carries only the report.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace shardsim {

enum class Verbosity { quiet, normal, verbose };

void setup_logging(Verbosity verbosity);

// Every module logs through these (spdlog stays behind src/core/log.cpp).
enum class LogLevel { debug, info, warn, error };
void log_message(LogLevel level, std::string_view message);
bool log_enabled(LogLevel level);

template <class... Args>
void log_debug(fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(LogLevel::debug))
    log_message(LogLevel::debug, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args>
void log_info(fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(LogLevel::info))
    log_message(LogLevel::info, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args>
void log_warn(fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(LogLevel::warn))
    log_message(LogLevel::warn, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args>
void log_error(fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(LogLevel::error))
    log_message(LogLevel::error, fmt::format(format, std::forward<Args>(args)...));
}

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
