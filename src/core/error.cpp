#include "shardsim/core/error.hpp"

#include <fmt/format.h>

namespace shardsim {

std::string SourceLocation::to_string() const {
  // Input without a file is the command line's (--set, --max-memory, ...): loaders name their
  // files (the fuzz targets check it, docs/robustness.md).
  if (file.empty() && line == 0) return "<command line>";
  std::string f = file.empty() ? "<command line>" : file;
  if (line == 0) return f;
  if (column == 0) return fmt::format("{}:{}", f, line);
  return fmt::format("{}:{}:{}", f, line, column);
}

namespace {
std::string input_message(const SourceLocation& where, const std::string& key,
                          const std::string& problem, const std::string& hint) {
  std::string msg = where.to_string() + ": ";
  if (!key.empty()) msg += "key '" + key + "': ";
  msg += problem;
  if (!hint.empty()) msg += " (hint: " + hint + ")";
  return msg;
}
}  // namespace

InputError::InputError(SourceLocation where, std::string key, std::string problem, std::string hint)
    : std::runtime_error(input_message(where, key, problem, hint)),
      where_(std::move(where)),
      key_(std::move(key)),
      problem_(std::move(problem)),
      hint_(std::move(hint)) {}

DoesNotFitError::DoesNotFitError(int gpu, double needed_bytes, double available_bytes,
                                 std::string detail)
    : std::runtime_error(
          (gpu >= 0 ? fmt::format("the plan does not fit: GPU {} needs {:.3f} GB but has {:.3f} "
                                  "GB available",
                                  gpu, needed_bytes / 1e9, available_bytes / 1e9)
           : needed_bytes > available_bytes
               ? fmt::format("the plan does not fit: it needs {:.3f} GB where {:.3f} GB are "
                             "available",
                             needed_bytes / 1e9, available_bytes / 1e9)
               : std::string("the plan does not fit")) +
          (detail.empty() ? "" : ": " + detail)),
      gpu_(gpu),
      needed_bytes_(needed_bytes),
      available_bytes_(available_bytes) {}

}  // namespace shardsim
