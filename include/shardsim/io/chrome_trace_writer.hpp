#pragma once
// Timelines as Chrome trace events (docs/report.md, "Chrome trace"), for Perfetto
// (ui.perfetto.dev) and chrome://tracing: one process per GPU with a thread per stream (compute
// and communication), a span per kernel and collective (bytes in its args), and each link's
// utilisation as a counter in a "network" process. Byte-identical for the same simulation.
#include <ostream>
#include <string>

#include "shardsim/hw/cluster.hpp"
#include "shardsim/sim/simulation.hpp"

namespace shardsim {

class ChromeTrace {
 public:
  // Adds one simulated plan; `label` (the planner) prefixes its process names. Several
  // simulations get disjoint process ids, in the order added.
  void add(const std::string& label, const Cluster& cluster, const SimulationResult& result);
  void write(std::ostream& out) const;
  bool empty() const { return events_.empty(); }

 private:
  std::string events_;  // comma-separated JSON objects
  int next_pid_ = 0;
};

// `--trace-out PATH`: refuses an existing file unless `force`, a directory always, and a folder
// that does not exist (InputError, key "--trace-out"; check_file_writable). Call before
// simulating, so a refused run costs nothing.
void check_trace_out(const std::string& path, bool force);
// Writes `trace` through write_file_atomically (io/atomic_files.hpp): PATH.tmp.<pid> renamed into
// place, removed on failure or SIGINT/SIGTERM/SIGHUP, so a reader never sees half a file.
void write_chrome_trace_file(const std::string& path, const ChromeTrace& trace, bool force);

}  // namespace shardsim
