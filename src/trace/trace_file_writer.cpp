// Writing trace files (docs/traces.md §9): the header, and each table's section at its offset.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/core/parallel_for.hpp"
#include "shardsim/trace/trace_file.hpp"
#include "shardsim/trace/xxhash64.hpp"
#include "trace/trace_file_format.hpp"

namespace shardsim {

using detail::pad8;

namespace detail {

PosixFile::PosixFile(int fd, std::string path, std::string key)
    : fd_(fd), path_(std::move(path)), key_(std::move(key)) {}

PosixFile::PosixFile(PosixFile&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), key_(std::move(other.key_)) {
  other.fd_ = -1;
}

PosixFile::~PosixFile() {
  if (fd_ >= 0) ::close(fd_);
}

PosixFile PosixFile::open_read(const std::string& path, const std::string& key) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw InputError(SourceLocation{path}, key,
                     fmt::format("cannot open the trace file: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(SourceLocation{path}, key, "not a regular file");
  }
  return PosixFile(fd, path, key);
}

PosixFile PosixFile::create(const std::string& path, const std::string& key) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw InputError(SourceLocation{path}, key,
                     fmt::format("cannot create the trace file: {}", std::strerror(errno)));
  return PosixFile(fd, path, key);
}

std::uint64_t PosixFile::size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0)
    throw InputError(SourceLocation{path_}, key_,
                     fmt::format("cannot stat the trace file: {}", std::strerror(errno)));
  return static_cast<std::uint64_t>(st.st_size);
}

void PosixFile::read_at(std::uint64_t offset, std::span<std::byte> out) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw InputError(
          SourceLocation{path_}, key_,
          fmt::format("read error at byte {}: {}", offset + done, std::strerror(errno)));
    if (n == 0)
      throw InputError(SourceLocation{path_}, key_,
                       fmt::format("the file is truncated: it ends at byte {}, inside data that "
                                   "should run to byte {}",
                                   offset + done, offset + out.size()),
                       "the file was cut short (a copy or a write that did not finish); "
                       "write it again");
    done += static_cast<std::size_t>(n);
  }
}

void PosixFile::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    throw InputError(SourceLocation{path_}, key_,
                     fmt::format("error closing the file: {}", std::strerror(errno)));
}

void write_at(int fd, const std::string& path, std::uint64_t offset,
              std::span<const std::byte> data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n =
        ::pwrite(fd, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw InputError(SourceLocation{path}, "",
                       fmt::format("write error at byte {}: {}", offset + done,
                                   n < 0 ? std::strerror(errno) : "nothing written"),
                       "check the free space and permissions of the output folder");
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace detail

std::uint64_t trace_section_bytes(std::string_view name, std::uint64_t samples,
                                  std::uint64_t lookups) {
  return detail::kSectionHeaderBytes + pad8(name.size()) + pad8(4 * samples) + 8 * lookups + 8;
}

struct TraceSectionWriter::State {
  int fd = -1;
  std::string path;
  std::uint64_t offset = 0;  // where the buffer goes
  std::uint64_t rows = 0;
  std::uint64_t samples = 0;
  std::uint64_t lookups = 0;
  std::uint64_t lengths_written = 0;
  std::uint64_t length_sum = 0;
  std::uint64_t rows_written = 0;
  bool finished = false;
  Xxh64 hash;
  std::vector<std::byte> buffer;
};

TraceSectionWriter::TraceSectionWriter(int fd, std::string path, std::uint64_t offset,
                                       std::string_view name, std::uint64_t rows,
                                       std::uint64_t samples, std::uint64_t lookups)
    : s_(std::make_unique<State>()) {
  if (name.size() > kTraceMaxNameBytes)
    throw std::logic_error("trace section: table name longer than kTraceMaxNameBytes");
  if (rows == 0 || rows > kTraceMaxRows) throw std::logic_error("trace section: rows out of range");
  s_->fd = fd;
  s_->path = std::move(path);
  s_->offset = offset;
  s_->rows = rows;
  s_->samples = samples;
  s_->lookups = lookups;
  // A chunk of rows, or the whole section when it is smaller: a trace of many small tables
  // (77,515 tables of 8 samples, found by fuzzing) would otherwise take a 1 MB buffer each.
  s_->buffer.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(
      8 * kTraceChunkEntries, trace_section_bytes(name, samples, lookups))));
  std::byte head[detail::kSectionHeaderBytes] = {};
  detail::put_u64(head + detail::kSectionRows, rows);
  detail::put_u64(head + detail::kSectionLookups, lookups);
  detail::put_u32(head + detail::kSectionNameBytes, static_cast<std::uint32_t>(name.size()));
  put(head, sizeof head);
  put(name.data(), name.size());
  const std::byte zeros[8] = {};
  put(zeros, pad8(name.size()) - name.size());
}

TraceSectionWriter::~TraceSectionWriter() = default;

