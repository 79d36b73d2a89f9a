#include "shardsim/core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace shardsim {

void setup_logging(Verbosity verbosity) {
  static bool configured = false;
  if (!configured) {
    auto logger = spdlog::stderr_color_mt("shardsim");
    logger->set_pattern("[%^%l%$] %v");
    spdlog::set_default_logger(logger);
    configured = true;
  }
  switch (verbosity) {
    case Verbosity::quiet:
      spdlog::set_level(spdlog::level::err);
      break;
    case Verbosity::normal:
      spdlog::set_level(spdlog::level::info);
      break;
    case Verbosity::verbose:
      spdlog::set_level(spdlog::level::debug);
      break;
  }
}

namespace {
spdlog::level::level_enum spdlog_level(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return spdlog::level::debug;
    case LogLevel::info:
      return spdlog::level::info;
    case LogLevel::warn:
      return spdlog::level::warn;
    case LogLevel::error:
      return spdlog::level::err;
  }
  return spdlog::level::err;
}
}  // namespace

bool log_enabled(LogLevel level) {
  return spdlog::default_logger_raw()->should_log(spdlog_level(level));
}

void log_message(LogLevel level, std::string_view message) {
  spdlog::default_logger_raw()->log(spdlog_level(level),
                                    spdlog::string_view_t(message.data(), message.size()));
}

Progress::Progress(std::string what, std::uint64_t total, std::chrono::milliseconds interval)
    : what_(std::move(what)),
      total_(total),
      interval_(interval),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

void Progress::advance(std::uint64_t n) {
  done_ += n;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ >= interval_) {
    last_ = now;
    reported_ = true;
    const double pct =
        total_ ? 100.0 * static_cast<double>(done_) / static_cast<double>(total_) : 100.0;
    spdlog::info("{}: {}/{} ({:.0f}%)", what_, done_, total_, pct);
  }
}

void Progress::finish() {
  if (reported_) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    spdlog::info("{}: done in {:.1f} s", what_, s);
  }
}

}  // namespace shardsim
