#pragma once
// io-private, shared by the plan-file reader and writer (io/plan_file.hpp): one entry of a
// table's list and the shard kind a file leaves implicit.
#include <utility>
#include <vector>

#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim::plan_file {

// One entry of a table's list: a block (rows, cols) and the GPUs of its replicas.
struct Entry {
  RowRange rows;
  RowSpace space = RowSpace::row_id;
  ColRange cols;
  std::vector<std::pair<int, int>> replicas;  // (replica, gpu)
  ShardKind kind = ShardKind::table_wise;
  ShardStorage storage;  // of every replica (an entry groups replicas with the same storage)
};

// The kind an entry without `kind:` has: replicas are data parallel, a column range column-wise,
// a row range row-wise, the whole table table-wise.
inline ShardKind inferred_kind(const Entry& e, const EmbeddingTable& t) {
  if (e.replicas.size() > 1) return ShardKind::data_parallel;
  if (e.cols.begin != 0 || e.cols.end != t.dim) return ShardKind::column_wise;
  if (e.rows.begin != 0 || e.rows.end != t.rows) return ShardKind::row_wise;
  return ShardKind::table_wise;
}

}  // namespace shardsim::plan_file
