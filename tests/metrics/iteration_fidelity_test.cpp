// The iteration against Neo App. B Eq. 1 computed by hand, the pipelining options of Neo §4.2,
// stragglers whose delays carry across iterations (NeuroShard Fig. 1), jitter, and whole
// iterations under the aggregated and the per-flow network models.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "shardsim/cost/collective_cost.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/metrics/report_builder.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/sim/simulation.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

using testing::hand_model;
using testing::plan_with;

// The hand-sized case of hand_sized_iteration_test.cpp (2 GPUs on one NVSwitch, 2 tables of
// 1e6 rows x 64, pooling 10, batch 1024, table-wise: one table per GPU), with every component
// of Eq. 1 taken from the cost model so the test checks how the engine composes them.
struct Components {
  double bot_f = 0, look = 0, a2a = 0, inter_f = 0, top_f = 0;
  double top_b = 0, inter_b = 0, update = 0, bot_b = 0, allreduce = 0, input = 0;
  double opt = 0;  // the dense optimizer's step, which Eq. 1 leaves out (docs/model.md)

  // Neo App. B Eq. 1, with the dense optimizer's step after both the bottom MLP's backward and
  // the AllReduce (Eq. 1 alone: opt = 0).
  double eq1_fwd() const { return std::max(bot_f, look + a2a) + inter_f + top_f; }
  double eq1() const {
    return eq1_fwd() +
           std::max(top_b + inter_b + std::max(a2a + update, bot_b + opt), allreduce + opt);
  }
};

struct HandCase : Components {
  Cluster cluster{testing::hand_preset(2), 1};
  DlrmModel model = hand_model(2, 1'000'000, 64, 10);
  Workload wl;
  testing::UniformTrace trace{{1'000'000, 1'000'000}, {10, 10}};
  CostParams cost = testing::hand_cost_params();
  Plan plan;

  explicit HandCase(double peak_flops = 1e15, std::vector<std::uint32_t> bottom = {64}) {
    HardwarePreset h = testing::hand_preset(2);
    h.gpu.peak_tf32_flops = peak_flops;
    cluster = Cluster(h, 1);
    model.bottom_mlp = std::move(bottom);
    wl.batch_per_gpu = 1024;
    wl.iterations = 3;
    wl.warmup = 1;
    plan = plan_with("table_wise", {cluster, model, wl, trace});
    const GpuSpec& g = cluster.gpu();
    const double b = wl.batch_per_gpu;
    // Each GPU's shard serves both GPUs: 2·1024·10 lookups, 2048 pooled outputs.
    EmbeddingWork w;
    w.lookups = 2 * b * 10;
    w.distinct_rows =
        trace.profile(0).expected_distinct({0, 1'000'000}, RowSpace::row_id, w.lookups);
    w.pooled_outputs = 2 * b;
    w.cols = 64;
    w.rows = 1'000'000;
    look = embedding_forward_s(g, w, cost);
    update = embedding_backward_s(g, w, model.optimizer, cost);
    const auto vec = model.bottom_mlp.back();
    bot_f = mlp_forward_s(g, 16, model.bottom_mlp, b, model.mlp_precision, cost);
    bot_b = mlp_backward_s(g, 16, model.bottom_mlp, b, model.mlp_precision, cost);
    inter_f = interaction_forward_s(g, b, 3, vec, model.mlp_precision, cost);
    inter_b = interaction_backward_s(g, b, 3, vec, model.mlp_precision, cost);
    top_f = mlp_forward_s(g, model.interaction_output_width(), model.top_mlp, b,
                          model.mlp_precision, cost);
    top_b = mlp_backward_s(g, model.interaction_output_width(), model.top_mlp, b,
                           model.mlp_precision, cost);
    // Pooled embeddings: 1024 x 64 x 4 B each way; input: 10 int64 indices + 1 offset per
    // sample each way (1024 x 88 B = 90,112 B); MLP gradients over the ring of two.
    ByteMatrix m(2);
    m.at(0, 1) = m.at(1, 0) = b * 64 * 4;
    a2a = alltoallv_s(cluster, m, cost);
    m.at(0, 1) = m.at(1, 0) = b * (10 * 8 + 8);
    input = alltoallv_s(cluster, m, cost);
    allreduce = allreduce_s(cluster, std::vector<int>{0, 1},
                            4.0 * static_cast<double>(model.mlp_parameter_count()), cost);
    opt = dense_optimizer_step_s(g, model.dense_parameter_count(), model.dense_optimizer);
  }

