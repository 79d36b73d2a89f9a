#pragma once
// `shardsim trace gen | stats | import` (docs/traces.md §11): write a scenario's synthetic trace
// to a trace file, summarise a trace file or a scenario's trace, convert a CSV trace.
#include <memory>

namespace CLI {
class App;
}

namespace shardsim {

class TraceCommand {
 public:
  // Adds the `trace` subcommand and its own subcommands to `app`.
  explicit TraceCommand(CLI::App& app);
  ~TraceCommand();
  // Whether the command line chose `trace`.
  bool parsed() const;
  // Runs it; bad input throws InputError (run_cli maps it to exit code 2). Returns the exit code.
  int run() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace shardsim
