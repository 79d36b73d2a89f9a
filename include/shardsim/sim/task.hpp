#pragma once
// The work of one iteration as a DAG of tasks on per-GPU streams. Tasks carry durations already
// computed by the cost model; the engine never sees planners or formulas.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace shardsim {

// Each GPU has four in-order streams, so that the overlaps of Neo App. B Eq. 1 happen:
// dense compute (MLPs, interaction), sparse compute (embedding kernels), sparse communication
// (embedding AlltoAlls) and dense communication (gradient AllReduces).
enum class Stream : std::uint8_t { dense_compute, sparse_compute, sparse_comm, dense_comm };
inline constexpr int kNumStreams = 4;
std::string to_string(Stream s);
inline bool is_comm(Stream s) {
  return s == Stream::sparse_comm || s == Stream::dense_comm;
}

enum class Phase : std::uint8_t {
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
  embedding_replica_allreduce,
};
inline constexpr int kNumPhases = 12;
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
// is ready, and end together.
struct Collective {
  std::vector<int> members;
  double duration_s = 0;
  double bytes = 0;  // total bytes moved, for reports
};

struct TaskGraph {
  std::vector<Task> tasks;
  std::vector<Collective> collectives;

  int add_task(Task t);
  // Adds one member task per GPU in `gpus` (each with its own deps) and the collective.
  int add_collective(std::span<const int> gpus, Stream stream, Phase phase, double duration_s,
                     double bytes, const std::vector<std::vector<int>>& deps_per_member);
};

}  // namespace shardsim
