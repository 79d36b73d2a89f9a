#pragma once
// `shardsim baseline SCENARIO... --out DIR`: writes golden reports, one `<file stem>.json` per
// scenario, for `shardsim compare` (docs/regression.md).
#include <optional>
#include <string>
#include <vector>

#include "cli/run_flags.hpp"
#include "shardsim/run/distributed_runs.hpp"

namespace shardsim {

struct BaselineArgs {
  std::vector<std::string> scenarios;
  std::string out_dir;
  bool force = false;
  RunFlags run;  // how scenarios are run
  bool verbose = false;
  bool quiet = false;
};

class BaselineCommand {
 public:
  // Adds the subcommand to `app`; its options write into this object, so it stays in place.
  explicit BaselineCommand(CLI::App& app);
  BaselineCommand(const BaselineCommand&) = delete;
  BaselineCommand& operator=(const BaselineCommand&) = delete;
  bool selected() const;
  // The exit code; bad input throws InputError. Under MPI (`job` not null) the scenario files'
  // runs spread over the job's ranks (docs/distributed.md).
  int run(DistributedRuns* job) const;

 private:
  CLI::App* cmd_ = nullptr;
  BaselineArgs args_;
};

// Writing the baselines, without the command line; `job` as in BaselineCommand::run.
int run_baseline(const BaselineArgs& args, DistributedRuns* job = nullptr);

}  // namespace shardsim
