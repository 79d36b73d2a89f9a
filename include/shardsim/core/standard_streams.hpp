#pragma once
// The end of a command's output on the standard streams (docs/robustness.md, "Standard output
// and standard error"). A report printed to a full disk or a failing device must not pass for
// a whole one: every write to std::cout / stdout lands in the C stream's buffer, whose error
// flag, final flush and close are checked here, once, as the process ends.

namespace shardsim {

// Flushes and closes standard output and flushes standard error. Returns `exit_code`, or, when a
// write to either stream failed and the command had not already failed, ExitCode::output_failed
// (5), after a message on standard error (when that can still be written). Call once, at the end
// of main: standard output is closed afterwards. A closed pipe (SIGPIPE) ends the process before
// this, quietly, as command-line tools conventionally do.
int finish_standard_streams(int exit_code);

}  // namespace shardsim
