// FNV-1a content hashes of text (core/content_hash.hpp).
#include "shardsim/core/content_hash.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace shardsim {

std::string content_hash(std::string_view text) {
  // FNV-1a, 64 bits: offset basis 14695981039346656037, prime 1099511628211.
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

}  // namespace shardsim
