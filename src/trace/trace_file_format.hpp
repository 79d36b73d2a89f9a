#pragma once
// Private to the trace module: POSIX file access and little-endian encoding for trace files
// (docs/traces.md §9).
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace shardsim::detail {

static_assert(std::endian::native == std::endian::little,
              "trace files store little-endian integers and are read and written by copying "
              "memory; a big-endian host would need byte swaps");

// An open file descriptor, closed on destruction. I/O errors are InputErrors naming the path.
class PosixFile {
 public:
  static PosixFile open_read(const std::string& path, const std::string& key);
  static PosixFile create(const std::string& path, const std::string& key);
  PosixFile(PosixFile&& other) noexcept;
  PosixFile& operator=(PosixFile&&) = delete;
  PosixFile(const PosixFile&) = delete;
  ~PosixFile();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  std::uint64_t size() const;
  // Reads exactly out.size() bytes at `offset`; a short read is an InputError ("truncated").
  void read_at(std::uint64_t offset, std::span<std::byte> out) const;
  void close();  // reports a failed close (e.g. a full disk) as an InputError

 private:
  PosixFile(int fd, std::string path, std::string key);
  int fd_ = -1;
  std::string path_;
  std::string key_;
};

// Writes all of `data` at `offset` of `fd`; a failure is an InputError naming `path`.
void write_at(int fd, const std::string& path, std::uint64_t offset,
              std::span<const std::byte> data);

inline std::uint64_t pad8(std::uint64_t bytes) {
  return (bytes + 7) / 8 * 8;
}

inline void put_u32(std::byte* p, std::uint32_t v) {
  std::memcpy(p, &v, 4);
}
inline void put_u64(std::byte* p, std::uint64_t v) {
  std::memcpy(p, &v, 8);
}
inline std::uint32_t get_u32(const std::byte* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline std::uint64_t get_u64(const std::byte* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Byte offsets inside the 48-byte header and a section's 24-byte table header.
inline constexpr std::size_t kHeaderMagic = 0, kHeaderVersion = 8, kHeaderByteOrder = 12,
                             kHeaderTables = 16, kHeaderSamples = 24, kHeaderReserved = 32,
                             kHeaderChecksum = 40;
inline constexpr std::size_t kSectionRows = 0, kSectionLookups = 8, kSectionNameBytes = 16,
                             kSectionReserved = 20, kSectionHeaderBytes = 24;

}  // namespace shardsim::detail
