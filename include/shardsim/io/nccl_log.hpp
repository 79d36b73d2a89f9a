#pragma once
// The text output of NVIDIA's nccl-tests (all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf, sendrecv_perf), read for `shardsim calibrate` (docs/model.md, "Calibration"):
// the rank lines (`#  Rank  0 Group  0 Pid 123 on host device  0 [0x07] NVIDIA H100 ...`; older
// versions have no Group) give the rank and host counts, the column header names the columns
// (older versions have no root column and an `error` column instead of `#wrong`), and each
// result row gives one size's out-of-place and in-place time, algbw and busbw.
//
// Which test a log is: its `# Collective test starting: NAME` line, else the test's name in the
// file name (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv, with or without `_`),
// else the rows (redop `sum` and a count of size/element: allreduce; `sum` and size/element/ranks:
// reduce_scatter; `none` and size/element: sendrecv); allgather and alltoall look alike, so one of
// those needs the name. Lines of other programs (NCCL INFO, mpirun) are skipped.
//
// Refused with InputError at file:line: an empty file; no rank lines; no column header; a result
// row with missing or non-numeric fields (a truncated log); `#wrong` (or `error`) not 0; "Out of
// bounds values : N FAILED"; two tests or two runs in one file (a second test name or header
// block, sizes that do not increase, rows of another type or reduction); no result rows.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardsim {

struct NcclLogRow {
  int line = 0;  // 1-based, in the file
  double size_bytes = 0;
  double count = 0;
  std::string type;
  std::string redop;
  int root = -1;
  double time_us = 0;  // out of place
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  std::optional<double> in_place_time_us;
  std::optional<double> in_place_algbw_GBps;
  std::optional<double> in_place_busbw_GBps;
};

struct NcclLog {
  std::string file;
  std::string op;  // allreduce, allgather, reduce_scatter, alltoall or sendrecv
  int ranks = 0;
  int hosts = 0;
  std::vector<std::string> host_names;  // in order of first appearance
  std::vector<NcclLogRow> rows;
};

// `file` names the text in messages (and may tell the test by its name).
NcclLog parse_nccl_log(std::string_view text, const std::string& file);
// Reads and parses a file; a file that cannot be read is an InputError.
NcclLog read_nccl_log(const std::string& path);

}  // namespace shardsim
