#pragma once
// Logging to stderr, so that stdout carries only the report. Every message goes through the
// functions here; the logging library stays inside src/core/log.cpp.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace shardsim {

enum class Verbosity { quiet, normal, verbose };

void setup_logging(Verbosity verbosity);

enum class LogLevel { debug, info, warn, error };

// Whether a message at `level` is written at the current verbosity.
bool log_enabled(LogLevel level);
// Writes `message` as it is (no formatting) at `level`.
void log_message(LogLevel level, std::string_view message);

// fmt-formatted messages at each level; the text is formatted only when the level is enabled.
template <typename... Args>
void log_at(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(level)) log_message(level, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void log_debug(fmt::format_string<Args...> format, Args&&... args) {
  log_at(LogLevel::debug, format, std::forward<Args>(args)...);
}
template <typename... Args>
void log_info(fmt::format_string<Args...> format, Args&&... args) {
  log_at(LogLevel::info, format, std::forward<Args>(args)...);
}
template <typename... Args>
void log_warn(fmt::format_string<Args...> format, Args&&... args) {
  log_at(LogLevel::warn, format, std::forward<Args>(args)...);
}
template <typename... Args>
void log_error(fmt::format_string<Args...> format, Args&&... args) {
  log_at(LogLevel::error, format, std::forward<Args>(args)...);
}

// While one is alive, warnings are collected instead of written; when the last one ends, each
// distinct warning is written once, in the order first seen, with its count when repeated:
// "(x26) <the first occurrence's text>". Warnings are the same when their texts are equal up
// to their numbers ("GPU 3 needs 52.1 GB" and "GPU 5 needs 48 GB"); then the count says
// "(x26, the first shown)". For searches that warn the same at every probe (`size`).
class WarningTally {
 public:
  WarningTally();
  ~WarningTally();
  WarningTally(const WarningTally&) = delete;
  WarningTally& operator=(const WarningTally&) = delete;
};

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
