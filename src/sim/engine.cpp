#include "shardsim/sim/engine.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "shardsim/sim/event_queue.hpp"

namespace shardsim {

namespace {

struct StreamState {
  std::vector<int> queue;  // task ids in issue order
  std::size_t head = 0;
  bool busy = false;
};

}  // namespace

Timeline run_engine(const TaskGraph& graph, int num_gpus) {
  const auto& tasks = graph.tasks;
  const std::size_t num_tasks = tasks.size();
  Timeline tl;
  tl.spans.assign(num_tasks, TaskSpan{});

  // Dependents in CSR form, and the count of unmet dependencies of each task.
  std::vector<int> remaining(num_tasks, 0);
  std::vector<int> offsets(num_tasks + 1, 0);
  for (const Task& t : tasks) {
    for (int d : t.deps) ++offsets[d + 1];
  }
  for (std::size_t i = 0; i < num_tasks; ++i) offsets[i + 1] += offsets[i];
  std::vector<int> dependents(offsets.back());
  {
    std::vector<int> fill(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < num_tasks; ++i) {
      remaining[i] = static_cast<int>(tasks[i].deps.size());
      for (int d : tasks[i].deps) {
        if (d < 0 || static_cast<std::size_t>(d) >= num_tasks) {
          throw std::logic_error(fmt::format("task {} depends on missing task {}", i, d));
        }
        dependents[fill[d]++] = static_cast<int>(i);
      }
    }
  }

  std::vector<StreamState> streams(static_cast<std::size_t>(num_gpus) * kNumStreams);
  auto stream_index = [&](const Task& t) {
    return static_cast<std::size_t>(t.gpu) * kNumStreams + static_cast<std::size_t>(t.stream);
  };
  for (std::size_t i = 0; i < num_tasks; ++i) {
    streams.at(stream_index(tasks[i])).queue.push_back(static_cast<int>(i));
  }
  std::vector<int> arrived(graph.collectives.size(), 0);

  EventQueue events;
  auto try_start = [&](std::size_t s, double now) {
    StreamState& st = streams[s];
    if (st.busy || st.head >= st.queue.size()) return;
    const int id = st.queue[st.head];
    if (remaining[id] > 0) return;
    st.busy = true;  // an in-order stream waits here, even for a collective's other members
    const Task& t = tasks[id];
    tl.spans[id].ready_s = now;
    if (t.collective < 0) {
      tl.spans[id].start_s = now;
      events.push(now + t.duration_s, id);
      return;
    }
    const Collective& c = graph.collectives[t.collective];
    if (++arrived[t.collective] < static_cast<int>(c.members.size())) return;
    for (int m : c.members) {
      tl.spans[m].start_s = now;
      events.push(now + c.duration_s, m);
    }
  };

  for (std::size_t s = 0; s < streams.size(); ++s) try_start(s, 0.0);
  std::size_t done = 0;
  while (!events.empty()) {
    const Event e = events.pop();
    ++tl.events;
    ++done;
    tl.spans[e.task].end_s = e.time_s;
    tl.makespan_s = e.time_s;
    const std::size_t s = stream_index(tasks[e.task]);
    streams[s].busy = false;
    ++streams[s].head;
    for (int k = offsets[e.task]; k < offsets[e.task + 1]; ++k) {
      const int u = dependents[k];
      if (--remaining[u] == 0) try_start(stream_index(tasks[u]), e.time_s);
    }
    try_start(s, e.time_s);
  }
  if (done != num_tasks) {
    throw std::logic_error(fmt::format(
        "the task graph cannot complete: {} of {} tasks ran (a dependency cycle, a stream "
        "order that contradicts the dependencies, or a collective missing members)",
        done, num_tasks));
  }
  return tl;
}

}  // namespace shardsim
