// TorchRec's sharding types and compute kernels (plan/torchrec/estimators.hpp): their names, how
// the partitioner places their shards, and the row and column splits of a table into shards.
// Section references are to the files of pytorch/torchrec@a48cef79 named there.
#include "plan/torchrec/estimators.hpp"

#include <algorithm>
#include <stdexcept>

namespace shardsim::torchrec {

std::string to_string(ShardingType t) {
  switch (t) {
    case ShardingType::data_parallel:
      return "data_parallel";
    case ShardingType::table_wise:
      return "table_wise";
    case ShardingType::column_wise:
      return "column_wise";
    case ShardingType::table_column_wise:
      return "table_column_wise";
    case ShardingType::row_wise:
      return "row_wise";
    case ShardingType::table_row_wise:
      return "table_row_wise";
  }
  throw std::logic_error("unknown torchrec sharding type");
}

std::string abbreviation(ShardingType t) {
  switch (t) {
    case ShardingType::data_parallel:
      return "DP";
    case ShardingType::table_wise:
      return "TW";
    case ShardingType::column_wise:
      return "CW";
    case ShardingType::table_column_wise:
      return "TWCW";
    case ShardingType::row_wise:
      return "RW";
    case ShardingType::table_row_wise:
      return "TWRW";
  }
  throw std::logic_error("unknown torchrec sharding type");
}

std::string to_string(ComputeKernel k) {
  switch (k) {
    case ComputeKernel::dense:
      return "dense";
    case ComputeKernel::fused:
      return "fused";
    case ComputeKernel::fused_uvm:
      return "fused_uvm";
    case ComputeKernel::fused_uvm_caching:
      return "fused_uvm_caching";
  }
  throw std::logic_error("unknown torchrec compute kernel");
}

PartitionBy partition_by(ShardingType t) {
  switch (t) {
    case ShardingType::table_wise:
    case ShardingType::column_wise:
      return PartitionBy::device;
    case ShardingType::table_column_wise:
    case ShardingType::table_row_wise:
      return PartitionBy::host;
    case ShardingType::data_parallel:
    case ShardingType::row_wise:
      return PartitionBy::uniform;
  }
  throw std::logic_error("unknown torchrec sharding type");
}

std::vector<RowRange> row_split(std::uint64_t rows, int n) {
  // sharding_plan.py, _calculate_rw_shard_sizes_and_offsets: block = ceil(rows / n).
  const auto un = static_cast<std::uint64_t>(n);
  const std::uint64_t block = (rows + un - 1) / un;
  std::vector<RowRange> out;
  std::uint64_t begin = 0;
  for (std::uint64_t r = 0; r < un; ++r) {
    const std::uint64_t size = std::min(block, rows - begin);
    out.push_back(RowRange{begin, begin + size});
    begin += size;
  }
  return out;
}

std::vector<ColRange> column_split(std::uint32_t dim, std::uint32_t min_column_shard_dim,
                                   Version version) {
  if (version == Version::v0_3_2) {
    // v0.3.2's _calculate_cw_shard_sizes_and_offsets: blocks of min(min, dim), dim // block of
    // them, the remainder added to the last.
    const std::uint32_t block = std::max<std::uint32_t>(1, std::min(min_column_shard_dim, dim));
    const std::uint32_t n = std::max<std::uint32_t>(1, dim / block);
    std::vector<ColRange> out;
    for (std::uint32_t i = 0; i < n; ++i) {
      out.push_back(ColRange{i * block, i + 1 == n ? dim : (i + 1) * block});
    }
    return out;
  }
  // sharding_plan.py, _find_base_dim: the first i in [min, dim) with dim % i == 0 and i % 4 == 0,
  // else dim; a block that does not divide dim falls back to one block.
  std::uint32_t block = dim;
  for (std::uint32_t i = min_column_shard_dim; i < dim; ++i) {
    if (dim % i == 0 && i % 4 == 0) {
      block = i;
      break;
    }
  }
  block = std::min(block, dim);
  if (block == 0 || dim % block != 0) block = dim;
  std::vector<ColRange> out;
  for (std::uint32_t c = 0; c < dim; c += block) out.push_back(ColRange{c, c + block});
  if (out.empty()) out.push_back(ColRange{0, dim});
  return out;
}

}  // namespace shardsim::torchrec
