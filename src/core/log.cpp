#include "shardsim/core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <mutex>
#include <unordered_map>
#include <vector>

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

// The warnings collected while a WarningTally is alive.
struct TalliedWarning {
  std::string first;  // the first occurrence's text
  std::size_t count = 0;
  bool varied = false;  // a later occurrence's text differs (in its numbers)
};

struct WarningTallies {
  std::mutex mutex;
  int alive = 0;  // WarningTally objects
  std::vector<TalliedWarning> warnings;
  std::unordered_map<std::string, std::size_t> by_key;  // index into `warnings`
};

WarningTallies& tallies() {
  static WarningTallies t;
  return t;
}

// `text` with each number (digits, with their decimal points) as '#'.
std::string without_numbers(std::string_view text) {
  std::string key;
  for (std::size_t i = 0; i < text.size();) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      key += text[i++];
      continue;
    }
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) != 0 ||
                               (text[i] == '.' && i + 1 < text.size() &&
                                std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0))) {
      ++i;
    }
    key += '#';
  }
  return key;
}

// Collects `message` when a tally is alive; false when it is to be written now.
bool tallied(std::string_view message) {
  WarningTallies& t = tallies();
  std::lock_guard lock(t.mutex);
  if (t.alive == 0) return false;
  auto [it, added] = t.by_key.emplace(without_numbers(message), t.warnings.size());
  if (added) t.warnings.push_back(TalliedWarning{std::string(message), 0, false});
  TalliedWarning& w = t.warnings[it->second];
  ++w.count;
  w.varied = w.varied || w.first != message;
  return true;
}

}  // namespace

bool log_enabled(LogLevel level) {
  return spdlog::default_logger_raw()->should_log(spdlog_level(level));
}

void log_message(LogLevel level, std::string_view message) {
  if (level == LogLevel::warn && tallied(message)) return;
  spdlog::default_logger_raw()->log(spdlog_level(level),
                                    spdlog::string_view_t(message.data(), message.size()));
}

WarningTally::WarningTally() {
  WarningTallies& t = tallies();
  std::lock_guard lock(t.mutex);
  ++t.alive;
}

WarningTally::~WarningTally() {
  std::vector<TalliedWarning> warnings;
  {
    WarningTallies& t = tallies();
    std::lock_guard lock(t.mutex);
    if (--t.alive > 0) return;
    warnings.swap(t.warnings);
    t.by_key.clear();
  }
  try {
    for (const TalliedWarning& w : warnings) {
      if (w.count == 1) {
        spdlog::warn("{}", w.first);
      } else {
        spdlog::warn("(x{}{}) {}", w.count, w.varied ? ", the first shown" : "", w.first);
      }
    }
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor writes what it can
  }
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
