#pragma once
// Fault injection for the tests of interrupted outputs (docs/robustness.md, "Outputs"), never
// set in use: SHARDSIM_FAULT_INJECT=KIND:K names a fault and the step it strikes at. Each writer
// reads the kinds it knows (run/checkpoint_dir.cpp, io/output_set_swap.cpp).
#include <optional>
#include <string>

namespace shardsim {

struct InjectedFault {
  std::string kind;  // e.g. "kill_after_point", "kill_at_output_rename"
  long at = 0;       // K
};

// The variable's KIND:K, or nullopt when it is unset or holds no ':'.
std::optional<InjectedFault> injected_fault();

}  // namespace shardsim
