#include "shardsim/sim/engine.hpp"

#include <gtest/gtest.h>

namespace shardsim {
namespace {

Task make(int gpu, Stream s, double d, std::vector<int> deps = {}) {
  Task t;
  t.gpu = gpu;
  t.stream = s;
  t.duration_s = d;
  t.deps = std::move(deps);
  return t;
}

TEST(Engine, TasksOnOneStreamRunInIssueOrder) {
  TaskGraph g;
  const int a = g.add_task(make(0, Stream::dense_compute, 1.0));
  const int b = g.add_task(make(0, Stream::dense_compute, 2.0));
  const Timeline tl = run_engine(g, 1);
  EXPECT_DOUBLE_EQ(tl.spans[a].start_s, 0.0);
  EXPECT_DOUBLE_EQ(tl.spans[b].start_s, 1.0);
  EXPECT_DOUBLE_EQ(tl.spans[b].end_s, 3.0);
  EXPECT_DOUBLE_EQ(tl.makespan_s, 3.0);
  EXPECT_EQ(tl.events, 2u);
}

TEST(Engine, DifferentStreamsOverlap) {
  TaskGraph g;
  const int a = g.add_task(make(0, Stream::dense_compute, 1.0));
  const int b = g.add_task(make(0, Stream::sparse_compute, 2.0));
  const int c = g.add_task(make(0, Stream::dense_compute, 0.5, {a, b}));
  const Timeline tl = run_engine(g, 1);
  EXPECT_DOUBLE_EQ(tl.spans[b].start_s, 0.0);
  // c waits for the slower of a and b: max(1, 2) = 2, then runs 0.5.
  EXPECT_DOUBLE_EQ(tl.spans[c].start_s, 2.0);
  EXPECT_DOUBLE_EQ(tl.makespan_s, 2.5);
}

TEST(Engine, CollectiveStartsWhenTheLastMemberArrives) {
  TaskGraph g;
  const int x = g.add_task(make(0, Stream::sparse_compute, 1.0));
  const int y = g.add_task(make(1, Stream::sparse_compute, 3.0));
  const std::vector<int> gpus = {0, 1};
  const int c =
      g.add_collective(gpus, Stream::sparse_comm, Phase::alltoall_fwd, 2.0, 100.0, {{x}, {y}});
  const Timeline tl = run_engine(g, 2);
  for (int m : g.collectives[c].members) {
    // GPU 0 arrives at 1, GPU 1 at 3: both start at 3 and end at 3 + 2.
    EXPECT_DOUBLE_EQ(tl.spans[m].start_s, 3.0);
    EXPECT_DOUBLE_EQ(tl.spans[m].end_s, 5.0);
  }
  EXPECT_DOUBLE_EQ(tl.spans[g.collectives[c].members[0]].ready_s, 1.0);
}

TEST(Engine, SlowGpuDelaysAccumulateThroughCollectives) {
  // Two iterations of: compute (GPU 1 is 1 s slower) then a collective of 1 s. The next
  // iteration's compute waits for the previous collective on the same GPU.
  TaskGraph g;
  std::vector<int> prev = {-1, -1};
  const std::vector<int> gpus = {0, 1};
  for (int it = 0; it < 2; ++it) {
    std::vector<int> comp(2);
    for (int gpu = 0; gpu < 2; ++gpu) {
      std::vector<int> deps;
      if (prev[gpu] >= 0) deps.push_back(prev[gpu]);
      comp[gpu] = g.add_task(make(gpu, Stream::dense_compute, gpu == 1 ? 2.0 : 1.0, deps));
    }
    const int c = g.add_collective(gpus, Stream::dense_comm, Phase::mlp_allreduce, 1.0, 1.0,
                                   {{comp[0]}, {comp[1]}});
    prev = g.collectives[c].members;
  }
  const Timeline tl = run_engine(g, 2);
  // Iteration 1 ends at 2 + 1 = 3; iteration 2 at 3 + 2 + 1 = 6: GPU 0 idles 1 s each time.
  EXPECT_DOUBLE_EQ(tl.makespan_s, 6.0);
}

TEST(Engine, ContradictoryStreamOrderIsReportedNotHung) {
  TaskGraph g;
  // Same stream: task 0 is issued first but depends on task 1, issued after it.
  g.add_task(make(0, Stream::dense_compute, 1.0, {1}));
  g.add_task(make(0, Stream::dense_compute, 1.0));
  EXPECT_THROW(run_engine(g, 1), std::logic_error);
}

TEST(Engine, SimultaneousEventsAreDeterministic) {
  TaskGraph g;
  for (int gpu = 0; gpu < 8; ++gpu) g.add_task(make(gpu, Stream::sparse_compute, 1.0));
  const Timeline a = run_engine(g, 8);
  const Timeline b = run_engine(g, 8);
  ASSERT_EQ(a.spans.size(), b.spans.size());
  for (std::size_t i = 0; i < a.spans.size(); ++i) {
    EXPECT_EQ(a.spans[i].start_s, b.spans[i].start_s);
    EXPECT_EQ(a.spans[i].end_s, b.spans[i].end_s);
  }
}

}  // namespace
}  // namespace shardsim
