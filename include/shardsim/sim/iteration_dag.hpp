#pragma once
// The DAG of one iteration (Neo App. B Eq. 1, with the pipelining of Neo §4.2): per GPU, tasks
// on five in-order streams (dense compute, sparse compute, sparse communication, dense
// communication, input communication) and the collectives between them, from the per-plan
// traffic (plan_traffic.hpp) and this iteration's draw (iteration_draw.hpp). Training is forward
// and backward; inference is the forward pass only.
#include <array>
#include <span>
#include <vector>

#include "shardsim/plan/peer_sync.hpp"
#include "shardsim/sim/iteration_draw.hpp"
#include "shardsim/sim/plan_traffic.hpp"
#include "shardsim/sim/simulation_inputs.hpp"
#include "shardsim/sim/task.hpp"

namespace shardsim {

// What one iteration added to the graph, and its per-GPU embedding statistics.
struct IterationTasks {
  int first_task = 0;  // tasks [first_task, end_task) belong to this iteration
  int end_task = 0;
  // The last task of each stream of each GPU (-1 if none): the next iteration waits for them.
  std::vector<std::array<int, kNumStreams>> last_by_gpu;
  // Each GPU's interaction forward: the next batch's input AlltoAll starts after it, with the
  // top MLP forward (Neo §4.2). -1 if none.
  std::vector<int> interaction_fwd_by_gpu;
  std::vector<double> lookups_by_gpu;          // lookups served by each GPU's shards
  std::vector<double> lookup_s_by_gpu;         // embedding forward + backward kernel time per GPU
  std::vector<double> host_link_bytes_by_gpu;  // over each GPU's host link (tables in host memory)
  // Indices into TaskGraph::demands of the demands every iteration shares (added by the first).
  std::vector<int> shared_demands;
};

// Appends iteration `iteration` to `graph`: its first tasks on each GPU depend on `previous`'s
// last tasks on that GPU (nullptr for the first iteration). `factor[g]` multiplies GPU g's dense
// kernel times (the draw's embedding times already include it).
IterationTasks emit_iteration(TaskGraph& graph, const SimulationInputs& in,
                              const PlanTraffic& traffic, const PeerSyncs& peer_syncs,
                              IterationDraw draw, std::span<const double> factor, int iteration,
                              const IterationTasks* previous);

}  // namespace shardsim
