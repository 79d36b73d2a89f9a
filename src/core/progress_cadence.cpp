#include "shardsim/core/progress_cadence.hpp"

#include <cstdlib>
#include <string>

namespace shardsim {

std::chrono::milliseconds progress_interval(std::chrono::milliseconds default_interval) {
  const char* v = std::getenv("SHARDSIM_PROGRESS_INTERVAL_MS");
  if (v == nullptr || *v == '\0') return default_interval;
  const std::string s(v);
  if (s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) {
    return default_interval;
  }
  return std::chrono::milliseconds(std::stol(s));
}

}  // namespace shardsim
