#pragma once
// `shardsim size SCENARIO [--target-qps X | --fit] [--max-iteration-ms M] [--presets a,b,c]
// [--max-nodes N] [--jobs J] [--exhaustive] [--format text|json|csv]`: the fewest GPUs, over the
// node counts of the scenario's preset (or of several presets), and the planner that reach the
// target (run/scenario_sizing.hpp; docs/report.md "Sizing"). Exit 0: an answer; 1: no node
// count up to --max-nodes reaches --target-qps / --max-iteration-ms; 3: with --fit, no planner
// fits at any node count; 2: bad input.
#include <memory>

namespace CLI {
class App;
}

namespace shardsim {

class SizeCommand {
 public:
  explicit SizeCommand(CLI::App& app);
  ~SizeCommand();
  SizeCommand(const SizeCommand&) = delete;
  SizeCommand& operator=(const SizeCommand&) = delete;

  bool selected() const;
  int run() const;  // the exit code; bad input throws InputError

  struct Flags;  // the parsed command line (cmd_size.cpp)

 private:
  std::unique_ptr<Flags> flags_;
};

}  // namespace shardsim
