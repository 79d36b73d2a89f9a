#include "shardsim/trace/xxhash64.hpp"

#include <bit>
#include <cstring>

namespace shardsim {

namespace {

constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

// Little-endian loads (the hash is defined on little-endian words).
std::uint64_t load64(const std::byte* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
std::uint32_t load32(const std::byte* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

std::uint64_t round(std::uint64_t acc, std::uint64_t input) {
  acc += input * kPrime2;
  acc = std::rotl(acc, 31);
  return acc * kPrime1;
}

std::uint64_t merge_round(std::uint64_t acc, std::uint64_t val) {
  acc ^= round(0, val);
  return acc * kPrime1 + kPrime4;
}

}  // namespace

Xxh64::Xxh64() : acc_{kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1} {}

void Xxh64::update(std::span<const std::byte> data) {
  if (data.empty()) return;  // data() may be null, which memcpy must not see
  const std::byte* p = data.data();
  std::size_t n = data.size();
  total_ += n;
  if (buffered_ > 0) {
    const std::size_t take = std::min(n, 32 - buffered_);
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    n -= take;
    if (buffered_ < 32) return;
    for (int i = 0; i < 4; ++i) acc_[i] = round(acc_[i], load64(buffer_ + 8 * i));
    buffered_ = 0;
  }
  std::uint64_t a0 = acc_[0], a1 = acc_[1], a2 = acc_[2], a3 = acc_[3];
  for (; n >= 32; p += 32, n -= 32) {
    a0 = round(a0, load64(p));
    a1 = round(a1, load64(p + 8));
    a2 = round(a2, load64(p + 16));
    a3 = round(a3, load64(p + 24));
  }
  acc_[0] = a0, acc_[1] = a1, acc_[2] = a2, acc_[3] = a3;
  if (n > 0) {
    std::memcpy(buffer_, p, n);
    buffered_ = n;
  }
}

std::uint64_t Xxh64::digest() const {
  std::uint64_t h;
  if (total_ >= 32) {
    h = std::rotl(acc_[0], 1) + std::rotl(acc_[1], 7) + std::rotl(acc_[2], 12) +
        std::rotl(acc_[3], 18);
    for (int i = 0; i < 4; ++i) h = merge_round(h, acc_[i]);
  } else {
    h = kPrime5;  // seed 0: acc_[2] == seed
  }
  h += total_;
  const std::byte* p = buffer_;
  std::size_t n = buffered_;
  for (; n >= 8; p += 8, n -= 8) {
    h ^= round(0, load64(p));
    h = std::rotl(h, 27) * kPrime1 + kPrime4;
  }
  if (n >= 4) {
    h ^= static_cast<std::uint64_t>(load32(p)) * kPrime1;
    h = std::rotl(h, 23) * kPrime2 + kPrime3;
    p += 4;
    n -= 4;
  }
  for (; n > 0; ++p, --n) {
    h ^= static_cast<std::uint64_t>(std::to_integer<unsigned>(*p)) * kPrime5;
    h = std::rotl(h, 11) * kPrime1;
  }
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

std::uint64_t xxh64(std::span<const std::byte> data) {
  Xxh64 h;
  h.update(data);
  return h.digest();
}

}  // namespace shardsim