void TraceSectionWriter::put(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const std::byte*>(data);
  s_->hash.update(p, bytes);
  while (bytes > 0) {
    const std::size_t room = s_->buffer.capacity() - s_->buffer.size();
    const std::size_t take = std::min(room, bytes);
    s_->buffer.insert(s_->buffer.end(), p, p + take);
    p += take;
    bytes -= take;
    if (s_->buffer.size() == s_->buffer.capacity()) flush();
  }
}

void TraceSectionWriter::flush() {
  detail::write_at(s_->fd, s_->path, s_->offset, s_->buffer);
  s_->offset += s_->buffer.size();
  s_->buffer.clear();
}

void TraceSectionWriter::write_lengths(std::span<const std::uint32_t> lengths) {
  if (s_->lengths_written + lengths.size() > s_->samples)
    throw std::logic_error("trace section: more lengths than samples");
  for (std::uint32_t l : lengths) s_->length_sum += l;
  s_->lengths_written += lengths.size();
  put(lengths.data(), lengths.size_bytes());
  if (s_->lengths_written == s_->samples) {
    if (s_->length_sum != s_->lookups)
      throw std::logic_error(fmt::format("trace section: the lengths sum to {}, not to {} lookups",
                                         s_->length_sum, s_->lookups));
    const std::byte zeros[8] = {};
    put(zeros, pad8(4 * s_->samples) - 4 * s_->samples);
  }
}

void TraceSectionWriter::write_rows(std::span<const std::uint64_t> rows) {
  if (s_->lengths_written != s_->samples || s_->length_sum != s_->lookups)
    throw std::logic_error(
        "trace section: rows written before all lengths, or lengths that do "
        "not sum to the lookups");
  if (s_->rows_written + rows.size() > s_->lookups)
    throw std::logic_error("trace section: more rows than lookups");
  std::uint64_t largest = 0;
  for (std::uint64_t r : rows) largest = std::max(largest, r);
  if (!rows.empty() && largest >= s_->rows)
    throw std::logic_error(
        fmt::format("trace section: row {} in a table of {} rows", largest, s_->rows));
  s_->rows_written += rows.size();
  put(rows.data(), rows.size_bytes());
}

void TraceSectionWriter::finish() {
  if (s_->finished) return;
  if (s_->lengths_written != s_->samples || s_->rows_written != s_->lookups ||
      s_->length_sum != s_->lookups)
    throw std::logic_error(fmt::format("trace section: {} of {} lengths and {} of {} rows written",
                                       s_->lengths_written, s_->samples, s_->rows_written,
                                       s_->lookups));
  std::byte sum[8];
  detail::put_u64(sum, s_->hash.digest());
  s_->buffer.insert(s_->buffer.end(), sum, sum + 8);  // the checksum is not hashed
  flush();
  s_->finished = true;
}

void write_trace_file(const std::string& path, std::uint64_t samples,
                      std::span<const TraceTableInfo> tables, int jobs,
                      const std::function<void(std::size_t, TraceSectionWriter&)>& fill) {
  if (tables.empty() || tables.size() > kTraceMaxTables)
    throw std::logic_error("write_trace_file: between 1 and kTraceMaxTables tables");
  detail::PosixFile file = detail::PosixFile::create(path, "");
  std::byte header[kTraceHeaderBytes] = {};
  std::memcpy(header + detail::kHeaderMagic, kTraceMagic, 8);
  detail::put_u32(header + detail::kHeaderVersion, kTraceVersion);
  detail::put_u32(header + detail::kHeaderByteOrder, kTraceByteOrderMark);
  detail::put_u64(header + detail::kHeaderTables, tables.size());
  detail::put_u64(header + detail::kHeaderSamples, samples);
  detail::put_u64(header + detail::kHeaderChecksum,
                  xxh64(std::span<const std::byte>(header, detail::kHeaderChecksum)));
  detail::write_at(file.fd(), path, 0, header);

  std::vector<std::uint64_t> offsets(tables.size() + 1, kTraceHeaderBytes);
  for (std::size_t t = 0; t < tables.size(); ++t)
    offsets[t + 1] = offsets[t] + trace_section_bytes(tables[t].name, samples, tables[t].lookups);

  parallel_for(tables.size(), jobs, [&](std::size_t t) {
    TraceSectionWriter w(file.fd(), path, offsets[t], tables[t].name, tables[t].rows, samples,
                         tables[t].lookups);
    fill(t, w);
    w.finish();
  });
  file.close();
}

void write_trace_file(const std::string& path, const RecordedTrace& trace) {
  std::vector<TraceTableInfo> tables;
  for (std::size_t t = 0; t < trace.num_tables(); ++t) tables.push_back(trace.table(t));
  write_trace_file(path, trace.num_samples(), tables, 1, [&](std::size_t t, TraceSectionWriter& w) {
    trace.stream_table(
        t, [&](std::span<const std::uint32_t> l) { w.write_lengths(l); },
        [&](std::span<const std::uint64_t> r) { w.write_rows(r); });
  });
}

}  // namespace shardsim
