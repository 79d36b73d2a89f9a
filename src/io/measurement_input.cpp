// Measurement files and the machine-independent bounds of their rows (io/measurement_input.hpp).
#include "io/measurement_input.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "shardsim/core/text_file.hpp"

namespace shardsim {

std::string read_measurement_file(const std::string& path, const std::string& key,
                                  std::string_view expected) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(SourceLocation{path, 0, 0}, key,
                     fmt::format("is a directory, expected {}", expected),
                     "name the file itself, not the folder it is in");
  }
  return read_text_file(path, key);
}

void check_measured_size(double size_bytes, const SourceLocation& at, const std::string& key) {
  if (!std::isfinite(size_bytes) || size_bytes < 0 || size_bytes > kMaxMeasuredSizeBytes) {
    throw InputError(
        at, key,
        fmt::format("a size of {:.6g} B: expected a number of bytes up to 2^63", size_bytes),
        "check the column: sizes are in bytes");
  }
}

void check_measured_time(double time_us, const SourceLocation& at, const std::string& key) {
  if (!std::isfinite(time_us) || !(time_us > 0)) {
    throw InputError(
        at, key,
        fmt::format("a time of {} us: a measured time must be positive and finite", time_us),
        "leave out rows that were not timed");
  }
  if (time_us > kMaxMeasuredTime_us) {
    throw InputError(at, key,
                     fmt::format("a time of {:.6g} us is more than an hour: no measured "
                                 "collective or kernel takes that long",
                                 time_us),
                     "check the column's unit (microseconds) and that the run did not hang");
  }
}

}  // namespace shardsim
