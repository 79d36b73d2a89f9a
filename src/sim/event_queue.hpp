#pragma once
// A min-heap of timed events. Events at the same time pop in the order they were pushed, so a
// run is deterministic whatever the heap's internal order.
#include <cstdint>
#include <queue>
#include <vector>

namespace shardsim {

enum class EventKind : std::uint8_t {
  task_end,     // `id` is a task
  stage_start,  // `id` is a collective whose next network stage starts now
};

struct Event {
  double time_s = 0;
  std::uint64_t seq = 0;  // push order: the tie breaker
  int task = 0;           // the task or collective id
  EventKind kind = EventKind::task_end;
};

class EventQueue {
 public:
  void push(double time_s, int task, EventKind kind = EventKind::task_end) {
    heap_.push(Event{time_s, next_seq_++, task, kind});
  }
  double next_time_s() const { return heap_.top().time_s; }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time_s != b.time_s) return a.time_s > b.time_s;
      return a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace shardsim
