// Reading binary trace files (docs/traces.md §9). Every count read from the file is checked
// against the bytes that remain before anything is sized from it.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/core/utf8.hpp"
#include "shardsim/trace/trace_file.hpp"
#include "shardsim/trace/xxhash64.hpp"
#include "trace/trace_file_format.hpp"

namespace shardsim {

namespace {

using detail::get_u32;
using detail::get_u64;
using detail::pad8;

class BinaryTrace final : public RecordedTrace {
 public:
  BinaryTrace(const std::string& path, const std::string& key)
      : file_(detail::PosixFile::open_read(path, key)), key_(key) {
    const std::uint64_t size = file_.size();
    if (size < kTraceHeaderBytes)
      fail(0,
           fmt::format("the file has {} bytes, fewer than the {}-byte header", size,
                       kTraceHeaderBytes),
           "not a shardsim trace file, or one cut short");
    std::byte h[kTraceHeaderBytes];
    file_.read_at(0, h);
    if (std::memcmp(h + detail::kHeaderMagic, kTraceMagic, 8) != 0)
      fail(0, "not a shardsim trace file (the first 8 bytes are not \"SHRDTRC\\0\")",
           "write trace files with `shardsim trace gen` or `shardsim trace import`");
    const std::uint32_t version = get_u32(h + detail::kHeaderVersion);
    if (version != kTraceVersion)
      fail(detail::kHeaderVersion,
           fmt::format("format version {}, but this shardsim reads version {}", version,
                       kTraceVersion),
           "write the file again with this shardsim's `trace gen` or `trace import`");
    const std::uint32_t bom = get_u32(h + detail::kHeaderByteOrder);
    if (bom != kTraceByteOrderMark)
      fail(detail::kHeaderByteOrder,
           bom == __builtin_bswap32(kTraceByteOrderMark)
               ? std::string("the file is big-endian; trace files are little-endian")
               : fmt::format("bad byte-order mark 0x{:08x} (expected 0x{:08x})", bom,
                             kTraceByteOrderMark),
           "the header is corrupt or the file was written by another tool");
    if (get_u64(h + detail::kHeaderChecksum) !=
        xxh64(std::span<const std::byte>(h, detail::kHeaderChecksum)))
      fail(detail::kHeaderChecksum, "the header's checksum does not match its bytes",
           "the file is corrupt; write it again");
    if (get_u64(h + detail::kHeaderReserved) != 0)
      fail(detail::kHeaderReserved, "the reserved header field is not 0");
    tables_count_ = get_u64(h + detail::kHeaderTables);
    samples_ = get_u64(h + detail::kHeaderSamples);
    const std::uint64_t body = size - kTraceHeaderBytes;
    // Every section takes at least 32 bytes plus 4 per sample.
    if (tables_count_ == 0 || tables_count_ > kTraceMaxTables)
      fail(detail::kHeaderTables,
           fmt::format("{} tables (expected 1 to {})", tables_count_, kTraceMaxTables));
    if (samples_ > body / 4 || tables_count_ > body / (32 + pad8(4 * samples_)))
      fail(detail::kHeaderTables,
           fmt::format("the header claims {} tables of {} samples, which needs more than the "
                       "{} bytes the file has",
                       tables_count_, samples_, size),
           "the header is corrupt or the file was cut short");
    // The table headers: each section's size from its counts, checked against what remains.
    std::uint64_t offset = kTraceHeaderBytes;
    tables_.reserve(tables_count_);
    for (std::uint64_t t = 0; t < tables_count_; ++t) {
      const std::uint64_t remaining = size - offset;
      if (remaining < detail::kSectionHeaderBytes + 8)
        fail(offset, fmt::format("the file ends before table {} of {}", t, tables_count_),
             "the file was cut short; write it again");
      std::byte s[detail::kSectionHeaderBytes];
      file_.read_at(offset, s);
      Section sec;
      sec.offset = offset;
      sec.info.rows = get_u64(s + detail::kSectionRows);
      sec.info.lookups = get_u64(s + detail::kSectionLookups);
      const std::uint32_t name_bytes = get_u32(s + detail::kSectionNameBytes);
      if (sec.info.rows == 0 || sec.info.rows > kTraceMaxRows)
        fail(offset + detail::kSectionRows,
             fmt::format("table {} has {} rows (expected 1 to 10^13)", t, sec.info.rows));
      if (name_bytes > kTraceMaxNameBytes)
        fail(offset + detail::kSectionNameBytes,
             fmt::format("table {}'s name is {} bytes long (at most {})", t, name_bytes,
                         kTraceMaxNameBytes));
      if (get_u32(s + detail::kSectionReserved) != 0)
        fail(offset + detail::kSectionReserved, fmt::format("table {}: reserved field not 0", t));
      const std::uint64_t fixed =
          detail::kSectionHeaderBytes + pad8(name_bytes) + pad8(4 * samples_) + 8;
      if (fixed > remaining || sec.info.lookups > (remaining - fixed) / 8)
        fail(offset + detail::kSectionLookups,
             fmt::format("table {} claims {} lookups, more than the {} bytes left in the file "
                         "can hold",
                         t, sec.info.lookups, remaining),
             "the table header is corrupt or the file was cut short");
      std::vector<std::byte> name(name_bytes);
      file_.read_at(offset + detail::kSectionHeaderBytes, name);
      sec.info.name.assign(reinterpret_cast<const char*>(name.data()), name.size());
      if (const auto bad = first_invalid_utf8(sec.info.name))
        fail(offset + detail::kSectionHeaderBytes + *bad,
             fmt::format("table {}'s name is not valid UTF-8", t),
             "table names are UTF-8 text; write the file again");
      sec.lengths_offset = offset + detail::kSectionHeaderBytes + pad8(name_bytes);
      sec.rows_offset = sec.lengths_offset + pad8(4 * samples_);
      sec.end = sec.rows_offset + 8 * sec.info.lookups;  // where the checksum is
      offset = sec.end + 8;
      tables_.push_back(std::move(sec));
    }
    if (offset != size)
      fail(offset, fmt::format("{} unexpected bytes after the last table", size - offset),
           "the file is corrupt, or two files were concatenated");
  }

