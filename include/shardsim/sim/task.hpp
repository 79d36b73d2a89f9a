#pragma once
// The work of one iteration as a DAG of tasks on per-GPU streams. Tasks carry durations already
// computed by the cost model; the engine never sees planners or formulas.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shardsim/cost/collective_demand.hpp"

namespace shardsim {

// Each GPU has five in-order streams, so that the overlaps of Neo App. B Eq. 1 and §4.2 happen:
// dense compute (MLPs, interaction), sparse compute (embedding kernels), sparse communication
// (pooled-embedding AlltoAlls), dense communication (gradient AllReduces) and input
// communication (the index AlltoAll of the next batch, "using a separate stream", Neo §4.2).
// A sixth holds the host's work per iteration (docs/model.md, "Host overhead"), a seventh the
// delivery of each batch's inputs over the frontend network and PCIe (docs/model.md, "Data
// ingestion"): neither is the GPU's.
enum class Stream : std::uint8_t {
  dense_compute,
  sparse_compute,
  sparse_comm,
  dense_comm,
  input_comm,
  host,
  ingest
};
inline constexpr int kNumStreams = 7;
std::string to_string(Stream s);
inline bool is_comm(Stream s) {
  return s == Stream::sparse_comm || s == Stream::dense_comm || s == Stream::input_comm;
}
// Whether a task on `s` occupies the GPU (every stream but the host's and the input delivery's).
inline bool on_gpu(Stream s) {
  return s != Stream::host && s != Stream::ingest;
}

enum class Phase : std::uint8_t {
  input_alltoall,
  bottom_mlp_fwd,
  embedding_lookup_fwd,
  alltoall_fwd,
  interaction_fwd,
  top_mlp_fwd,
  top_mlp_bwd,
  interaction_bwd,
  alltoall_bwd,
  embedding_update_bwd,
  bottom_mlp_bwd,
  mlp_allreduce,
  dense_optimizer,              // the dense parameters' update, after their AllReduce
  embedding_replica_allreduce,  // gradients of data-parallel replicas, before the update
  embedding_replica_sync,       // 2D: weights + optimizer state across groups, after the update
  host_step,                    // the host's time per iteration (cost/host_step_cost.hpp)
  input_ingest,                 // the batch's inputs over the frontend network and PCIe
};
inline constexpr int kNumPhases = 17;
std::string to_string(Phase p);

struct Task {
  int gpu = 0;
  Stream stream = Stream::dense_compute;
  Phase phase = Phase::bottom_mlp_fwd;
  double duration_s = 0;  // for a collective member: the collective's duration
  int collective = -1;    // index into TaskGraph::collectives, or -1
  std::vector<int> deps;  // tasks (same graph) that must finish first
};

// A collective: its member tasks (one per participating GPU) start together once every member
// is ready, and end together. With a network demand it lasts as long as its flows take on the
// shared links; without one, `duration_s`.
struct Collective {
  std::vector<int> members;
  double duration_s = 0;  // its α-β time on an idle network
  double bytes = 0;       // total bytes moved, for reports
  int demand = -1;        // index into TaskGraph::demands, or -1: a fixed duration
  double tail_s = 0;      // the slowest member's lag after the collective's flows end
};

struct TaskGraph {
  std::vector<Task> tasks;
  std::vector<Collective> collectives;
  // Network demands of collectives; several collectives may share one (e.g. the same AlltoAll
  // in every iteration).
  std::vector<CollectiveDemand> demands;

  int add_task(Task t);
  int add_demand(CollectiveDemand d);
  // Adds one member task per GPU in `gpus` (each with its own deps) and the collective.
  int add_collective(std::span<const int> gpus, Stream stream, Phase phase, double duration_s,
                     double bytes, const std::vector<std::vector<int>>& deps_per_member,
                     int demand = -1);
};

}  // namespace shardsim
