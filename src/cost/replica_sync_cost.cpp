#include "shardsim/cost/replica_sync_cost.hpp"

namespace shardsim {

double replica_memory_overhead_bytes(double table_bytes, int groups, int gpus) {
  return table_bytes * (groups - 1) / gpus;
}

double replica_sync_eq1_s(double table_bytes, int groups, int gpus, double sync_Bps) {
  return 2.0 * table_bytes * (groups - 1) / (static_cast<double>(gpus) * sync_Bps);
}

}  // namespace shardsim
