// FNV-1a content hashes of text (core/content_hash.hpp).
#include "shardsim/core/content_hash.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace shardsim {

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

std::string content_hash(std::string_view text) {
  return fmt::format("fnv1a64:{:016x}", fnv1a64(text));
}

}  // namespace shardsim