  std::uint64_t num_tables() const override { return tables_count_; }
  std::uint64_t num_samples() const override { return samples_; }
  const TraceTableInfo& table(std::size_t t) const override { return section(t).info; }

  void stream_table(
      std::size_t t, const std::function<void(std::span<const std::uint32_t>)>& on_lengths,
      const std::function<void(std::span<const std::uint64_t>)>& on_rows) const override {
    const Section& sec = section(t);
    Xxh64 hash;
    // Table header, name and its padding.
    std::vector<std::byte> head(sec.lengths_offset - sec.offset);
    file_.read_at(sec.offset, head);
    hash.update(head);
    for (std::size_t i = detail::kSectionHeaderBytes + sec.info.name.size(); i < head.size(); ++i)
      if (head[i] != std::byte{0})
        fail(sec.offset + i, fmt::format("table {}: non-zero padding after its name", t));
    // Lengths.
    std::vector<std::uint32_t> lengths(std::min<std::uint64_t>(samples_, 2 * kTraceChunkEntries));
    std::uint64_t sum = 0;
    for (std::uint64_t done = 0; done < samples_;) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(samples_ - done, lengths.size()));
      const auto bytes = std::as_writable_bytes(std::span(lengths.data(), n));
      file_.read_at(sec.lengths_offset + 4 * done, bytes);
      hash.update(bytes);
      for (std::size_t i = 0; i < n; ++i) sum += lengths[i];
      on_lengths(std::span<const std::uint32_t>(lengths.data(), n));
      done += n;
    }
    if (samples_ % 2 == 1) {
      std::byte pad[4];
      file_.read_at(sec.lengths_offset + 4 * samples_, pad);
      hash.update(pad, 4);
      if (detail::get_u32(pad) != 0)
        fail(sec.lengths_offset + 4 * samples_,
             fmt::format("table {}: non-zero padding after its lengths", t));
    }
    if (sum != sec.info.lookups)
      fail(sec.offset + detail::kSectionLookups,
           fmt::format("table {}: its bag lengths sum to {}, but its header says {} lookups", t,
                       sum, sec.info.lookups),
           "the file is corrupt; write it again");
    // Row ids.
    std::vector<std::uint64_t> rows(std::min<std::uint64_t>(sec.info.lookups, kTraceChunkEntries));
    for (std::uint64_t done = 0; done < sec.info.lookups;) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(sec.info.lookups - done, rows.size()));
      const auto bytes = std::as_writable_bytes(std::span(rows.data(), n));
      file_.read_at(sec.rows_offset + 8 * done, bytes);
      hash.update(bytes);
      std::uint64_t largest = 0;
      for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, rows[i]);
      if (largest >= sec.info.rows) {
        const auto at = std::find_if(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n),
                                     [&](std::uint64_t r) { return r >= sec.info.rows; }) -
                        rows.begin();
        fail(sec.rows_offset + 8 * (done + static_cast<std::uint64_t>(at)),
             fmt::format("table {}: row id {} in a table of {} rows", t, largest, sec.info.rows),
             "the file is corrupt, or its table has fewer rows than its ids need");
      }
      on_rows(std::span<const std::uint64_t>(rows.data(), n));
      done += n;
    }
    std::byte stored[8];
    file_.read_at(sec.end, stored);
    if (get_u64(stored) != hash.digest())
      fail(sec.end,
           fmt::format("table {} ('{}'): the checksum does not match the data", t, sec.info.name),
           "the file is corrupt; write it again");
  }

  void read_lengths(std::size_t t, std::uint64_t first,
                    std::span<std::uint32_t> out) const override {
    const Section& sec = section(t);
    if (first > samples_ || out.size() > samples_ - first)
      throw std::out_of_range("trace file: lengths past the end of the table");
    file_.read_at(sec.lengths_offset + 4 * first, std::as_writable_bytes(out));
  }

  void read_rows(std::size_t t, std::uint64_t first, std::span<std::uint64_t> out) const override {
    const Section& sec = section(t);
    if (first > sec.info.lookups || out.size() > sec.info.lookups - first)
      throw std::out_of_range("trace file: rows past the end of the table");
    file_.read_at(sec.rows_offset + 8 * first, std::as_writable_bytes(out));
  }

 private:
  struct Section {
    TraceTableInfo info;
    std::uint64_t offset = 0;
    std::uint64_t lengths_offset = 0;
    std::uint64_t rows_offset = 0;
    std::uint64_t end = 0;
  };

  const Section& section(std::size_t t) const {
    if (t >= tables_.size()) throw std::out_of_range("trace file: no such table");
    return tables_[t];
  }

  [[noreturn]] void fail(std::uint64_t byte, const std::string& problem,
                         const std::string& hint = {}) const {
    throw InputError(SourceLocation{file_.path()}, key_,
                     fmt::format("at byte {}: {}", byte, problem), hint);
  }

  detail::PosixFile file_;
  std::string key_;
  std::uint64_t tables_count_ = 0;
  std::uint64_t samples_ = 0;
  std::vector<Section> tables_;
};

}  // namespace

bool is_trace_file(const std::string& path) {
  try {
    const detail::PosixFile f = detail::PosixFile::open_read(path, "");
    if (f.size() < 8) return false;
    std::byte magic[8];
    f.read_at(0, magic);
    return std::memcmp(magic, kTraceMagic, 8) == 0;
  } catch (const InputError&) {
    return false;
  }
}

std::unique_ptr<RecordedTrace> open_recorded_trace(const std::string& path,
                                                   const std::string& key) {
  if (is_trace_file(path)) return std::make_unique<BinaryTrace>(path, key);
  const bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  if (csv) return read_trace_csv(path, key);
  // Not ours: let the binary reader say why (missing, too short, wrong magic).
  return std::make_unique<BinaryTrace>(path, key);
}

}  // namespace shardsim
