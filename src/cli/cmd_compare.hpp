#pragma once
// `shardsim compare BASELINE CANDIDATE`: planner-quality regression check (docs/regression.md).
// Each side is a report JSON file, a directory of them, or a scenario YAML (run on the spot).
// Exit 0: nothing regressed; 1: a regression, a stale or mismatched baseline, or an unmatched
// report; 2: bad input.
#include <optional>
#include <string>
#include <vector>

#include "cli/run_flags.hpp"

namespace shardsim {

struct CompareArgs {
  std::string baseline;
  std::string candidate;
  std::string format = "text";
  std::vector<std::string> tolerances;  // --tolerance metric=value
  std::string tolerance_file;           // --tolerances FILE
  std::optional<double> standard_errors;
  bool allow_unmatched = false;
  RunFlags run;  // how scenarios are run (only when a side is a scenario)
  bool verbose = false;
  bool quiet = false;
};

class CompareCommand {
 public:
  // Adds the subcommand to `app`; its options write into this object, so it stays in place.
  explicit CompareCommand(CLI::App& app);
  CompareCommand(const CompareCommand&) = delete;
  CompareCommand& operator=(const CompareCommand&) = delete;
  bool selected() const;
  int run() const;  // the exit code; bad input throws InputError

 private:
  CLI::App* cmd_ = nullptr;
  CompareArgs args_;
};

// The comparison itself, without the command line.
int run_compare(const CompareArgs& args);

}  // namespace shardsim
