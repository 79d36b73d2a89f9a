#pragma once
// The discrete-event engine: a time-ordered event queue with deterministic tie breaking, in-order
// streams per GPU, collectives that start when every participant has arrived. It replays a task
// graph (all iterations) and returns when each task started and ended.
#include <cstdint>
#include <vector>

#include "shardsim/sim/task.hpp"

namespace shardsim {

struct TaskSpan {
  double ready_s = 0;  // when it reached the head of its stream with its dependencies met
  double start_s = 0;  // when it started (collectives: when the last member arrived)
  double end_s = 0;
};

struct Timeline {
  std::vector<TaskSpan> spans;  // indexed like TaskGraph::tasks
  std::uint64_t events = 0;     // events processed
  double makespan_s = 0;
};

// Throws std::logic_error if the graph cannot complete (a dependency cycle or a collective whose
// members can never all arrive).
Timeline run_engine(const TaskGraph& graph, int num_gpus);

}  // namespace shardsim
