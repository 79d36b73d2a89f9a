// The resource guard's estimate against hand counts (io/resource_estimate.hpp), memory sizes on
// the command line, and the refusal message.
#include "shardsim/run/resource_estimate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "io/scenario_test_helpers.hpp"
#include "shardsim/metrics/report.hpp"
#include "shardsim/model/embedding_table.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/run/resource_guard.hpp"
#include "shardsim/trace/power_law_profile.hpp"
#include "support/power_law_table.hpp"

namespace shardsim {
namespace {

// The tiny scenario (2 tables: a 1000 x 16, b 5000 x 32; dgx-a100, 8 GPUs a node) with
// `nodes` nodes and the given planners.
Scenario tiny(int nodes, const std::string& planners = "table_wise",
              const std::string& extra_workload = "") {
  std::vector<std::string> lines = test::tiny_lines();
  lines[3] = "  nodes: " + std::to_string(nodes);
  lines[16] = "  planner: " + planners;
  if (!extra_workload.empty()) lines[14] += "\n" + extra_workload;
  return load_scenario_text(test::join_lines(lines), "tiny.yaml");
}

double item(const std::vector<MemoryItem>& items, const std::string& prefix) {
  for (const MemoryItem& i : items) {
    if (i.what.rfind(prefix, 0) == 0) return i.bytes;
  }
  ADD_FAILURE() << "no item starting with '" << prefix << "'";
  return -1;
}

TEST(ResourceEstimate, TrafficGrowsWithGpusAndTheMatricesStopAtAThousandUnits) {
  // 512 nodes x 8 = 4096 GPUs, three planners: each report keeps a forward and a backward matrix
  // of at most 1024 units a side (sim/comm_traffic.hpp): 3 x 2 x 1024^2 x 8 B = 50,331,648 B.
  const Scenario s = tiny(512, "[table_wise, row_wise, data_parallel]");
  const RunFootprint f = run_footprint(s);
  EXPECT_EQ(item(f.kept, "communication matrices of the reports"), 50331648.0);
  // While one plan is simulated: 8 views of 4096 GPUs x levels x (sent, received) doubles, the
  // two unit matrices and the 512 x 512 node level table: O(GPUs), not O(GPUs^2).
  const double levels = 2.0 + static_cast<double>(s.cluster.preset.tiers.size());
  EXPECT_EQ(item(f.peak, "traffic per GPU and level while simulating"),
            8 * 4096 * levels * 2 * 8 + 2 * 1024.0 * 1024 * 8 + 512.0 * 512);
  // As text for --out: 3 reports x 4 matrices (fwd, bwd; JSON and CSV) x 1024^2 x 12 B.
  EXPECT_EQ(item(f.output, "report files as text"), 3.0 * 4 * 1024 * 1024 * 12);
  // 8 GPUs: 64 entries per matrix.
  EXPECT_EQ(item(run_footprint(tiny(1)).kept, "communication matrices of the reports"),
            1.0 * 2 * 64 * 8);
}

TEST(ResourceEstimate, LoadedModelAndPerGpuRows) {
  const Scenario s = tiny(2);  // 16 GPUs, one planner
  const RunFootprint f = run_footprint(s);
  // Two tables named "a" and "b": 2 x sizeof(EmbeddingTable) + 2 name bytes.
  EXPECT_EQ(item(f.kept, "the loaded model"), 2.0 * sizeof(EmbeddingTable) + 2);
  EXPECT_GT(item(f.kept, "per-GPU rows"), 16.0 * sizeof(GpuReport));
  // Generated tables gen0..gen999: 1000 tables + 3 x 1000 + (10 + 2 x 90 + 3 x 900) = 5890
  // name bytes, plus the two listed tables.
  std::vector<std::string> lines = test::tiny_lines();
  lines[12] += "\n  generate: {count: 1000, rows: 100, dim: 16, pooling: 1}";
  const Scenario g = load_scenario_text(test::join_lines(lines), "gen.yaml");
  EXPECT_EQ(item(run_footprint(g).kept, "the loaded model"),
            1002.0 * sizeof(EmbeddingTable) + 2 + 5890);
}

TEST(ResourceEstimate, ShardsPerPlanner) {
  // T = 2 tables (dims 16 and 32), N = 8 GPUs, G = 8 GPUs a node. The bounds are each planner's
  // own (PlannerInfo::shape_bound); tests/plan/plan_shape_bound_test.cpp checks them against
  // real plans.
  const Scenario s = tiny(1);
  auto shards = [&](const std::string& planner, const Scenario& sc) {
    return plan_shape_bound(planner, sc).max_shards;
  };
  EXPECT_EQ(shards("table_wise", s), 2);
  EXPECT_EQ(shards("random", s), 2);
  EXPECT_EQ(shards("row_wise", s), 16);           // T x N
  EXPECT_EQ(shards("data_parallel", s), 16);      // T x N replicas
  EXPECT_EQ(shards("column_wise", s), 12);        // 16/4 + 32/4 column blocks
  EXPECT_EQ(shards("table_row_wise", s), 16);     // T x G
  EXPECT_EQ(shards("table_column_wise", s), 12);  // min(T x G, column blocks)
  EXPECT_EQ(shards("memory_greedy", s), 10);      // T + N
  EXPECT_EQ(shards("", s), 16);                   // a plan file: T x N, the most
  EXPECT_EQ(shards("oper", s), (2000 + 2) * 8);   // (2/threshold + T) x N
  Scenario fine = s;
  fine.placement.planners = {"oper"};
  fine.placement.options =
      YamlValue(YAML::Load("{threshold: 0.0001}"), "t.yaml", "placement.options");
  EXPECT_EQ(shards("oper", fine), (20000 + 2) * 8);
  // Options keyed by planner name reach OPER too.
  fine.placement.planners = {"table_wise", "oper"};
  fine.placement.options =
      YamlValue(YAML::Load("{oper: {threshold: 0.0001}}"), "t.yaml", "placement.options");
  EXPECT_EQ(shards("oper", fine), (20000 + 2) * 8);
  EXPECT_FALSE(plan_shape_bound("table_wise", s).may_replicate);
  EXPECT_TRUE(plan_shape_bound("data_parallel", s).may_replicate);
}

TEST(ResourceEstimate, SampledTracesCountTheDistinctRowSet) {
  // Table b: pooling 4, 8 GPUs x 512 samples: 16384 lookups <= 5000 rows -> 5000 distinct;
  // 2 x 5000 -> 16384 slots x 8 B = 131072 B; table a: 8 x 512 x 2 = 8192 lookups, 1000 rows ->
  // 2048 slots. Bags of one GPU of b: 512 x (4 x 8 + 4) = 18432 B.
  const Scenario s = tiny(1, "table_wise", "  trace: {mode: sampled}");
  EXPECT_EQ(item(run_footprint(s).peak, "sampled trace"), 131072.0 + 18432);
  // Expected mode has no such term.
  for (const MemoryItem& i : run_footprint(tiny(1)).peak) {
    EXPECT_EQ(i.what.find("sampled"), std::string::npos) << i.what;
  }
}

TEST(ResourceEstimate, ExpectedDrawsAreOneValuePerBlock) {
  // row_wise on 16 GPUs cuts a table into 16 blocks. An expected-mode draw keeps one value per
  // block (TraceSource::compact_draw): 16 x 8 B; a sampled one one per block and GPU: 16 x 16 x
  // 8 B. Nothing else of the plan's term depends on the trace's mode.
  const double expected = item(run_footprint(tiny(2, "row_wise")).peak, "plan 'row_wise'");
  const double sampled =
      item(run_footprint(tiny(2, "row_wise", "  trace: {mode: sampled}")).peak, "plan 'row_wise'");
  EXPECT_EQ(sampled - expected, 16.0 * 16 * 8 - 16.0 * 8);
}

TEST(ResourceEstimate, SyntheticTracesCountEveryTablesProfile) {
  // Scattered rows (the default): each table's profile with a head index of min(rows, 4096)
  // ranks; a 1000 x 16 and a 5000 x 32 table: 1000 + 4096 head ranks at 32 B.
  const RunFootprint scattered = run_footprint(tiny(1));
  const double base = static_cast<double>(PowerLawProfile::memory_bytes(
      testing::power_law_table("x", 10, 1.0, PoolingSpec::fixed_at(1)), HotRowLayout::clustered));
  const double heads = item(scattered.shared, "synthetic trace profiles: 2 tables") - 2 * base;
  EXPECT_GT(heads, (1000.0 + 4096) * 32);
  EXPECT_LT(heads, (1000.0 + 4096) * 32 + 1024);
  // Clustered rows build no head index.
  EXPECT_EQ(item(run_footprint(tiny(1, "table_wise", "  trace: {layout: clustered}")).shared,
                 "synthetic trace profiles"),
            2 * base);
}

TEST(ResourceEstimate, RunsOfOtherTablesHoldASetOfProfilesEach) {
  // Three runs whose table b differs (its head is 4096 ranks in each, so the sets weigh the
  // same): each run in flight holds its own profiles, and the last finished run's may still be
  // kept for the next: jobs + 1 sets, at most one a run.
  std::vector<Scenario> runs{tiny(1), tiny(1), tiny(1)};
  runs[1].model.tables[1].rows = 6000;
  runs[2].model.tables[1].alpha = 0.9;
  const double set = run_footprint(runs[0]).shared_bytes();
  EXPECT_EQ(run_footprint(runs[1]).shared_bytes(), set);
  const ResourceEstimate one_job = estimate_memory(runs, RunShape{1, false});
  EXPECT_EQ(item(one_job.items, "2 sets of synthetic trace profiles"), 2 * set);
  const ResourceEstimate four_jobs = estimate_memory(runs, RunShape{4, false});
  EXPECT_EQ(item(four_jobs.items, "3 sets of synthetic trace profiles"), 3 * set);
  // Another seed draws other profiles too; the same tables and seed, one set.
  std::vector<Scenario> seeds{tiny(1), tiny(1)};
  seeds[1].workload.seed += 1;
  EXPECT_EQ(
      item(estimate_memory(seeds, RunShape{1, false}).items, "2 sets of synthetic trace profiles"),
      2 * set);
  seeds[1].workload.seed -= 1;
  EXPECT_EQ(item(estimate_memory(seeds, RunShape{2, false}).items, "synthetic trace profiles"),
            set);
}

TEST(ResourceEstimate, TaskGraphGrowsWithIterationsAndGpus) {
  // Training: 14 tasks per GPU per iteration for table_wise (11, the dense optimizer's step, the
  // host's step and the input AlltoAll, on by default: simulation.pipeline.input_alltoall);
  // 12 iterations (2 warm-up + 10).
  const double t8 = item(run_footprint(tiny(1)).peak, "plan 'table_wise'");
  const double t16 = item(run_footprint(tiny(2)).peak, "plan 'table_wise'");
  // The difference between 16 and 8 GPUs: 8 more GPUs x 12 iterations x 14 tasks and their
  // per-GPU iteration data (the expected-mode draw of one block is one value): linear in N.
  const double t24 = item(run_footprint(tiny(3)).peak, "plan 'table_wise'");
  EXPECT_NEAR(t24 - t16, t16 - t8, 1e-6);
  EXPECT_GT(t16 - t8, 8.0 * 12 * 14 * 100);  // at least 100 B a task
  // The host's step is a task only when it takes time.
  std::vector<std::string> lines = test::tiny_lines();
  lines.push_back(
      "cost: {host_eager_step_s: 0, host_eager_inference_step_s: 0, host_embedding_op_s: 0, "
      "host_collective_call_s: 0}");
  const Scenario no_host = load_scenario_text(test::join_lines(lines), "tiny.yaml");
  const std::string what = [&] {
    for (const MemoryItem& i : run_footprint(no_host).peak) {
      if (i.what.rfind("plan 'table_wise'", 0) == 0) return i.what;
    }
    return std::string();
  }();
  EXPECT_NE(what.find("x 13 tasks"), std::string::npos) << what;
}

TEST(ResourceEstimate, LinkSamplesPerFlowAndChromeTrace) {
  const auto with = [](const std::string& simulation) {
    std::vector<std::string> lines = test::tiny_lines();
    lines.push_back("simulation: " + simulation);
    return load_scenario_text(test::join_lines(lines), "tiny.yaml");
  };
  const Scenario aggregated = with("{link_sharing: aggregated}");
  // Training: 5 collectives an iteration (4 + replica syncs), 12 iterations, 2 ends each, 4
  // links a GPU, 8 GPUs; 24 B a sample.
  const double samples = 12.0 * 5 * 2 * 4 * 8;
  EXPECT_DOUBLE_EQ(item(run_footprint(aggregated).peak, "link utilisation samples"), samples * 24);
  for (const MemoryItem& i : run_footprint(with("{link_sharing: none}")).peak) {
    EXPECT_EQ(i.what.find("link utilisation"), std::string::npos) << "no samples without sharing";
  }
  // The per-flow model: one flow per GPU pair, 64 B each, and three pair matrices.
  EXPECT_DOUBLE_EQ(item(run_footprint(with("{link_sharing: per_flow}")).peak, "per-flow network"),
                   8.0 * 8 * 64 + 3 * 8 * 8 * 8);
  // --trace-out: ~300 B a span and 110 B a sample, counted only when the run writes a trace.
  // Spans per GPU per iteration in training (sim/iteration_dag.cpp): lookup, bottom MLP,
  // interaction, top MLP, their two backward passes, the bottom MLP's, the embedding update
  // (8 local tasks), the AlltoAll forward and backward, the MLP AllReduce (11), the dense
  // optimizer's step, the host's step (2.7 ms by default) and the input AlltoAll: 14, for 12
  // iterations x 8 GPUs and one plan.
  const double trace = 12.0 * 8 * 14 * 300 + samples * 110;
  EXPECT_DOUBLE_EQ(item(run_footprint(aggregated).chrome_trace, "Chrome trace text"), trace);
  const std::vector<Scenario> runs{aggregated};
  EXPECT_DOUBLE_EQ(estimate_memory(runs, RunShape{1, false, true}).total_bytes,
                   estimate_memory(runs, RunShape{1, false, false}).total_bytes + trace);
  EXPECT_DOUBLE_EQ(item(estimate_memory(runs, RunShape{1, false, true}).items, "Chrome trace"),
                   trace);
}

TEST(ResourceEstimate, RunsCombineKeptPeakAndOutput) {
  const std::vector<Scenario> runs{tiny(1), tiny(4), tiny(2)};
  const RunFootprint f1 = run_footprint(runs[0]), f4 = run_footprint(runs[1]),
                     f2 = run_footprint(runs[2]);
  const double kept = f1.kept_bytes() + f4.kept_bytes() + f2.kept_bytes();
  // The same tables at every point: one set of trace profiles, shared by every run.
  const double shared = f1.shared_bytes();
  EXPECT_GT(shared, 0);
  EXPECT_EQ(f4.shared_bytes(), shared);
  // One job: the kept bytes of all, the peak of the largest (4 nodes).
  EXPECT_DOUBLE_EQ(estimate_memory(runs, RunShape{1, false}).total_bytes,
                   kept + f4.peak_bytes() + shared);
  // Two jobs: two peaks in flight; five jobs for three runs: three.
  EXPECT_DOUBLE_EQ(estimate_memory(runs, RunShape{2, false}).total_bytes,
                   kept + 2 * f4.peak_bytes() + shared);
  EXPECT_DOUBLE_EQ(estimate_memory(runs, RunShape{5, false}).total_bytes,
                   kept + 3 * f4.peak_bytes() + shared);
  // --out: the text of every report, 1.5 times (the copy made while rendering).
  EXPECT_DOUBLE_EQ(estimate_memory(runs, RunShape{1, true}).total_bytes,
                   kept + f4.peak_bytes() + shared +
                       1.5 * (f1.output_bytes() + f4.output_bytes() + f2.output_bytes()));
  // Items are sorted largest first.
  const ResourceEstimate e = estimate_memory(runs, RunShape{2, true});
  for (std::size_t i = 1; i < e.items.size(); ++i)
    EXPECT_GE(e.items[i - 1].bytes, e.items[i].bytes);
}

TEST(ResourceEstimate, MemorySizes) {
  EXPECT_EQ(parse_memory_limit("8G").bytes, 8.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_memory_limit("8GiB").bytes, 8.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_memory_limit("8gb").bytes, 8.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_memory_limit("512M").bytes, 512.0 * 1024 * 1024);
  EXPECT_EQ(parse_memory_limit("1.5T").bytes, 1.5 * 1024 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_memory_limit("100k").bytes, 102400.0);
  EXPECT_EQ(parse_memory_limit("1e9").bytes, 1e9);
  EXPECT_EQ(parse_memory_limit("0").bytes, 0);
  EXPECT_EQ(parse_memory_limit("none").bytes, 0);
  EXPECT_EQ(parse_memory_limit("unlimited").bytes, 0);
  for (const char* bad : {"", "G", "8X", "-1G", "eight", "8 G B x", "nan", "inf", "0.1"}) {
    try {
      (void)parse_memory_limit(bad);
      ADD_FAILURE() << "'" << bad << "' should be refused";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "--max-memory") << e.what();
      EXPECT_NE(std::string(e.what()).find("not a memory size"), std::string::npos) << e.what();
    }
  }
  // The default: half of the machine (or container), never 0 on Linux.
  const MemoryLimit d = default_memory_limit();
  EXPECT_GT(d.bytes, 0);
  EXPECT_NE(d.origin.find("half of"), std::string::npos) << d.origin;
}

TEST(ResourceEstimate, RefusalNamesEstimateLimitTermsAndHint) {
  const Scenario s = tiny(512, "[table_wise, row_wise, data_parallel]");
  const ResourceEstimate e = estimate_memory({&s, 1}, RunShape{1, true});
  EXPECT_GT(e.total_bytes, 2e8);
  EXPECT_NO_THROW(check_memory(e, MemoryLimit{0, "none"}, "big.yaml"));
  EXPECT_NO_THROW(check_memory(e, MemoryLimit{e.total_bytes, "exact"}, "big.yaml"));
  try {
    check_memory(e, parse_memory_limit("100M"), "big.yaml");
    ADD_FAILURE() << "over the limit";
  } catch (const InputError& err) {
    const std::string msg = err.what();
    EXPECT_EQ(err.where().file, "big.yaml");
    EXPECT_EQ(err.key(), "--max-memory");
    EXPECT_NE(msg.find("would need about " + human_bytes(e.total_bytes)), std::string::npos) << msg;
    EXPECT_NE(msg.find("limit of 104.9 MB (--max-memory 100M)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("GPUs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cluster.nodes"), std::string::npos) << msg;
  }
}

TEST(ResourceEstimate, LooseBoundsCountThePlanRecordsAndTheRestWithThePlan) {
  // hybrid's bound (T x N, checked after planning): before planning its term holds the plan's
  // Shard records only; once the plan exists its shape replaces the bound and the per-shard
  // arrays, serving map and draws are counted. 2 tables on 64 x 8 = 512 GPUs.
  const Scenario s = tiny(64, "hybrid");
  const RunFootprint before = run_footprint(s);
  // The task graph's share, as data_parallel's term has it (replicas too: T x N shards, a
  // serving map of N ids a table, one block a table).
  const double kShard = sizeof(Shard) + 3 * 8 + 40 + 64;
  const double tasks_etc =
      item(run_footprint(tiny(64, "data_parallel")).peak, "plan 'data_parallel'") - 1024 * kShard -
      2.0 * 512 * 8 - 8;
  EXPECT_EQ(item(before.peak, "plan 'hybrid' while it is made: at most 1024 shards"),
            1024.0 * sizeof(Shard) + tasks_etc);
  // A made plan of two whole tables, one of them replicated on two GPUs: 3 shards, one block a
  // table, one replicated table (its serving map: 512 ids).
  Plan plan;
  plan.planner = "hybrid";
  plan.shards = {whole_table_shard(0, 1000, 16), whole_table_shard(1, 5000, 32),
                 whole_table_shard(1, 5000, 32)};
  plan.shards[2].gpu = 1;
  plan.shards[2].replica = 1;
  const PlanShapeBound shape = plan_shape_of(plan);
  EXPECT_EQ(shape.max_shards, 3);
  EXPECT_EQ(shape.max_blocks_per_table, 1);
  EXPECT_EQ(shape.max_replicated_tables, 1);
  EXPECT_TRUE(shape.may_replicate);
  const MadePlan made{plan.planner, shape};
  const double with_plan =
      item(run_footprint(s, &made).peak, "plan 'hybrid' and its simulation: 3");
  EXPECT_EQ(with_plan, 3 * kShard + 1.0 * 512 * 8 + tasks_etc + 1 * 8);
}

TEST(ResourceGuard, ChecksEachPlanWithItsOwnShape) {
  // Refused before planning on the bound: nothing; after planning on the plan: a plan far larger
  // than the bound's pre-plan count would be (every table cut into a million row ranges).
  const Scenario s = tiny(1, "hybrid");
  const ResourceEstimate e = estimate_memory({&s, 1}, RunShape{});
  const ResourceLimits limits{MemoryLimit{e.total_bytes * 1.01, "--max-memory T"}};
  const PlanGuard guard = check_runs({&s, 1}, RunShape{}, limits, "tiny.yaml");
  EXPECT_DOUBLE_EQ(guard.other_bytes, e.total_bytes - e.run_peak_bytes);
  Plan small;
  small.planner = "hybrid";
  small.shards = {whole_table_shard(0, 1000, 16), whole_table_shard(1, 5000, 32)};
  EXPECT_NO_THROW(check_plan(s, small, guard));
  Plan big = small;
  big.shards.clear();
  for (std::uint64_t r = 0; r < 1000000; ++r) {
    Shard sh = whole_table_shard(1, 5000000, 32, ShardKind::row_wise);
    sh.rows = {5 * r, 5 * r + 5};
    big.shards.push_back(sh);
  }
  try {
    check_plan(s, big, guard);
    ADD_FAILURE() << "a plan over the limit";
  } catch (const InputError& err) {
    const std::string msg = err.what();
    EXPECT_EQ(err.key(), "--max-memory");
    EXPECT_NE(msg.find("plan 'hybrid' and its simulation: 1e+06 shards"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(--max-memory T)"), std::string::npos) << msg;
  }
  // No limit: no second look.
  EXPECT_NO_THROW(check_plan(s, big, PlanGuard{}));
}

TEST(ResourceEstimate, HumanBytes) {
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1500), "1.5 kB");
  EXPECT_EQ(human_bytes(2.5e6), "2.5 MB");
  EXPECT_EQ(human_bytes(805306368), "805.3 MB");
  EXPECT_EQ(human_bytes(1.073741824e9), "1.07 GB");
  EXPECT_EQ(human_bytes(3e12), "3.00 TB");
}

}  // namespace
}  // namespace shardsim
