#pragma once
// Who simulates a command's runs. By default this process's threads (run_all's --jobs loop,
// sizing's presets); under MPI every rank of the job (run/distributed_runs.hpp,
// docs/distributed.md). The outputs never depend on which: each run's reports go back to their
// place, and what spans runs is computed afterwards.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "shardsim/io/scenario.hpp"
#include "shardsim/metrics/report.hpp"
#include "shardsim/run/resource_guard.hpp"

namespace shardsim {

// One run to simulate: `scenario` (loaded by the caller, who keeps it alive) at sweep point
// `label`. `run` names it to a process that loads it again for itself: the index of the run in
// the command's own numbering (a sweep's run index, a sizing probe's preset and node count).
struct RunTask {
  std::uint64_t run = 0;
  const Scenario* scenario = nullptr;
  std::string label;
};

class RunExecutor {
 public:
  virtual ~RunExecutor() = default;
  // Simulates every task (run_scenario with `record_timings`; each plan checked by `guard`, or by
  // the guard of the rank that loads the task for itself) and calls finished(k, reports) on
  // the calling thread as task k ends, in any order. A failing task throws as a loop over the
  // tasks in order would: the error of the lowest failing k, once every task before it has
  // ended (tasks after it may be skipped). May be called from several threads at once.
  virtual void simulate(std::span<const RunTask> tasks, bool record_timings, const PlanGuard& guard,
                        const std::function<void(std::size_t, std::vector<Report>)>& finished) = 0;
};

}  // namespace shardsim
