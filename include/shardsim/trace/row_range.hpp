#pragma once
#include <cstdint>

namespace shardsim {

// A half-open range [begin, end) of rows of one table.
struct RowRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t size() const { return end - begin; }
  bool operator==(const RowRange&) const = default;
};

// Whether a RowRange counts row ids (as stored) or popularity ranks (0 = hottest row).
// With the `clustered` layout they coincide; with `scattered` a bijective hash maps ranks to ids.
enum class RowSpace { row_id, rank };

}  // namespace shardsim
