// libFuzzer target: measured collective times, the inputs of `shardsim calibrate`. The first
// input byte picks the reader (bit 0: an nccl-tests log, else a calibration points CSV); the rest
// is the text. A log that parses must satisfy what calibrate relies on: at least one rank and
// host, no more hosts than ranks, at least one row, sizes strictly increasing, finite times, and a
// known test. A points file that parses must have positive sizes and times and whole node counts.
#include <cmath>
#include <string>

#include "fuzz_support.hpp"
#include "shardsim/io/calibration_points.hpp"
#include "shardsim/io/nccl_log.hpp"

namespace shardsim::fuzz {
namespace {

void check_log(const NcclLog& log) {
  if (log.ranks < 1 || log.hosts < 1 || log.hosts > log.ranks) invariant_failed("rank counts");
  if (log.rows.empty()) invariant_failed("a log without rows");
  if (!collective_op_named(log.op)) invariant_failed("an unknown test");
  for (std::size_t k = 0; k < log.rows.size(); ++k) {
    const NcclLogRow& r = log.rows[k];
    if (!std::isfinite(r.time_us) || !std::isfinite(r.size_bytes)) invariant_failed("non-finite");
    if (k > 0 && !(r.size_bytes > log.rows[k - 1].size_bytes)) invariant_failed("sizes");
  }
}

void check_points(const std::vector<MeasuredCollective>& points) {
  if (points.empty()) invariant_failed("no points");
  for (const MeasuredCollective& m : points) {
    if (!(m.size_bytes > 0) || !(m.time_s > 0) || m.nodes < 1) invariant_failed("a bad point");
  }
}

}  // namespace
}  // namespace shardsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::quiet_once();
  if (size == 0) return 0;
  const bool log = (data[0] & 1) != 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  fuzz::expect_clean([&] {
    if (log) {
      fuzz::check_log(parse_nccl_log(text, "fuzz.log"));
    } else {
      fuzz::check_points(parse_calibration_points(text, "fuzz.csv"));
    }
  });
  return 0;
}
