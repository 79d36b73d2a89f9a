#pragma once
// Content hashes, for telling whether two runs had the same inputs (core/input_hashes.hpp). Not
// cryptographic: they detect accidental change, not tampering. The hash of a YAML document over
// its canonical text is yaml_content_hash (core/yaml_reader.hpp).
#include <cstdint>
#include <string>
#include <string_view>

namespace shardsim {

// The 64-bit FNV-1a hash of `bytes` (offset basis 14695981039346656037, prime 1099511628211).
std::uint64_t fnv1a64(std::string_view bytes);

// "fnv1a64:" followed by the 16 lowercase hex digits of the 64-bit FNV-1a hash of `text`.
// The prefix names the algorithm, so a later change of algorithm is recognisable.
std::string content_hash(std::string_view text);

}  // namespace shardsim