  HandCase(const HandCase&) = delete;

  SimulationResult run(const SimulationOptions& o) const {
    return simulate({cluster, model, wl, plan, trace, cost, o});
  }
};

SimulationOptions eq1_options(std::string sharing) {
  SimulationOptions o;
  o.link_sharing = sharing;
  o.input_alltoall = InputAlltoall::none;  // Eq. 1 has no input AlltoAll
  return o;
}

TEST(IterationFidelity, WithoutContentionOrImbalanceTheIterationIsEq1) {
  const HandCase c;
  ASSERT_EQ(c.plan.shards.size(), 2u);
  // The hand numbers of hand_sized_iteration_test.cpp: 29.8676 us.
  EXPECT_NEAR(c.eq1(), 29.867604e-6, 1e-5 * 29.867604e-6);
  for (std::string s : {"none", "aggregated", "per_flow", "interference"}) {
    const std::vector<double> times = iteration_times_s(c.run(eq1_options(s)));
    ASSERT_EQ(times.size(), 3u);
    for (double t : times) EXPECT_NEAR(t, c.eq1(), 1e-12 * c.eq1()) << s;
  }
}

TEST(IterationFidelity, ASlowBottomMlpTakesOverTheForwardMax) {
  // At 1 TFLOP/s a bottom MLP [256] takes 2·1024·16·256 FLOP = 8.39 us: Eq. 1's forward is
  // max(8.39, lookup + AlltoAll = 8.53) — the other branch still, but only just; at [512] the
  // bottom MLP (16.8 us) binds.
  for (std::uint32_t width : {256u, 512u}) {
    const HandCase c(1e12, {width});
    EXPECT_EQ(c.bot_f > c.look + c.a2a, width == 512u);
    for (std::string s : {"none", "aggregated"}) {
      for (double t : iteration_times_s(c.run(eq1_options(s)))) {
        EXPECT_NEAR(t, c.eq1(), 1e-12 * c.eq1()) << width << " " << s;
      }
    }
  }
}

TEST(IterationFidelity, TheDenseOptimizerStepFollowsTheAllreduceAndTheBottomMlp) {
  // A dense arch of 1e8 parameters: the AllReduce (400 MB over the ring of two) ends well after
  // the bottom MLP's backward, and the optimizer's step (Adam: 28 B a parameter at 1 TB/s,
  // 2.8 ms) follows it, on the critical path: Eq. 1 + opt, where Eq. 1's second max is the
  // AllReduce. SGD (12 B a parameter) saves 1.6 ms.
  HandCase c;
  c.model.dense_arch.parameters = 100'000'000;
  c.allreduce = allreduce_s(c.cluster, std::vector<int>{0, 1},
                            4.0 * static_cast<double>(c.model.dense_parameter_count()), c.cost);
  for (DenseOptimizerKind kind : {DenseOptimizerKind::adam, DenseOptimizerKind::sgd}) {
    c.model.dense_optimizer = kind;
    c.opt = dense_optimizer_step_s(c.cluster.gpu(), c.model.dense_parameter_count(), kind);
    const double params = 1e8 + static_cast<double>(c.model.mlp_parameter_count());
    EXPECT_NEAR(c.opt, (kind == DenseOptimizerKind::adam ? 28 : 12) * params / 1e12, 1e-15);
    EXPECT_GT(c.allreduce, c.top_b + c.inter_b + std::max(c.a2a + c.update, c.bot_b));
    // Without link sharing: under `aggregated` the AllReduce also shares the links with the
    // backward AlltoAll.
    for (double t : iteration_times_s(c.run(eq1_options("none")))) {
      EXPECT_NEAR(t, c.eq1_fwd() + c.allreduce + c.opt, 1e-9 * t) << to_string(kind);
    }
  }
}

