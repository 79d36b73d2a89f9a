#pragma once
// Whether the measured iterations pay a 2D replica sync of `interval` its share: a window of
// whole intervals holds exactly measured / interval syncs, wherever the warm-up ends. Checked
// before planning (two_d's Planner::check, so `validate` catches it) and for plan files before
// simulating (run/run_scenario.cpp).
#include <cstddef>
#include <string>

#include "shardsim/core/error.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

// An InputError at `where` / `key` when `groups` >= 2 groups synced every `sync.interval`
// iterations of a training workload would pay no sync, or not their share, in the measured
// window (iterations after the warm-up).
void check_sync_window(const PeerSync& sync, std::size_t groups, const Workload& workload,
                       const SourceLocation& where, const std::string& key);

// The same for a plan (its groups and peer sync), the key being two_d's option.
void check_sync_window(const Plan& plan, const Workload& workload, const std::string& source);

}  // namespace shardsim
