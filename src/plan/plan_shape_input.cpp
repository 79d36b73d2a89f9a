// The shape of a model on a cluster, for the planners' shape bounds (plan/plan_shape_bound.hpp).
#include <cmath>

#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/plan_shape_bound.hpp"

namespace shardsim {

PlanShapeInput plan_shape_input(const HardwarePreset& preset, int nodes, const DlrmModel& model,
                                const Workload& workload) {
  PlanShapeInput in;
  in.tables = static_cast<double>(model.tables.size());
  in.gpus = static_cast<double>(nodes) * preset.gpus_per_node;
  in.gpus_per_node = preset.gpus_per_node;
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    const EmbeddingTable& table = model.tables[t];
    in.column_blocks += std::ceil(table.dim / 4.0);
    const Shard whole = whole_table_shard(t, table.rows, table.dim);
    in.table_bytes +=
        shard_weight_bytes(whole, model) + shard_optimizer_bytes(whole, model, workload.mode);
  }
  in.hbm_bytes_per_gpu = preset.gpu.hbm_capacity_bytes;
  in.base_bytes_per_gpu = base_gpu_memory(preset, model, workload).total_bytes();
  return in;
}

}  // namespace shardsim