// The AllReduce of a 1e8-parameter dense arch runs beside the backward AlltoAll (the test above):
// under `interference` the link they share delivers less, so each iteration takes longer than
// under `aggregated`, and exactly as long with a loss of 0.
TEST(IterationFidelity, InterferenceSlowsTheCollectivesThatShareALink) {
  HandCase c;
  c.model.dense_arch.parameters = 100'000'000;
  const std::vector<double> shared = iteration_times_s(c.run(eq1_options("aggregated")));
  c.cost.interference_loss = 0;
  EXPECT_EQ(iteration_times_s(c.run(eq1_options("interference"))), shared);
  c.cost.interference_loss = 0.3;
  const std::vector<double> slowed = iteration_times_s(c.run(eq1_options("interference")));
  ASSERT_EQ(slowed.size(), shared.size());
  for (std::size_t i = 0; i < shared.size(); ++i) {
    EXPECT_GT(slowed[i], shared[i]) << i;
    // At most every byte at 85% of the link (two collectives: 1 - 0.3 / 2).
    EXPECT_LT(slowed[i], shared[i] / 0.85) << i;
  }
}

TEST(IterationFidelity, InputAlltoallSerialOrOverlappedWithTheTopMlp) {
  const HandCase c;
  // Serial: batch i's input AlltoAll (90,112 B each way at 100 GB/s = 0.90 us) comes before
  // its lookups, on the critical path: Eq. 1 + input.
  SimulationOptions o = eq1_options("aggregated");
  o.input_alltoall = InputAlltoall::serial;
  EXPECT_NEAR(c.input, 90112 / 100e9, 1e-18);
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, c.eq1() + c.input, 1e-12);
  // Overlapped (Neo §4.2): batch i+1's input runs during batch i's top MLP forward and
  // backward, hidden: Eq. 1 again once the pipeline is full. The first batch has no previous
  // one to hide behind; warm-up excludes it: with no warm-up the first measured iteration pays
  // the input.
  o.input_alltoall = InputAlltoall::overlapped;
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, c.eq1(), 1e-12);
  HandCase cold;
  cold.wl.warmup = 0;
  const std::vector<double> times = iteration_times_s(cold.run(o));
  ASSERT_EQ(times.size(), 3u);
  EXPECT_NEAR(times[0], c.eq1() + c.input, 1e-12);
  EXPECT_NEAR(times[1], c.eq1(), 1e-12);
}

TEST(IterationFidelity, PooledAlltoallSerialWaitsForTheBottomMlp) {
  // Bottom MLP [256] at 1 TFLOP/s (8.39 us) longer than the lookup (5.9 us):
  //   overlapped: max(bot, lookup + a2a) + ...;  serial: max(bot, lookup) + a2a + ...
  const HandCase c(1e12, {256});
  SimulationOptions o = eq1_options("aggregated");
  o.pooled_alltoall = PooledAlltoall::serial;
  const double serial_fwd = std::max(c.bot_f, c.look) + c.a2a + c.inter_f + c.top_f;
  EXPECT_GT(serial_fwd, c.eq1_fwd() + 1e-6);
  for (double t : iteration_times_s(c.run(o))) {
    EXPECT_NEAR(t, c.eq1() - c.eq1_fwd() + serial_fwd, 1e-12);
  }
}

