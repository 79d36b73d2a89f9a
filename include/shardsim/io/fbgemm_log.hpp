#pragma once
// The text output of FBGEMM's table-batched embedding benchmark
// (fbgemm_gpu/bench/split_table_batched_embeddings_benchmark.py), read for `shardsim calibrate
// --kernels` (docs/model.md, "Calibration of the embedding kernels"). The benchmark logs one line
// per measured pass through Python's logging, e.g.
//   INFO:root:Forward, B: 512, E: 100000, T: 32, D: 128, L: 20, W: False, BW:  590.26 GB/s, T:
//   1136us INFO:root:ForwardBackward, B: 512, E: 100000, T: 32, D: 128, L: 20, BW: 871.20 GB/s, T:
//   2312us INFO:root:Backward, B: 512, E: 100000, T: 32, D: 128, L: 20, a: 1.15, BW: ... GB/s, T:
//   ...us INFO:root:Average of all iterations: fp32 Forward, B: ..., BW: ... GB/s, Time: 5225us,
//   ...
// (B batch, E rows per table, T tables, D dim, L bag size, W weighted, a alpha; the second `T:`,
// or `Time:`, is the time per iteration in microseconds). Lines `Iteration N: ...` are per-run
// repeats of the `Average of all iterations` line that follows them and are not rows.
//
// What the lines do not say (alpha before the `a:` field existed, the weights' precision, the
// optimizer, the sub-command) comes from the command line the log records (a line naming
// `split_table_batched_embeddings_benchmark`, whose `--key=value` / `--key value` options and
// flags are kept as settings), from header lines `# key: value` or `# key=value`, or from the
// caller (`--kernel-set key=value`, applied by the CLI over these).
//
// Refused with InputError at file:line: an empty file; a result line without B, E, T, D, L or
// the time, or with a non-numeric or out-of-range value (a truncated log); iteration lines with
// no `Average of all iterations` line after them; no result lines at all.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardsim {

struct FbgemmLogRow {
  int line = 0;       // 1-based, in the file
  std::string pass;   // "Forward", "Backward" or "ForwardBackward"
  double batch = 0;   // B
  double rows = 0;    // E, per table
  double tables = 0;  // T
  double dim = 0;     // D (an average under --mixed)
  double bag = 0;     // L
  bool weighted = false;
  std::optional<double> alpha;           // the line's `a:` field, when present
  std::optional<std::string> precision;  // a leading "fp32 " / "fp16 " ... (nbit benchmarks)
  std::optional<double> bandwidth_GBps;  // BW, as the benchmark computes it
  double time_us = 0;
};

struct FbgemmLog {
  std::string file;
  std::string command;                          // the sub-command (device, nbit-device, ...)
  std::map<std::string, std::string> settings;  // option name (no dashes) -> value
  std::map<std::string, int> setting_lines;     // where each setting was read (0: unknown)
  std::vector<FbgemmLogRow> rows;
};

// `file` names the text in messages.
FbgemmLog parse_fbgemm_log(std::string_view text, const std::string& file);
// Reads and parses a file; a file that cannot be read is an InputError.
FbgemmLog read_fbgemm_log(const std::string& path);

}  // namespace shardsim
