#include "shardsim/plan/plan.hpp"

namespace shardsim {

std::string to_string(StorageKind k) {
  switch (k) {
    case StorageKind::hbm:
      return "hbm";
    case StorageKind::uvm:
      return "uvm";
    case StorageKind::uvm_caching:
      return "uvm_caching";
  }
  return "?";
}

std::string to_string(ShardKind k) {
  switch (k) {
    case ShardKind::table_wise:
      return "table_wise";
    case ShardKind::row_wise:
      return "row_wise";
    case ShardKind::column_wise:
      return "column_wise";
    case ShardKind::data_parallel:
      return "data_parallel";
    case ShardKind::fine_grained:
      return "fine_grained";
  }
  return "?";
}

std::string to_string(LookupComm c) {
  switch (c) {
    case LookupComm::pooled:
      return "pooled";
    case LookupComm::one_sided:
      return "one_sided";
  }
  return "?";
}

std::string to_string(ReplicaSync s) {
  switch (s) {
    case ReplicaSync::dense:
      return "dense";
    case ReplicaSync::allgather:
      return "allgather";
    case ReplicaSync::local_aggregated:
      return "local_aggregated";
  }
  return "?";
}

std::string to_string(PeerSyncMode m) {
  switch (m) {
    case PeerSyncMode::dense:
      return "dense";
    case PeerSyncMode::touched_rows:
      return "touched_rows";
  }
  return "?";
}

}  // namespace shardsim