TEST(IterationFidelity, AStragglersDelayCarriesIntoTheNextIteration) {
  // GPU 1's kernels take twice as long (NeuroShard Fig. 1). Its AlltoAlls hold GPU 0 back, so
  // every iteration lasts Eq. 1 with GPU 1's kernel times; GPU 0 ends its embedding update
  // earlier (its update is the shorter one) and starts the next forward early, while GPU 1's
  // delay carries into the next iteration: the forward AlltoAll starts only when GPU 1's
  // lookup ends, and GPU 0 idles until then.
  const HandCase c;
  SimulationOptions o = eq1_options("aggregated");
  o.stragglers = {Straggler{1, 2.0}};
  const SimulationResult r = c.run(o);
  Components slow = c;
  for (double* x : {&slow.bot_f, &slow.look, &slow.inter_f, &slow.top_f, &slow.top_b, &slow.inter_b,
                    &slow.update, &slow.bot_b}) {
    *x *= 2;
  }
  for (double t : iteration_times_s(r)) EXPECT_NEAR(t, slow.eq1(), 1e-12 * slow.eq1());
  EXPECT_GT(slow.eq1(), c.eq1() * 1.5);
  // The second iteration's lookups start when each GPU's own update of the first ended.
  const auto& tasks = r.graph.tasks;
  const auto& spans = r.timeline.spans;
  const IterationTasks& first = r.iterations[0];
  const IterationTasks& second = r.iterations[1];
  double update_end[2] = {0, 0}, lookup_start[2] = {0, 0}, a2a_start = 0;
  for (int id = first.first_task; id < first.end_task; ++id) {
    if (tasks[id].phase == Phase::embedding_update_bwd) update_end[tasks[id].gpu] = spans[id].end_s;
  }
  for (int id = second.first_task; id < second.end_task; ++id) {
    if (tasks[id].phase == Phase::embedding_lookup_fwd) {
      lookup_start[tasks[id].gpu] = spans[id].start_s;
    }
    if (tasks[id].phase == Phase::alltoall_fwd) a2a_start = spans[id].start_s;
  }
  EXPECT_NEAR(update_end[1] - update_end[0], c.update, 1e-15);  // 2u − u
  EXPECT_DOUBLE_EQ(lookup_start[0], update_end[0]);
  EXPECT_DOUBLE_EQ(lookup_start[1], update_end[1]);
  EXPECT_NEAR(a2a_start, update_end[1] + slow.look, 1e-15);
  // The report shows the imbalance the straggler causes.
  const std::vector<GpuMemory> memory = plan_memory(c.plan, c.cluster, c.model, c.wl);
  const Report rep = build_report(
      {"s", "s", ""}, {c.cluster, c.model, c.wl, c.plan, c.trace, c.cost, o}, r, memory);
  EXPECT_NEAR(rep.imbalance_ratio, 2.0 / 1.5, 1e-9);
  EXPECT_GT(rep.per_gpu[0].idle_s, rep.per_gpu[1].idle_s);
}

TEST(IterationFidelity, JitterIsDeterministicPerSeed) {
  HandCase c;
  c.wl.iterations = 6;
  SimulationOptions o = eq1_options("aggregated");
  o.jitter_cv = 0.2;
  const std::vector<double> a = iteration_times_s(c.run(o));
  const std::vector<double> b = iteration_times_s(c.run(o));
  EXPECT_EQ(a, b);
  EXPECT_NE(*std::min_element(a.begin(), a.end()), *std::max_element(a.begin(), a.end()));
  HandCase other;
  other.wl.iterations = 6;
  other.wl.seed = 7;
  EXPECT_NE(iteration_times_s(other.run(o)), a);
  o.jitter_cv = 0;
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, c.eq1(), 1e-12 * c.eq1());
}

