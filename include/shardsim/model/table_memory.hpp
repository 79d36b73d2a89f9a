#pragma once
// Memory footprint of one embedding table (weights and optimizer state), in bytes.
#include "shardsim/core/precision.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/embedding_table.hpp"

namespace shardsim {

// rows x dim x bytes per element of `precision`.
double table_weight_bytes(const EmbeddingTable& table, Precision precision);
// rows x optimizer_state_bytes_per_row(optimizer, dim).
double table_optimizer_state_bytes(const EmbeddingTable& table, OptimizerKind optimizer);

}  // namespace shardsim
