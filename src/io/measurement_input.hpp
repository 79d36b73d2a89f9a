#pragma once
// What `shardsim calibrate` reads (nccl-tests logs, a points CSV, FBGEMM benchmark logs): the
// file itself, and the bounds every measured row must keep whatever the machine
// (docs/robustness.md, "The catalogue"). The bounds that depend on the machine (a bandwidth
// faster than its fastest link) are checked where the cluster is known (cli/cmd_calibrate.cpp).
#include <string>
#include <string_view>

#include "shardsim/core/error.hpp"

namespace shardsim {

// A size beyond 2^63 bytes is no buffer a collective moves (and no count a 64-bit size holds).
inline constexpr double kMaxMeasuredSizeBytes = 9223372036854775808.0;  // 2^63
// A measured time over an hour is no collective or kernel time (a unit mixed up, a hung run).
inline constexpr double kMaxMeasuredTime_us = 3600e6;

// The file's text. Refused: a directory ("is a directory, expected <expected>"), a file that
// cannot be opened. `key` names the flag or argument (LOG, --points, --kernels).
std::string read_measurement_file(const std::string& path, const std::string& key,
                                  std::string_view expected);

// Refuses (at `at`, naming `key`) a size that is not a number of bytes in [0, 2^63].
void check_measured_size(double size_bytes, const SourceLocation& at, const std::string& key);

// Refuses (at `at`, naming `key`) a time that is not finite, not positive, or over an hour.
void check_measured_time(double time_us, const SourceLocation& at, const std::string& key);

}  // namespace shardsim
