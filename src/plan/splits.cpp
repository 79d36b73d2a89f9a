#include "plan/splits.hpp"

#include <algorithm>

namespace shardsim {

std::vector<RowRange> even_row_ranges(std::uint64_t rows, std::uint64_t parts) {
  std::vector<RowRange> out;
  parts = std::min(parts, rows);
  if (parts == 0) return out;
  const std::uint64_t base = rows / parts, extra = rows % parts;
  std::uint64_t begin = 0;
  for (std::uint64_t i = 0; i < parts; ++i) {
    const std::uint64_t size = base + (i < extra ? 1 : 0);
    out.push_back({begin, begin + size});
    begin += size;
  }
  return out;
}

std::vector<RowRange> rank_balanced_ranges(const AccessProfile& profile, std::uint64_t parts) {
  const std::uint64_t rows = profile.num_rows();
  parts = std::min(parts, rows);
  std::vector<RowRange> out;
  if (parts == 0) return out;
  const double n = static_cast<double>(rows);
  auto weight = [&](std::uint64_t r) {
    return 0.5 * (profile.mass({0, r}, RowSpace::rank) + static_cast<double>(r) / n);
  };
  std::uint64_t begin = 0;
  for (std::uint64_t i = 1; i <= parts; ++i) {
    std::uint64_t end = rows;
    if (i < parts) {
      // Smallest r with weight(r) >= i / parts, leaving at least one row for each later range.
      const double target = static_cast<double>(i) / static_cast<double>(parts);
      std::uint64_t lo = begin + 1, hi = rows - (parts - i);
      while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (weight(mid) >= target)
          hi = mid;
        else
          lo = mid + 1;
      }
      end = lo;
    }
    out.push_back({begin, end});
    begin = end;
  }
  return out;
}

std::vector<ColRange> column_blocks(std::uint32_t dim, std::uint32_t parts) {
  // Whole 4-column units, spread as evenly as possible; a remainder of dim % 4 joins the last.
  const std::uint32_t units = std::max<std::uint32_t>(1, dim / kColumnAlignment);
  parts = std::clamp<std::uint32_t>(parts, 1, units);
  std::vector<ColRange> out;
  const std::uint32_t base = units / parts, extra = units % parts;
  std::uint32_t begin = 0;
  for (std::uint32_t i = 0; i < parts; ++i) {
    const std::uint32_t u = base + (i < extra ? 1 : 0);
    const std::uint32_t end = i + 1 == parts ? dim : begin + u * kColumnAlignment;
    out.push_back({begin, end});
    begin = end;
  }
  return out;
}

std::vector<ColRange> fixed_column_blocks(std::uint32_t dim, std::uint32_t cols_per_block) {
  std::vector<ColRange> out;
  for (std::uint32_t b = 0; b < dim; b += cols_per_block) {
    out.push_back({b, std::min(dim, b + cols_per_block)});
  }
  return out;
}

}  // namespace shardsim
