#include "shardsim/sim/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>

#include "shardsim/core/cancellation.hpp"
#include "sim/event_queue.hpp"

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

// Dependents of every task in CSR form, and the count of unmet dependencies of each.
struct Dependencies {
  std::vector<int> remaining;
  std::vector<int> offsets;
  std::vector<int> dependents;
};

Dependencies dependencies_of(const std::vector<Task>& tasks) {
  const std::size_t num_tasks = tasks.size();
  Dependencies d;
  d.remaining.assign(num_tasks, 0);
  d.offsets.assign(num_tasks + 1, 0);
  for (const Task& t : tasks) {
    for (int dep : t.deps) ++d.offsets[dep + 1];
  }
  for (std::size_t i = 0; i < num_tasks; ++i) d.offsets[i + 1] += d.offsets[i];
  d.dependents.resize(d.offsets.back());
  std::vector<int> fill(d.offsets.begin(), d.offsets.end() - 1);
  for (std::size_t i = 0; i < num_tasks; ++i) {
    d.remaining[i] = static_cast<int>(tasks[i].deps.size());
    for (int dep : tasks[i].deps) {
      if (dep < 0 || static_cast<std::size_t>(dep) >= num_tasks) {
        throw std::logic_error(fmt::format("task {} depends on missing task {}", i, dep));
      }
      d.dependents[fill[dep]++] = static_cast<int>(i);
    }
  }
  return d;
}

// The network model, when any collective moves flows (null otherwise).
std::unique_ptr<NetworkModel> network_of(const TaskGraph& graph,
                                         std::span<const double> link_capacity_Bps,
                                         const NetworkModelType& network, const CostParams& cost) {
  std::unique_ptr<NetworkModel> net;
  for (const Collective& c : graph.collectives) {
    if (c.demand < 0) continue;
    if (static_cast<std::size_t>(c.demand) >= graph.demands.size()) {
      throw std::logic_error(fmt::format("collective refers to missing demand {}", c.demand));
    }
    if (net) continue;
    if (link_capacity_Bps.empty()) {
      throw std::invalid_argument(
          "the task graph has network demands but the engine was given no link capacities");
    }
    if (!network.shares_links()) {
      throw std::logic_error(
          "the task graph has network demands but its network model shares no links");
    }
    net = network.make_network(
        std::vector<double>(link_capacity_Bps.begin(), link_capacity_Bps.end()), cost);
  }
  return net;
}

