// SHARDSIM_FAULT_INJECT=KIND:K (core/fault_injection.hpp).
#include "shardsim/core/fault_injection.hpp"

#include <cstdlib>

namespace shardsim {

std::optional<InjectedFault> injected_fault() {
  const char* v = std::getenv("SHARDSIM_FAULT_INJECT");
  if (v == nullptr) return std::nullopt;
  const std::string s(v);
  const auto colon = s.find(':');
  if (colon == std::string::npos) return std::nullopt;
  return InjectedFault{s.substr(0, colon), std::strtol(s.c_str() + colon + 1, nullptr, 10)};
}

}  // namespace shardsim
