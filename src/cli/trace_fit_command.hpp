#pragma once
// `shardsim trace fit` (docs/traces.md §13), registered by cmd_trace.cpp.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace shardsim {

struct TraceFitFlags {
  std::string target;
  std::string scenario;
  std::string out;
  bool from_trace = false;
  bool force = false;
  int classes = 6;
  std::optional<std::uint64_t> tables;
  int jobs = 1;
};

void add_trace_fit_options(CLI::App& fit, TraceFitFlags& flags);
int run_trace_fit(const TraceFitFlags& flags);

}  // namespace shardsim
