#pragma once
// The discrete-event engine: a time-ordered event queue with deterministic tie breaking, in-order
// streams per GPU, collectives that start when every participant has arrived. A collective with
// a network demand moves its flows over links shared with every concurrent collective (max-min
// fair sharing, sim/fair_share_network.hpp); one without lasts its fixed duration. It replays a
// task graph (all iterations) and returns when each task started and ended.
#include <cstdint>
#include <span>
#include <vector>

#include "shardsim/sim/network_model.hpp"
#include "shardsim/sim/task.hpp"

namespace shardsim {

struct TaskSpan {
  double ready_s = 0;  // when it reached the head of its stream with its dependencies met
  double start_s = 0;  // when it started (collectives: when the last member arrived)
  double end_s = 0;
};

struct Timeline {
  std::vector<TaskSpan> spans;  // indexed like TaskGraph::tasks
  std::uint64_t events = 0;     // events processed (task ends, stage starts, flow completions)
  std::uint64_t flows = 0;      // network flows moved
  double makespan_s = 0;
  // Utilisation changes of every link, in time order (empty without network demands).
  std::vector<LinkSample> link_samples;
};

// `link_capacity_Bps[l]` is the capacity the engine gives link l (Topology link id); needed
// when the graph has network demands (std::invalid_argument otherwise). Their flows move through
// the NetworkModel `network` makes with `cost` (network_model.hpp; a model that shares no links
// is a std::logic_error when the graph has demands).
// Throws std::logic_error if the graph cannot complete (a dependency cycle or a collective whose
// members can never all arrive).
Timeline run_engine(const TaskGraph& graph, int num_gpus,
                    std::span<const double> link_capacity_Bps = {},
                    const NetworkModelType& network = network_model(kDefaultNetworkModel).model,
                    const CostParams& cost = CostParams{});

}  // namespace shardsim
