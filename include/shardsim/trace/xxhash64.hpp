#pragma once
// XXH64 (seed 0), the checksum of trace files (docs/traces.md §9), computed incrementally. The
// algorithm is Yann Collet's xxHash64 (https://github.com/Cyan4973/xxHash, doc/xxhash_spec.md),
// so `xxhsum -H64` on the same bytes gives the same value.
#include <cstddef>
#include <cstdint>
#include <span>

namespace shardsim {

class Xxh64 {
 public:
  Xxh64();
  void update(std::span<const std::byte> data);
  void update(const void* data, std::size_t size) {
    update(std::span<const std::byte>(static_cast<const std::byte*>(data), size));
  }
  // The hash of everything passed to update() so far (does not change the state).
  std::uint64_t digest() const;

 private:
  std::uint64_t acc_[4];
  std::uint64_t total_ = 0;
  std::byte buffer_[32];
  std::size_t buffered_ = 0;
};

// The XXH64 (seed 0) of one buffer.
std::uint64_t xxh64(std::span<const std::byte> data);

}  // namespace shardsim
