#pragma once
// Memory footprint of one embedding table (weights and optimizer state), in bytes.
#include "shardsim/core/precision.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/embedding_table.hpp"

namespace shardsim {

// rows x embedding_row_bytes(precision, dim, kernel) (core/precision.hpp: quantised rows carry
// their scale and bias).
double table_weight_bytes(const EmbeddingTable& table, Precision precision,
                          TableKernel kernel = TableKernel::training);
// rows x optimizer_state_bytes_per_row(optimizer, dim).
double table_optimizer_state_bytes(const EmbeddingTable& table, OptimizerKind optimizer);

}  // namespace shardsim