// One run of the discrete-event loop over a task graph: in-order streams per GPU, collectives
// that start when their last member arrives, and their network demands' stages of flows.
class Engine {
 public:
  Engine(const TaskGraph& graph, int num_gpus, std::span<const double> link_capacity_Bps,
         const NetworkModelType& network, const CostParams& cost)
      : graph_(graph),
        deps_(dependencies_of(graph.tasks)),
        streams_(static_cast<std::size_t>(num_gpus) * kNumStreams),
        arrived_(graph.collectives.size(), 0),
        net_(network_of(graph, link_capacity_Bps, network, cost)) {
    tl_.spans.assign(graph.tasks.size(), TaskSpan{});
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
      streams_.at(stream_index(graph.tasks[i])).queue.push_back(static_cast<int>(i));
    }
    state_.resize(net_ ? graph.collectives.size() : 0);
  }

  Timeline run() {
    for (std::size_t s = 0; s < streams_.size(); ++s) try_start(s, 0.0);
    for (std::uint64_t step = 0;; ++step) {
      // A stop request (core/cancellation.hpp), looked at every 4096 events.
      if ((step & 4095) == 0) throw_if_cancelled();
      const double t_event = events_.empty() ? kNever : events_.next_time_s();
      const double t_flow = net_ ? net_->next_completion_s() : kNever;
      if (t_event == kNever && t_flow == kNever) break;
      if (t_flow < t_event) {
        complete_flows(t_flow);
      } else {
        handle(events_.pop());
      }
    }
    if (done_ != graph_.tasks.size()) {
      throw std::logic_error(fmt::format(
          "the task graph cannot complete: {} of {} tasks ran (a dependency cycle, a stream "
          "order that contradicts the dependencies, or a collective missing members)",
          done_, graph_.tasks.size()));
    }
    if (net_) tl_.link_samples = net_->take_samples();
    return std::move(tl_);
  }

 private:
  std::size_t stream_index(const Task& t) const {
    return static_cast<std::size_t>(t.gpu) * kNumStreams + static_cast<std::size_t>(t.stream);
  }
  const CollectiveDemand& demand_of(int c) const {
    return graph_.demands[graph_.collectives[c].demand];
  }

  // The members end together, once the slowest of them has (its tail).
  void finish_collective(int c, double now) {
    const Collective& col = graph_.collectives[c];
    for (int m : col.members) events_.push(now + col.tail_s, m);
  }
  // Starts stage state_[c].stage of collective c's demand: its flows join the network.
  void start_stage(int c, double now) {
    const CollectiveStage& st = demand_of(c).stages[state_[c].stage];
    state_[c].flows_left = st.flows.size();
    for (const DemandFlow& f : st.flows) {
      net_->add_flow(now, std::span<const int>(st.links.data() + f.first_link, f.num_links),
                     f.bytes, c);
      ++tl_.flows;
    }
    net_->update(now);
  }
  void stage_done(int c, double now) {
    const CollectiveDemand& d = demand_of(c);
    if (++state_[c].stage < d.stages.size()) {
      events_.push(now + d.stages[state_[c].stage].latency_s, c, EventKind::stage_start);
    } else {
      finish_collective(c, now);
    }
  }
  void try_start(std::size_t s, double now) {
    StreamState& st = streams_[s];
    if (st.busy || st.head >= st.queue.size()) return;
    const int id = st.queue[st.head];
    if (deps_.remaining[id] > 0) return;
    st.busy = true;  // an in-order stream waits here, even for a collective's other members
    const Task& t = graph_.tasks[id];
    tl_.spans[id].ready_s = now;
    if (t.collective < 0) {
      tl_.spans[id].start_s = now;
      events_.push(now + t.duration_s, id);
      return;
    }
    const Collective& c = graph_.collectives[t.collective];
    if (++arrived_[t.collective] < static_cast<int>(c.members.size())) return;
    for (int m : c.members) tl_.spans[m].start_s = now;
    if (c.demand < 0) {
      for (int m : c.members) events_.push(now + c.duration_s + c.tail_s, m);
      return;
    }
    const CollectiveDemand& d = graph_.demands[c.demand];
    if (d.stages.empty()) {
      finish_collective(t.collective, now + d.launch_s);
      return;
    }
    state_[t.collective] = CollectiveState{};
    events_.push(now + d.launch_s + d.stages.front().latency_s, t.collective,
                 EventKind::stage_start);
  }
  // Flows that complete now: their stages may finish; the others' rates are recomputed.
  void complete_flows(double t_flow) {
    finished_flows_.clear();
    net_->complete_due(t_flow, finished_flows_);
    tl_.events += finished_flows_.size();
    tl_.makespan_s = std::max(tl_.makespan_s, t_flow);
    for (int c : finished_flows_) {
      if (--state_[c].flows_left == 0) stage_done(c, t_flow);
    }
    net_->update(t_flow);
  }
  void handle(const Event& e) {
    ++tl_.events;
    if (e.kind == EventKind::stage_start) {
      start_stage(e.task, e.time_s);
      if (demand_of(e.task).stages[state_[e.task].stage].flows.empty()) {
        stage_done(e.task, e.time_s);
      }
      return;
    }
    ++done_;
    tl_.spans[e.task].end_s = e.time_s;
    tl_.makespan_s = std::max(tl_.makespan_s, e.time_s);
    const std::size_t s = stream_index(graph_.tasks[e.task]);
    streams_[s].busy = false;
    ++streams_[s].head;
    for (int k = deps_.offsets[e.task]; k < deps_.offsets[e.task + 1]; ++k) {
      const int u = deps_.dependents[k];
      if (--deps_.remaining[u] == 0) try_start(stream_index(graph_.tasks[u]), e.time_s);
    }
    try_start(s, e.time_s);
  }

  const TaskGraph& graph_;
  Dependencies deps_;
  std::vector<StreamState> streams_;
  std::vector<int> arrived_;
  std::unique_ptr<NetworkModel> net_;
  std::vector<CollectiveState> state_;
  EventQueue events_;
  Timeline tl_;
  std::size_t done_ = 0;
  std::vector<int> finished_flows_;
};

}  // namespace

Timeline run_engine(const TaskGraph& graph, int num_gpus, std::span<const double> link_capacity_Bps,
                    const NetworkModelType& network, const CostParams& cost) {
  return Engine(graph, num_gpus, link_capacity_Bps, network, cost).run();
}

}  // namespace shardsim
