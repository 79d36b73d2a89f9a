#include "shardsim/sim/task.hpp"

namespace shardsim {

std::string to_string(Stream s) {
  switch (s) {
    case Stream::dense_compute:
      return "dense_compute";
    case Stream::sparse_compute:
      return "sparse_compute";
    case Stream::sparse_comm:
      return "sparse_comm";
    case Stream::dense_comm:
      return "dense_comm";
    case Stream::input_comm:
      return "input_comm";
    case Stream::host:
      return "host";
    case Stream::ingest:
      return "ingest";
  }
  return "?";
}

std::string to_string(Phase p) {
  switch (p) {
    case Phase::input_alltoall:
      return "input_alltoall";
    case Phase::bottom_mlp_fwd:
      return "bottom_mlp_fwd";
    case Phase::embedding_lookup_fwd:
      return "embedding_lookup_fwd";
    case Phase::alltoall_fwd:
      return "alltoall_fwd";
    case Phase::interaction_fwd:
      return "interaction_fwd";
    case Phase::top_mlp_fwd:
      return "top_mlp_fwd";
    case Phase::top_mlp_bwd:
      return "top_mlp_bwd";
    case Phase::interaction_bwd:
      return "interaction_bwd";
    case Phase::alltoall_bwd:
      return "alltoall_bwd";
    case Phase::embedding_update_bwd:
      return "embedding_update_bwd";
    case Phase::bottom_mlp_bwd:
      return "bottom_mlp_bwd";
    case Phase::mlp_allreduce:
      return "mlp_allreduce";
    case Phase::dense_optimizer:
      return "dense_optimizer";
    case Phase::embedding_replica_allreduce:
      return "embedding_replica_allreduce";
    case Phase::embedding_replica_sync:
      return "embedding_replica_sync";
    case Phase::host_step:
      return "host_step";
    case Phase::input_ingest:
      return "input_ingest";
  }
  return "?";
}

int TaskGraph::add_task(Task t) {
  tasks.push_back(std::move(t));
  return static_cast<int>(tasks.size()) - 1;
}

int TaskGraph::add_demand(CollectiveDemand d) {
  demands.push_back(std::move(d));
  return static_cast<int>(demands.size()) - 1;
}

int TaskGraph::add_collective(std::span<const int> gpus, Stream stream, Phase phase,
                              double duration_s, double bytes,
                              const std::vector<std::vector<int>>& deps_per_member, int demand) {
  const int c = static_cast<int>(collectives.size());
  Collective coll;
  coll.duration_s = duration_s;
  coll.bytes = bytes;
  coll.demand = demand;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    Task t;
    t.gpu = gpus[i];
    t.stream = stream;
    t.phase = phase;
    t.duration_s = duration_s;
    t.collective = c;
    t.deps = deps_per_member[i];
    coll.members.push_back(add_task(std::move(t)));
  }
  collectives.push_back(std::move(coll));
  return c;
}

}  // namespace shardsim
