// libFuzzer target: measurements, the inputs of `shardsim calibrate`. The first input byte picks
// the reader (modulo 3: 0 a calibration points CSV, 1 an nccl-tests log, 2 an FBGEMM benchmark
// log for `calibrate --kernels`); the rest is the text. A log that parses must satisfy what
// calibrate relies on: rank and host counts both known (no more hosts than ranks) or both 0 (a
// table without rank lines: calibrate then needs --nodes), at least one row, sizes that never
// decrease (nccl-tests may round two sizes down to one), finite times, and a known test. A points
// file that parses must have positive sizes and times and whole node counts. An FBGEMM log that
// parses has rows, each with a known pass, positive finite B, E, T, D, L and time, and a line
// inside the file.
#include <algorithm>
#include <cmath>
#include <string>

#include "fuzz_support.hpp"
#include "shardsim/io/calibration_points.hpp"
#include "shardsim/io/fbgemm_log.hpp"
#include "shardsim/io/nccl_log.hpp"

namespace shardsim::fuzz {
namespace {

void check_log(const NcclLog& log) {
  if (log.ranks < 0 || log.hosts < 0 || (log.ranks == 0) != (log.hosts == 0) ||
      log.hosts > log.ranks) {
    invariant_failed("rank counts");
  }
  if (log.rows.empty()) invariant_failed("a log without rows");
  if (!collective_op_named(log.op)) invariant_failed("an unknown test");
  for (std::size_t k = 0; k < log.rows.size(); ++k) {
    const NcclLogRow& r = log.rows[k];
    if (!std::isfinite(r.time_us) || !std::isfinite(r.size_bytes)) invariant_failed("non-finite");
    if (k > 0 && r.size_bytes < log.rows[k - 1].size_bytes) invariant_failed("sizes");
  }
}

void check_points(const std::vector<MeasuredCollective>& points) {
  if (points.empty()) invariant_failed("no points");
  for (const MeasuredCollective& m : points) {
    if (!(m.size_bytes > 0) || !(m.time_s > 0) || m.nodes < 1) invariant_failed("a bad point");
  }
}

void check_fbgemm(const FbgemmLog& log, std::size_t text_lines) {
  if (log.rows.empty()) invariant_failed("an FBGEMM log without rows");
  for (const FbgemmLogRow& r : log.rows) {
    if (r.pass != "Forward" && r.pass != "Backward" && r.pass != "ForwardBackward") {
      invariant_failed("an unknown pass");
    }
    for (double v : {r.batch, r.rows, r.tables, r.dim, r.bag, r.time_us}) {
      if (!(v > 0) || !std::isfinite(v)) invariant_failed("a row value not positive and finite");
    }
    if (r.line < 1 || static_cast<std::size_t>(r.line) > text_lines) invariant_failed("a line");
  }
}

}  // namespace
}  // namespace shardsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::quiet_once();
  if (size == 0) return 0;
  const int reader = data[0] % 3;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  fuzz::expect_clean([&] {
    if (reader == 1) {
      fuzz::check_log(parse_nccl_log(text, "fuzz.log"));
    } else if (reader == 2) {
      const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
      fuzz::check_fbgemm(parse_fbgemm_log(text, "fuzz.log"), lines);
    } else {
      fuzz::check_points(parse_calibration_points(text, "fuzz.csv"));
    }
  });
  return 0;
}
