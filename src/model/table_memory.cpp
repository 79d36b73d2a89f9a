#include "shardsim/model/table_memory.hpp"

namespace shardsim {

double table_weight_bytes(const EmbeddingTable& table, Precision precision, TableKernel kernel) {
  return static_cast<double>(table.rows) * embedding_row_bytes(precision, table.dim, kernel);
}

double table_optimizer_state_bytes(const EmbeddingTable& table, OptimizerKind optimizer) {
  return static_cast<double>(table.rows) * optimizer_state_bytes_per_row(optimizer, table.dim);
}

}  // namespace shardsim
