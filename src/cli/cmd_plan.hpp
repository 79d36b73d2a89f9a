#pragma once
// `shardsim plan [SCENARIO] [--planner NAME] [--out plan.yaml|plan.json] [--force] [--stats]`:
// runs a planner (or reads the scenario's `placement.file`) without simulating, writes the plan
// file a person can read and edit, and prints the plan statistics. docs/planners.md.
#include <memory>

namespace CLI {
class App;
}

namespace shardsim {

class PlanCommand {
 public:
  // Registers the `plan` subcommand and its flags on `app`.
  explicit PlanCommand(CLI::App& app);
  ~PlanCommand();
  PlanCommand(const PlanCommand&) = delete;
  PlanCommand& operator=(const PlanCommand&) = delete;

  bool selected() const;
  // Runs it (after parsing). Exit code 0, or 3 when the plan does not fit; bad input throws
  // InputError and a planner that cannot place the tables DoesNotFitError (run_cli maps them).
  int run() const;

 private:
  struct Flags;
  std::unique_ptr<Flags> flags_;
};

}  // namespace shardsim