TEST(IterationFidelity, AnIterationLastsAtLeastTheHostsStep) {
  // docs/model.md, "Host overhead": the host's step starts when the previous iteration ends and
  // runs while the GPU works; the next iteration waits for it. Eq. 1 is 29.87 us here.
  const SimulationOptions o = eq1_options("aggregated");
  HandCase c;
  const std::vector<GpuMemory> memory = plan_memory(c.plan, c.cluster, c.model, c.wl);
  const auto report = [&](const HandCase& h) {
    const SimulationInputs in{h.cluster, h.model, h.wl, h.plan, h.trace, h.cost, o};
    return build_report({"s", "s", ""}, in, simulate(in), memory);
  };
  const Report without = report(c);
  // A host step shorter than the GPU's work hides behind it.
  c.cost.host_eager_step_s = 10e-6;
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, c.eq1(), 1e-12 * c.eq1());
  // A longer one sets the pace: every measured iteration lasts the host's step.
  c.cost.host_eager_step_s = 100e-6;
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, 100e-6, 1e-15);
  // The report: the GPUs' busy times do not count the host's, which the GPUs wait for (idle);
  // the breakdown shows the host step, exposed for the part the GPU's work does not cover.
  const Report with = report(c);
  EXPECT_NEAR(with.iteration_time.mean_s, 100e-6, 1e-15);
  for (std::size_t g = 0; g < with.per_gpu.size(); ++g) {
    EXPECT_NEAR(with.per_gpu[g].compute_s, without.per_gpu[g].compute_s, 1e-15);
    EXPECT_NEAR(with.per_gpu[g].comm_transfer_s, without.per_gpu[g].comm_transfer_s, 1e-15);
    EXPECT_NEAR(with.per_gpu[g].idle_s, without.per_gpu[g].idle_s + 100e-6 - c.eq1(), 1e-12);
  }
  const auto host = std::find_if(with.breakdown.begin(), with.breakdown.end(),
                                 [](const PhaseTime& p) { return p.phase == "host_step"; });
  ASSERT_NE(host, with.breakdown.end());
  EXPECT_NEAR(host->serialized_s, 100e-6, 1e-15);
  EXPECT_NEAR(host->exposed_s, 100e-6 - c.eq1(), 1e-12);
  // CUDA graphs: the graph figure applies, the eager one no longer does.
  c.cost.host_launch_mode = HostLaunchMode::cuda_graphs;
  c.cost.host_graph_iteration_s = 60e-6;
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, 60e-6, 1e-15);
  c.cost.host_graph_iteration_s = 0;
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, c.eq1(), 1e-12 * c.eq1());
}

TEST(IterationFidelity, AHostWhoseCollectivesReturnToItRunsInSeriesWithTheGpu) {
  // configs/host/frameworks.yaml, tensorflow2 (collectives_return_to_host): on more than one GPU
  // the GPU's work of an iteration waits for the host's step, so the two add up, whichever is
  // the longer; the default profiles overlap them (the test above).
  const SimulationOptions o = eq1_options("aggregated");
  HandCase c;
  c.cost.host_framework = "tensorflow2";
  c.cost.host_eager_step_s = 10e-6;
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, 10e-6 + c.eq1(), 1e-12);
  c.cost.host_eager_step_s = 100e-6;
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, 100e-6 + c.eq1(), 1e-12);
  // The same profile with CUDA graphs replays the step: nothing is dispatched in series.
  c.cost.host_launch_mode = HostLaunchMode::cuda_graphs;
  c.cost.host_graph_iteration_s = 10e-6;
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, c.eq1(), 1e-12 * c.eq1());
}

