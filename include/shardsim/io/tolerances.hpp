#pragma once
// Tolerances for `shardsim compare` from the command line (`--tolerance metric=value`) and from
// a YAML tolerance file (`--tolerances FILE`); docs/regression.md has the format. A tolerance
// is a fraction (`0.02`) or a percentage (`2%`), >= 0. The metric `all` sets every metric.
#include <string>

#include "shardsim/metrics/report_compare.hpp"

namespace shardsim {

// Applies one `metric=value` flag. An unknown metric (with a "did you mean"), a flag metric
// (fits_in_memory), or a value that is not a number >= 0 is an InputError naming the flag.
void apply_tolerance_flag(CompareOptions& options, const std::string& text);

// Applies a tolerance file:
//   tolerances: {all: 0.01, qps: 2%}   # `all` first, then the named metrics
//   standard_errors: 2                 # optional, > 0
// Unknown keys and metrics (with a "did you mean"), bad values and keys written twice are
// InputErrors naming the file, line and key.
void apply_tolerance_file(CompareOptions& options, const std::string& path);

}  // namespace shardsim
