#pragma once
// `shardsim size SCENARIO [--target-qps X | --fit] [--max-iteration-ms M] [--margin P]
// [--presets a,b,c] [--max-nodes N] [--jobs J] [--exhaustive] [--format text|json|csv]`: the fewest
// GPUs, over the node counts of the scenario's preset (or of several presets), and the planner that
// reach the target (run/scenario_sizing.hpp; docs/report.md "Sizing"). Exit 0: an answer; 1: no
// node count up to --max-nodes reaches --target-qps / --max-iteration-ms; 3: with --fit, no planner
// fits at any node count; 2: bad input.
#include <memory>

namespace CLI {
class App;
}

namespace shardsim {

class DistributedRuns;  // run/distributed_runs.hpp

class SizeCommand {
 public:
  explicit SizeCommand(CLI::App& app);
  ~SizeCommand();
  SizeCommand(const SizeCommand&) = delete;
  SizeCommand& operator=(const SizeCommand&) = delete;

  bool selected() const;
  // The exit code; bad input throws InputError. `job`: the MPI job this process is a rank of
  // (cli/launched_job.hpp), or null.
  int run(DistributedRuns* job = nullptr) const;

  struct Flags;  // the parsed command line (cmd_size.cpp)

 private:
  std::unique_ptr<Flags> flags_;
};

}  // namespace shardsim