TEST(IterationFidelity, AnInputDeliverySlowerThanTheIterationSetsThePace) {
  // docs/model.md, "Data ingestion": each batch's inputs (236 B a sample here: 2 x 10 int64 ids,
  // 2 lengths, 16 dense features and the label; 241,664 B per GPU) cross the node's frontend
  // (shared by its 2 GPUs) and the GPU's host link, on a stream that runs ahead of training.
  const SimulationOptions o = eq1_options("aggregated");
  HandCase c;
  const double eq1 = c.eq1();
  const auto with_host = [&](double frontend_Bps) {
    HardwarePreset h = c.cluster.preset();
    h.host.memory_bytes_per_node = 100e9;
    h.host.link = LinkSpec{100e9, 0};
    h.host.frontend_Bps = frontend_Bps;
    c.cluster = Cluster(h, 1);
  };
  // A host without a frontend: nothing changes.
  with_host(0);
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, eq1, 1e-12 * eq1);
  // A fast frontend (4.8 us a batch; PCIe 2.4 us): hidden behind the GPU's work.
  with_host(100e9);
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, eq1, 1e-12 * eq1);
  // A slow one (483.328 us a batch at 1 GB/s): every measured iteration lasts the delivery.
  with_host(1e9);
  const double deliver = 2 * 1024 * 236 / 1e9;
  ASSERT_GT(deliver, eq1);
  for (double t : iteration_times_s(c.run(o))) EXPECT_NEAR(t, deliver, 1e-12 * deliver);
  // The report: the breakdown shows the delivery, exposed where the GPU's work does not cover
  // it (the GPU waits for its batch), and the wait counts as the host's share, not as work.
  const std::vector<GpuMemory> memory = plan_memory(c.plan, c.cluster, c.model, c.wl);
  const SimulationInputs in{c.cluster, c.model, c.wl, c.plan, c.trace, c.cost, o};
  const Report r = build_report({"s", "s", ""}, in, simulate(in), memory);
  EXPECT_NEAR(r.iteration_time.mean_s, deliver, 1e-12 * deliver);
  const auto ingest = std::find_if(r.breakdown.begin(), r.breakdown.end(),
                                   [](const PhaseTime& p) { return p.phase == "input_ingest"; });
  ASSERT_NE(ingest, r.breakdown.end());
  EXPECT_NEAR(ingest->serialized_s, deliver, 1e-12 * deliver);
  EXPECT_NEAR(ingest->exposed_s, deliver - eq1, 1e-9 * deliver);
  for (const GpuReport& g : r.per_gpu) {
    EXPECT_NEAR(g.shares.host_s, deliver - eq1, 1e-9 * deliver);
    EXPECT_NEAR(g.busy_s, eq1, 1e-9 * eq1);
  }
}

TEST(IterationFidelity, WholeIterationsAgreeBetweenAggregatedAndPerFlowOn64Gpus) {
  // 8 nodes x 8 GPUs (NVSwitch 100 GB/s, NICs 10 GB/s, one rack), 16 tables, every collective
  // of the iteration (input, pooled and gradient AlltoAlls, MLP AllReduce) in both models:
  // iteration times within 2%.
  const Cluster cluster(testing::hand_preset(8), 8);
  const DlrmModel model = hand_model(16, 100'000, 64, 8);
  Workload wl;
  wl.batch_per_gpu = 512;
  wl.iterations = 2;
  wl.warmup = 1;
  const testing::UniformTrace trace(std::vector<std::uint64_t>(16, 100'000),
                                    std::vector<double>(16, 8));
  const CostParams cost = testing::hand_cost_params();
  for (const char* planner : {"table_wise", "row_wise"}) {
    const Plan plan = plan_with(planner, {cluster, model, wl, trace});
    SimulationOptions o;
    o.link_sharing = "aggregated";
    const auto agg = iteration_times_s(simulate({cluster, model, wl, plan, trace, cost, o}));
    o.link_sharing = "per_flow";
    const auto per_flow = iteration_times_s(simulate({cluster, model, wl, plan, trace, cost, o}));
    ASSERT_EQ(agg.size(), per_flow.size());
    for (std::size_t i = 0; i < agg.size(); ++i) {
      EXPECT_NEAR(per_flow[i] / agg[i], 1.0, 0.02) << planner << " iteration " << i;
    }
  }
}

}  // namespace
}  // namespace shardsim
