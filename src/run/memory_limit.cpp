// The memory limit the resource guard's estimate is held to (run/resource_estimate.hpp):
// `--max-memory`, or half of this machine's (or container's) memory, and the check against it.
#include "shardsim/run/resource_estimate.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>

#include "shardsim/core/error.hpp"

namespace shardsim {

namespace {

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<double>(pages) * static_cast<double>(page);
}

// cgroup v2 memory.max, or v1 memory.limit_in_bytes; 0 when none (or "max").
double cgroup_limit_bytes() {
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") continue;
    double v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && v > 0 && v < 1e18) return v;
  }
  return 0;
}

}  // namespace

MemoryLimit default_memory_limit() {
  const double physical = physical_memory_bytes();
  const double cgroup = cgroup_limit_bytes();
  double machine = physical;
  std::string what = "this machine's";
  if (cgroup > 0 && (machine <= 0 || cgroup < machine)) {
    machine = cgroup;
    what = "this container's";
  }
  if (!(machine > 0)) return MemoryLimit{0, "no limit (the machine's memory is unknown)"};
  return MemoryLimit{machine / 2,
                     fmt::format("half of {} {:.1f} GiB", what, machine / 1073741824.0)};
}

MemoryLimit parse_memory_limit(std::string_view text, const std::string& flag) {
  const auto fail = [&] {
    return InputError(SourceLocation{}, flag, fmt::format("'{}' is not a memory size", text),
                      "write e.g. 8G, 512M, 1.5T or a number of bytes; 0 or none for no limit");
  };
  std::string s;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  const std::string origin = fmt::format("{} {}", flag, text);
  if (s == "0" || s == "none" || s == "unlimited") return MemoryLimit{0, origin};
  double value = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || p == s.data() || !std::isfinite(value) || value < 0) throw fail();
  std::string unit(p, static_cast<const char*>(s.data() + s.size()));
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();  // "8GB", "8GiB"
  if (unit.size() == 2 && unit[1] == 'i') unit.pop_back();   // binary spelled out: the same
  double scale = 1;
  if (unit.empty()) {
    scale = 1;
  } else if (unit == "k") {
    scale = 1024.0;
  } else if (unit == "m") {
    scale = 1024.0 * 1024;
  } else if (unit == "g") {
    scale = 1024.0 * 1024 * 1024;
  } else if (unit == "t") {
    scale = 1024.0 * 1024 * 1024 * 1024;
  } else {
    throw fail();
  }
  const double bytes = value * scale;
  if (!(bytes >= 1) || !std::isfinite(bytes)) throw fail();
  return MemoryLimit{bytes, origin};
}

void check_memory(const ResourceEstimate& estimate, const MemoryLimit& limit,
                  const std::string& source, const std::string& subject) {
  if (limit.bytes <= 0 || estimate.total_bytes <= limit.bytes) return;
  std::string terms;
  for (std::size_t i = 0; i < estimate.items.size() && i < 3; ++i) {
    if (estimate.items[i].bytes < 0.01 * estimate.total_bytes) break;
    terms += fmt::format("; {}: {}", estimate.items[i].what, human_bytes(estimate.items[i].bytes));
  }
  throw InputError(
      SourceLocation{source}, "--max-memory",
      fmt::format("{} would need about {} of memory, more than the limit of {} ({}){}", subject,
                  human_bytes(estimate.total_bytes), human_bytes(limit.bytes), limit.origin, terms),
      "use fewer GPUs (cluster.nodes), planners, iterations or sweep points, fewer --jobs, "
      "`trace: {mode: expected}`, or raise the limit with --max-memory (e.g. --max-memory " +
          fmt::format("{:.0f}G", std::ceil(estimate.total_bytes * 1.25 / 1073741824.0)) + ")");
}

}  // namespace shardsim
