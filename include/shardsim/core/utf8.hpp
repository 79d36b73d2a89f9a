#pragma once
// UTF-8 validation. Every text shardsim reads (YAML documents, their decoded strings, names in
// trace files) must be valid UTF-8, because reports, plan files and input hashes write them as
// JSON, which cannot hold anything else (docs/robustness.md).
#include <cstddef>
#include <optional>
#include <string_view>

namespace shardsim {

// The byte offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF), or nullopt when all of `text` is
// valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace shardsim
