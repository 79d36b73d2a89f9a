// A sweep's finished points under --out DIR/points (run/point_store.hpp).
#include <signal.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <system_error>

#include "shardsim/core/fault_injection.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/core/text_file.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/point_checkpoint.hpp"
#include "shardsim/io/stale_temporaries.hpp"
#include "shardsim/run/point_store.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace fs = std::filesystem;

namespace shardsim {

namespace {

constexpr std::string_view kExtension = ".point";

// Fault injection for the resume tests (docs/robustness.md, "Resumable sweeps"), never set in
// use: SHARDSIM_FAULT_INJECT=kill_after_point:K kills the process (SIGKILL, no clean-up) right
// after the K-th checkpoint of this process is in place; tear_point:K kills it half-way through
// writing the K-th, leaving its temporary half-written.
struct Fault {
  enum class Kind { none, kill_after, tear } kind = Kind::none;
  long at = 0;
};

Fault fault_from_environment() {
  const std::optional<InjectedFault> f = injected_fault();
  if (!f) return {};
  if (f->kind == "kill_after_point") return {Fault::Kind::kill_after, f->at};
  if (f->kind == "tear_point") return {Fault::Kind::tear, f->at};
  return {};
}

// Checkpoints are written one at a time (sweep workers store from several threads): a count and
// a write that cannot interleave make the injected faults exact (the K-th store is torn after
// K - 1 complete ones and before any other starts), and cost nothing next to a simulation.
std::mutex store_mutex;
long stored_points = 0;  // guarded by store_mutex

// A checkpoint's temporary ("<name>.point.tmp.<pid>") whose writer is gone: another process
// still writing into the same folder keeps its own.
bool is_stale_temporary(const fs::path& p) {
  const std::string name = p.filename().string();
  const std::string marker = std::string(kExtension) + ".tmp.";
  const auto at = name.find(marker);
  if (at == std::string::npos) return false;
  const long pid = std::strtol(name.c_str() + at + marker.size(), nullptr, 10);
  return pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) != 0;
}

}  // namespace

CheckpointDir::CheckpointDir(const std::string& out_dir, bool reuse)
    : out_dir_(out_dir),
      folder_(folder_of(out_dir)),
      reuse_(reuse),
      out_dir_existed_(fs::exists(out_dir_)) {}

fs::path CheckpointDir::folder_of(const std::string& out_dir) {
  return fs::path(out_dir) / "points";
}

std::size_t CheckpointDir::count_in(const std::string& out_dir) {
  std::error_code ec;
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(folder_of(out_dir), ec)) {
    if (e.path().extension() == kExtension) ++n;
  }
  return n;
}

std::size_t CheckpointDir::remove_stale_temporaries() const {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& e : fs::directory_iterator(folder_, ec)) {
    if (is_stale_temporary(e.path())) stale.push_back(e.path());
  }
  for (const fs::path& p : stale) fs::remove(p, ec);
  // And the other temporaries a killed process left at any level of DIR or beside it (a final
  // output's "<name>.tmp.<pid>", a staging directory "<DIR>.tmp.<pid>"): garbage too.
  remove_dead_temporaries(out_dir_);
  return stale.size();
}

void CheckpointDir::remove_if_empty() const {
  std::error_code ec;
  if (fs::exists(folder_, ec) && !fs::is_empty(folder_, ec)) return;
  fs::remove(folder_, ec);
  if (!out_dir_existed_ && fs::is_empty(out_dir_, ec)) fs::remove(out_dir_, ec);
}

std::optional<std::vector<Report>> CheckpointDir::load(const Scenario& scenario,
                                                       const std::string& label) {
  if (!reuse_) return std::nullopt;
  const fs::path path = folder_ / point_checkpoint_name(scenario.hashes, label);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::string bytes;
  try {
    bytes = read_text_file(path.string(), "--resume");
  } catch (const std::exception& e) {
    log_warn("{}: cannot be read ({}); the point is simulated again", path.string(), e.what());
    return std::nullopt;
  }
  std::string why;
  std::optional<std::vector<Report>> reports =
      decode_point_checkpoint(bytes, scenario.hashes, label, why);
  if (reports && reports->size() != report_count(scenario)) {
    why = "it holds another number of reports";
    reports.reset();
  }
  if (!reports) log_warn("{}: {}; the point is simulated again", path.string(), why);
  return reports;
}

void CheckpointDir::store(const Scenario& scenario, const std::string& label,
                          std::span<const Report> reports) {
  static const Fault fault = fault_from_environment();
  std::error_code ec;
  fs::create_directories(folder_, ec);  // write_file_atomically names the failure if this failed
  const fs::path path = folder_ / point_checkpoint_name(scenario.hashes, label);
  const std::string bytes = encode_point_checkpoint(scenario.hashes, label, reports);
  const std::lock_guard<std::mutex> lock(store_mutex);
  const long k = ++stored_points;
  if (fault.kind == Fault::Kind::tear && k == fault.at) {
    std::ofstream(temporary_path_for(path.string()), std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    std::raise(SIGKILL);
  }
  write_file_atomically(path.string(), bytes, true, "--out");
  if (fault.kind == Fault::Kind::kill_after && k == fault.at) std::raise(SIGKILL);
}

}  // namespace shardsim
