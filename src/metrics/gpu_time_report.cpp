// Where each GPU's time goes over the measured iterations (gpu_time_report.hpp).
#include "metrics/gpu_time_report.hpp"

#include <algorithm>
#include <limits>

#include "metrics/time_attribution.hpp"

namespace shardsim {

namespace {

struct Interval {
  double begin, end;
};

// Total length of the union of intervals.
double union_length(std::vector<Interval> iv) {
  std::sort(iv.begin(), iv.end(), [](const Interval& a, const Interval& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  double total = 0, cur_b = 0, cur_e = -1;
  bool open = false;
  for (const Interval& x : iv) {
    if (x.end <= x.begin) continue;
    if (!open || x.begin > cur_e) {
      if (open) total += cur_e - cur_b;
      cur_b = x.begin;
      cur_e = x.end;
      open = true;
    } else {
      cur_e = std::max(cur_e, x.end);
    }
  }
  if (open) total += cur_e - cur_b;
  return total;
}

// Which work owns an instant where several overlap (docs/report.md, "Exposed time"): kernels
// (dense compute, then embedding), then collectives moving data (sparse, dense, input
// streams), then collectives waiting for their peers (same order), then the host's step, then
// the delivery of the inputs.
int attribution_rank(Stream s, bool waiting) {
  if (s == Stream::host) return 2 * kNumStreams;
  if (s == Stream::ingest) return 2 * kNumStreams + 1;
  return static_cast<int>(s) + (waiting ? kNumStreams : 0);
}

// When each iteration ends (the latest end so far) and when its tasks run.
struct IterationExtents {
  std::vector<double> finish;
  std::vector<Interval> extent;
};

IterationExtents iteration_extents(const SimulationResult& result) {
  const auto& tasks = result.graph.tasks;
  const auto& spans = result.timeline.spans;
  std::vector<double> finish;
  for (const IterationTasks& it : result.iterations) {
    double end = finish.empty() ? 0.0 : finish.back();
    for (int id = it.first_task; id < it.end_task; ++id) end = std::max(end, spans[id].end_s);
    finish.push_back(end);
  }
  // When each iteration's tasks run: from its first start to its last end. The input delivery
  // is left out of the start: it runs ahead of training by up to the whole run (docs/model.md,
  // "Data ingestion"), and the GPU can only wait for its own batch's, which ends inside.
  std::vector<Interval> extent;
  for (const IterationTasks& it : result.iterations) {
    Interval e{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    for (int id = it.first_task; id < it.end_task; ++id) {
      if (tasks[id].stream == Stream::ingest) {
        e.end = std::max(e.end, spans[id].end_s);
        continue;
      }
      e.begin = std::min(e.begin, spans[id].start_s);
      e.begin = std::min(e.begin, spans[id].ready_s);
      e.end = std::max(e.end, spans[id].end_s);
    }
    extent.push_back(e);
  }
  return {std::move(finish), std::move(extent)};
}

}  // namespace

PhaseTimesByGpu attribute_gpu_times(std::vector<GpuReport>& per_gpu,
                                    const SimulationResult& result) {
  // Per-GPU busy times, idle time and per-phase serialized/exposed time, over measured
  // iterations. Every instant of an iteration's window on a GPU goes to one task by
  // attribution_rank (docs/report.md, "Exposed time"), whatever iteration the task belongs to
  // (the next batch's input AlltoAll runs during this batch's backward pass).
  const int n = static_cast<int>(per_gpu.size());
  const auto& tasks = result.graph.tasks;
  const auto& spans = result.timeline.spans;
  const int measured = static_cast<int>(result.iterations.size()) - result.warmup;
  const int total = static_cast<int>(result.iterations.size());
  PhaseTimesByGpu out;
  out.serialized.assign(static_cast<std::size_t>(n), {});
  out.exposed.assign(static_cast<std::size_t>(n), {});
  out.waiting.assign(static_cast<std::size_t>(n), {});
  auto& serialized = out.serialized;
  auto& exposed = out.exposed;
  auto& waiting = out.waiting;
  const IterationExtents extents = iteration_extents(result);
  const std::vector<double>& finish = extents.finish;
  const std::vector<Interval>& extent = extents.extent;
  std::vector<std::vector<int>> tasks_of_gpu(n), nearby_of_gpu(n);
  // The spans competing for a GPU's window, and whose each is (same index).
  struct SpanOwner {
    Phase phase;
    Stream stream;
    bool waits;  // the wait of a collective for its peers, not its transfer
  };
  std::vector<RankedSpan> ranked;
  std::vector<SpanOwner> owners;
  std::vector<Interval> busy, compute, transfer, wait;
  for (int k = 0; k < measured; ++k) {
    const int i = result.warmup + k;
    const IterationTasks& it = result.iterations[i];
    for (auto& v : tasks_of_gpu) v.clear();
    for (auto& v : nearby_of_gpu) v.clear();
    for (int id = it.first_task; id < it.end_task; ++id) tasks_of_gpu[tasks[id].gpu].push_back(id);
    const Interval window{i == 0 ? 0.0 : finish[i - 1], finish[i]};
    // Every iteration with a task inside the window: the neighbours when the GPUs meet at a
    // collective every iteration, more where nothing holds a fast GPU back (data-parallel
    // inference: it runs iterations ahead of a straggler).
    for (int j = 0; j < total; ++j) {
      if (extent[j].end <= window.begin || extent[j].begin >= window.end) continue;
      const IterationTasks& near = result.iterations[j];
      for (int id = near.first_task; id < near.end_task; ++id) {
        nearby_of_gpu[tasks[id].gpu].push_back(id);
      }
    }
    const auto clip = [&](double b, double e, std::vector<Interval>& into) {
      b = std::max(window.begin, b);
      e = std::min(window.end, e);
      if (e > b) into.push_back({b, e});
    };
    for (int g = 0; g < n; ++g) {
      GpuReport& gr = per_gpu[g];
      gr.lookup_s += it.lookup_s_by_gpu[g];
      gr.lookups += it.lookups_by_gpu[g];
      if (!it.host_link_bytes_by_gpu.empty()) gr.host_link_bytes += it.host_link_bytes_by_gpu[g];
      for (int id : tasks_of_gpu[g]) {
        serialized[g][static_cast<std::size_t>(tasks[id].phase)] +=
            spans[id].end_s - spans[id].start_s;
      }
      busy.clear();
      compute.clear();
      transfer.clear();
      wait.clear();
      ranked.clear();
      owners.clear();
      const auto add = [&](double b, double e, int rank, const Task& t, bool waits) {
        ranked.push_back({b, e, rank});
        owners.push_back({t.phase, t.stream, waits});
      };
      for (int id : nearby_of_gpu[g]) {
        const Task& t = tasks[id];
        const TaskSpan& sp = spans[id];
        add(sp.start_s, sp.end_s, attribution_rank(t.stream, false), t, false);
        if (!on_gpu(t.stream)) continue;  // the GPU idles while only the host works
        clip(sp.start_s, sp.end_s, busy);
        if (is_comm(t.stream)) {
          clip(sp.start_s, sp.end_s, transfer);
          if (t.collective >= 0 && sp.start_s > sp.ready_s) {
            clip(sp.ready_s, sp.start_s, wait);
            add(sp.ready_s, sp.start_s, attribution_rank(t.stream, true), t, true);
          }
        } else {
          clip(sp.start_s, sp.end_s, compute);
        }
      }
      const double busy_s = union_length(busy);
      gr.busy_s += busy_s;
      gr.compute_s += union_length(compute);
      gr.comm_transfer_s += union_length(transfer);
      gr.comm_wait_s += union_length(wait);
      gr.idle_s += std::max(0.0, (window.end - window.begin) - busy_s);
      const WindowAttribution a = attribute_window(ranked, window.begin, window.end);
      for (std::size_t s = 0; s < ranked.size(); ++s) {
        const double x = a.by_span_s[s];
        if (x <= 0) continue;
        const SpanOwner& o = owners[s];
        const auto p = static_cast<std::size_t>(o.phase);
        exposed[g][p] += x;
        GpuTimeShares& sh = gr.shares;
        if (o.waits) {
          waiting[g][p] += x;
          sh.comm_wait_s += x;
        } else if (o.stream == Stream::host || o.stream == Stream::ingest) {
          sh.host_s += x;
        } else if (is_comm(o.stream)) {
          sh.comm_s += x;
        } else if (o.stream == Stream::sparse_compute) {
          sh.embedding_s += x;
        } else {
          sh.dense_compute_s += x;
        }
      }
      gr.shares.idle_s += a.unattributed_s;
    }
  }
  return out;
}

}  // namespace shardsim
