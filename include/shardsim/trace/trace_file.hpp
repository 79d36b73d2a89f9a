#pragma once
// Recorded traces: the binary trace file format (docs/traces.md §9 has it byte by byte), its
// streaming writer and reader, and small CSV traces. A trace holds T tables and S samples; each
// sample has one bag (possibly empty) in every table; a table stores its S bag lengths and then
// its row ids, bag after bag.
//
// Reading never trusts a count before checking it against the bytes the file really has: a
// header that claims 10^12 entries in a 1 KB file is an InputError, and every allocation sized
// from a count in a file is bounded by the file's real size (the table directory) or by a
// fixed-size chunk (kTraceChunkEntries entries, for the data).
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shardsim {

inline constexpr char kTraceMagic[8] = {'S', 'H', 'R', 'D', 'T', 'R', 'C', '\0'};
inline constexpr std::uint32_t kTraceVersion = 1;
inline constexpr std::uint32_t kTraceByteOrderMark = 0x01020304;  // stored little-endian
inline constexpr std::uint64_t kTraceHeaderBytes = 48;
inline constexpr std::uint64_t kTraceMaxTables = 1'000'000;            // as `model.generate.count`
inline constexpr std::uint64_t kTraceMaxRows = 10'000'000'000'000ULL;  // as a table's rows
inline constexpr std::uint32_t kTraceMaxNameBytes = 4096;
// Streaming reads and writes go through buffers of this many 8-byte entries (1 MiB).
inline constexpr std::size_t kTraceChunkEntries = 1 << 17;

// Bytes of one table's section: 24 + name (padded to 8) + 4·S (padded to 8) + 8·lookups + 8.
std::uint64_t trace_section_bytes(std::string_view name, std::uint64_t samples,
                                  std::uint64_t lookups);

// What a table of a recorded trace holds.
struct TraceTableInfo {
  std::string name;
  std::uint64_t rows = 0;     // row ids are < rows
  std::uint64_t lookups = 0;  // = the sum of the bag lengths
};

// A recorded trace, read chunk by chunk: a binary trace file, or a CSV trace held in memory.
class RecordedTrace {
 public:
  virtual ~RecordedTrace() = default;
  virtual std::uint64_t num_tables() const = 0;
  virtual std::uint64_t num_samples() const = 0;  // bags per table
  virtual const TraceTableInfo& table(std::size_t t) const = 0;
  // Passes all of table t's lengths, then all its row ids, to the callbacks in chunks of at most
  // kTraceChunkEntries, checking them on the way (lengths sum to lookups, rows < rows, the
  // section checksum); a check that fails throws InputError, possibly after some chunks were
  // delivered, so a caller must discard what it built when it catches one.
  virtual void stream_table(
      std::size_t t, const std::function<void(std::span<const std::uint32_t>)>& on_lengths,
      const std::function<void(std::span<const std::uint64_t>)>& on_rows) const = 0;
  // Random access, for replay: bag lengths [first, first + out.size()) of table t, and row ids
  // [first, first + out.size()) (positions in the table's concatenated bags). Ranges must lie
  // inside the table (std::out_of_range otherwise). Thread-safe.
  virtual void read_lengths(std::size_t t, std::uint64_t first,
                            std::span<std::uint32_t> out) const = 0;
  virtual void read_rows(std::size_t t, std::uint64_t first,
                         std::span<std::uint64_t> out) const = 0;
};

// Opens a binary trace file (recognised by its magic) or a CSV trace (a file whose name ends in
// .csv; see read_trace_csv). Errors are InputErrors naming `path`, the byte offset or line, and
// `key` (e.g. "workload.trace.file"; empty to name none). The binary file's header and table
// headers are checked here; the data and checksums when streamed.
std::unique_ptr<RecordedTrace> open_recorded_trace(const std::string& path,
                                                   const std::string& key = {});

// Whether `path` starts with the trace file magic (false when it cannot be read).
bool is_trace_file(const std::string& path);

// A small hand-made trace in CSV, one lookup per line, held in memory:
//   # comments and blank lines are skipped
//   # rows: 1000 500            (optional: rows of table 0, 1, ...; default: largest row id + 1)
//   table,sample,row            (the header, required before the first lookup)
//   0,0,17
//   0,0,3                       (bag 0 of table 0 is [17, 3], in line order)
//   1,0,42
// table and sample are 0-based; the trace has max(table) + 1 tables (named t0, t1, ...) and
// max(sample) + 1 samples (bags not listed are empty). At most kTraceCsvMaxLines lines.
inline constexpr std::uint64_t kTraceCsvMaxLines = 10'000'000;
// Bags (tables x samples, each with a length) a CSV trace may have per lookup line, beyond 2^20:
// sparse ids are refused rather than allocated (docs/robustness.md, the catalogue).
inline constexpr std::uint64_t kTraceCsvMaxBagsPerLookup = 64;
std::unique_ptr<RecordedTrace> read_trace_csv(const std::string& path, const std::string& key = {});

// Writes one table's section (at a fixed offset of a file being written; several sections may be
// written at once from different threads). Lengths first, then rows, in any number of calls.
class TraceSectionWriter {
 public:
  TraceSectionWriter(int fd, std::string path, std::uint64_t offset, std::string_view name,
                     std::uint64_t rows, std::uint64_t samples, std::uint64_t lookups);
  ~TraceSectionWriter();
  TraceSectionWriter(const TraceSectionWriter&) = delete;
  TraceSectionWriter& operator=(const TraceSectionWriter&) = delete;
  void write_lengths(std::span<const std::uint32_t> lengths);
  void write_rows(std::span<const std::uint64_t> rows);
  // Checks that exactly `samples` lengths summing to `lookups` and `lookups` rows were written,
  // writes the checksum. std::logic_error when the counts do not match (a caller's bug).
  void finish();

 private:
  void put(const void* data, std::size_t bytes);
  void flush();
  struct State;
  std::unique_ptr<State> s_;
};

// Writes a whole trace file to `path` (created or truncated): the header, then each table's
// section at its offset. fill(t, writer) writes table t's lengths and rows; it is called for
// every table, from up to `jobs` threads at once (the file's bytes do not depend on `jobs`).
// Throws InputError when the file cannot be written.
void write_trace_file(const std::string& path, std::uint64_t samples,
                      std::span<const TraceTableInfo> tables, int jobs,
                      const std::function<void(std::size_t, TraceSectionWriter&)>& fill);

// Copies a recorded trace (e.g. one read from CSV) into a binary trace file at `path`.
void write_trace_file(const std::string& path, const RecordedTrace& trace);

}  // namespace shardsim
