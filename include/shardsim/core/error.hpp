#pragma once
// Errors a user can act on, and the exit codes they map to (DESIGN.md §3).
#include <cstdint>
#include <stdexcept>
#include <string>

namespace shardsim {

enum class ExitCode : int {
  ok = 0,
  check_failed = 1,   // e.g. `compare` found a regression
  bad_input = 2,      // file, line and key named in the message
  does_not_fit = 3,   // a plan exceeds a GPU's memory
  internal = 4,       // a bug in shardsim: never expected
  output_failed = 5,  // standard output or standard error could not be written (disk full,
                      // I/O error): what was printed is incomplete
};

// Where in a user's file something was found. line/column are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string to_string() const;  // "file:line:col", "file:line", "file" or "<command line>"
};

// Bad input: exit code 2. The message names the file, the line, the key (a dotted path such as
// `model.tables[2].rows`), what was expected, and a hint when one helps.
class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, std::string key, std::string problem, std::string hint = {});
  const SourceLocation& where() const { return where_; }
  const std::string& key() const { return key_; }
  const std::string& problem() const { return problem_; }
  const std::string& hint() const { return hint_; }

 private:
  SourceLocation where_;
  std::string key_;
  std::string problem_;
  std::string hint_;
};

// A plan that does not fit in a GPU's memory: exit code 3. `gpu` < 0: no particular GPU (the
// tables together, or a planner's search that found no placement).
class DoesNotFitError : public std::runtime_error {
 public:
  DoesNotFitError(int gpu, double needed_bytes, double available_bytes, std::string detail);
  int gpu() const { return gpu_; }
  double needed_bytes() const { return needed_bytes_; }
  double available_bytes() const { return available_bytes_; }

 private:
  int gpu_;
  double needed_bytes_;
  double available_bytes_;
};

}  // namespace shardsim
