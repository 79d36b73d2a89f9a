#pragma once

namespace shardsim {

// The `shardsim` command line: parses argv, runs the subcommand, maps errors to exit codes
// (DESIGN.md §3). Never throws.
int run_cli(int argc, char** argv);

}  // namespace shardsim
