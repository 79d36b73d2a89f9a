#include "shardsim/sim/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>

#include "shardsim/sim/event_queue.hpp"

namespace shardsim {

namespace {

struct StreamState {
  std::vector<int> queue;  // task ids in issue order
  std::size_t head = 0;
  bool busy = false;
};

// Where a collective with a network demand is: its current stage and the flows of that stage
// still moving.
struct CollectiveState {
  std::size_t stage = 0;
  std::size_t flows_left = 0;
};

constexpr double kNever = std::numeric_limits<double>::infinity();

}  // namespace

Timeline run_engine(const TaskGraph& graph, int num_gpus, std::span<const double> link_capacity_Bps,
                    const NetworkModelInfo& network) {
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

  // The network, when any collective moves flows.
  std::unique_ptr<NetworkModel> net;
  for (const Collective& c : graph.collectives) {
    if (c.demand < 0) continue;
    if (static_cast<std::size_t>(c.demand) >= graph.demands.size()) {
      throw std::logic_error(fmt::format("collective refers to missing demand {}", c.demand));
    }
    if (!net) {
      if (link_capacity_Bps.empty()) {
        throw std::invalid_argument(
            "the task graph has network demands but the engine was given no link capacities");
      }
      if (!network.make) {
        throw std::logic_error(
            fmt::format("the task graph has network demands but network model '{}' moves no flows",
                        network.name));
      }
      net = network.make(std::vector<double>(link_capacity_Bps.begin(), link_capacity_Bps.end()));
    }
  }
  std::vector<CollectiveState> state(net ? graph.collectives.size() : 0);

  EventQueue events;
  auto finish_collective = [&](int c, double now) {
    for (int m : graph.collectives[c].members) events.push(now, m);
  };
  // Starts stage state[c].stage of collective c's demand: its flows join the network.
  auto start_stage = [&](int c, double now) {
    const CollectiveDemand& d = graph.demands[graph.collectives[c].demand];
    const CollectiveStage& st = d.stages[state[c].stage];
    state[c].flows_left = st.flows.size();
    for (const DemandFlow& f : st.flows) {
      net->add_flow(now, std::span<const int>(st.links.data() + f.first_link, f.num_links), f.bytes,
                    c);
      ++tl.flows;
    }
    net->update(now);
  };
  auto stage_done = [&](int c, double now) {
    const CollectiveDemand& d = graph.demands[graph.collectives[c].demand];
    if (++state[c].stage < d.stages.size()) {
      events.push(now + d.stages[state[c].stage].latency_s, c, EventKind::stage_start);
    } else {
      finish_collective(c, now);
    }
  };
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
    for (int m : c.members) tl.spans[m].start_s = now;
    if (c.demand < 0) {
      for (int m : c.members) events.push(now + c.duration_s, m);
      return;
    }
    const CollectiveDemand& d = graph.demands[c.demand];
    if (d.stages.empty()) {
      finish_collective(t.collective, now + d.launch_s);
      return;
    }
    state[t.collective] = CollectiveState{};
    events.push(now + d.launch_s + d.stages.front().latency_s, t.collective,
                EventKind::stage_start);
  };

  for (std::size_t s = 0; s < streams.size(); ++s) try_start(s, 0.0);
  std::size_t done = 0;
  std::vector<int> finished_flows;
  while (true) {
    const double t_event = events.empty() ? kNever : events.next_time_s();
    const double t_flow = net ? net->next_completion_s() : kNever;
    if (t_event == kNever && t_flow == kNever) break;
    if (t_flow < t_event) {
      // Flows that complete now: their stages may finish; the others' rates are recomputed.
      finished_flows.clear();
      net->complete_due(t_flow, finished_flows);
      tl.events += finished_flows.size();
      tl.makespan_s = std::max(tl.makespan_s, t_flow);
      for (int c : finished_flows) {
        if (--state[c].flows_left == 0) stage_done(c, t_flow);
      }
      net->update(t_flow);
      continue;
    }
    const Event e = events.pop();
    ++tl.events;
    if (e.kind == EventKind::stage_start) {
      start_stage(e.task, e.time_s);
      const CollectiveStage& st =
          graph.demands[graph.collectives[e.task].demand].stages[state[e.task].stage];
      if (st.flows.empty()) stage_done(e.task, e.time_s);
      continue;
    }
    ++done;
    tl.spans[e.task].end_s = e.time_s;
    tl.makespan_s = std::max(tl.makespan_s, e.time_s);
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
  if (net) tl.link_samples = net->take_samples();
  return tl;
}

}  // namespace shardsim
