#pragma once
// The text output of NVIDIA's nccl-tests (all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf, sendrecv_perf), read for `shardsim calibrate` (docs/model.md, "Calibration"):
// the rank lines (`#  Rank  0 Group  0 Pid 123 on host device  0 [0x07] NVIDIA H100 ...`; older
// versions have no Group) give the rank and host counts, the column header names the columns
// (older versions have no root column and an `error` column, the largest relative error of the
// results, instead of the count `#wrong`), and each result row gives one size's out-of-place and
// in-place time, algbw and busbw. A log without rank lines (a table pasted on its own) is read
// with ranks = hosts = 0: the caller takes the rank count from the cluster.
//
// Lines may carry a launcher's tag, which is dropped: Open MPI's `[1,0]<stdout>:`, a rank in
// brackets `[0] ` (mpirun -prepend-rank, Intel MPI -l), Slurm srun --label's `0: `. Sizes may
// repeat (nccl-tests rounds each down to whole elements a rank: 0, 0, 4, ... for -b 1).
//
// Which test a log is: its `# Collective test starting: NAME` line, else the caller's `op`, else
// the test's name in the file name (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv,
// with or without `_`), else the rows (redop `sum` and a count of size/element: allreduce; `sum`
// and size/element/ranks: reduce_scatter; `none` and size/element: sendrecv); allgather and
// alltoall look alike, so one of those needs the name. Lines of other programs (NCCL INFO,
// mpirun) are skipped.
//
// Refused with InputError at file:line: an empty file; no column header; a result row with
// missing or non-numeric fields (a truncated log); `#wrong` not 0 (an `error` that is not a
// number); "Out of bounds values : N FAILED"; two tests or two runs in one file (a second test
// name or header block, sizes that decrease, rows of another type or reduction); a test name
// other than the caller's `op`; no result rows.
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
  int ranks = 0;   // 0: the log has no rank lines
  int hosts = 0;
  std::vector<std::string> host_names;  // in order of first appearance
  std::vector<NcclLogRow> rows;
};

// The collective an nccl-tests name stands for (all_reduce_perf, alltoall, reduce-scatter, ...:
// case, `_` and `-` ignored), as collective_op_named spells it; nullopt for other tests.
std::optional<std::string> nccl_test_op(std::string name);

// `file` names the text in messages (and may tell the test by its name); `op`, when given, is
// the test (a collective_op_named name) for a log that does not name its own.
NcclLog parse_nccl_log(std::string_view text, const std::string& file,
                       std::optional<std::string> op = std::nullopt);
// Reads and parses a file; a file that cannot be read is an InputError.
NcclLog read_nccl_log(const std::string& path, std::optional<std::string> op = std::nullopt);

}  // namespace shardsim
