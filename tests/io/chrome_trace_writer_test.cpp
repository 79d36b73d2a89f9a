// Chrome trace output: valid trace-event JSON, one process per GPU with a thread per used stream,
// spans with bytes, link counters; byte-identical per seed; never overwrites without --force.
#include "shardsim/io/chrome_trace_writer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "shardsim/core/error.hpp"
#include "shardsim/plan/planner.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim {
namespace {

namespace fs = std::filesystem;

struct Traced {
  Cluster cluster{testing::hand_preset(2), 2};
  DlrmModel model = testing::hand_model(4, 10'000, 32, 4);
  Workload wl;
  testing::UniformTrace trace{{10'000, 10'000, 10'000, 10'000}, {4, 4, 4, 4}};
  CostParams cost = testing::hand_cost_params();
  Traced() {
    wl.batch_per_gpu = 256;
    wl.iterations = 2;
    wl.warmup = 1;
  }
  std::string render() const {
    ChromeTrace t;
    for (const char* planner : {"table_wise", "row_wise"}) {
      Plan plan = testing::plan_with(planner, {cluster, model, wl, trace});
      plan.planner = planner;
      t.add(planner, cluster, simulate({cluster, model, wl, plan, trace, cost}));
    }
    std::ostringstream out;
    t.write(out);
    return out.str();
  }
};

TEST(ChromeTrace, ProcessesThreadsSpansAndCounters) {
  const Traced t;
  const std::string text = t.render();
  const nlohmann::json j = nlohmann::json::parse(text);  // valid JSON
  ASSERT_TRUE(j.contains("traceEvents"));
  std::set<int> pids;
  std::set<std::string> process_names, thread_names, phases;
  std::set<std::pair<int, int>> named_threads, drawn_threads;  // (pid, tid)
  int counters = 0, collectives_with_bytes = 0;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    pids.insert(e["pid"].get<int>());
    if (ph == "M" && e["name"] == "process_name") process_names.insert(e["args"]["name"]);
    if (ph == "M" && e["name"] == "thread_name") {
      thread_names.insert(e["args"]["name"]);
      named_threads.emplace(e["pid"].get<int>(), e["tid"].get<int>());
    }
    if (ph == "X") {
      phases.insert(e["name"]);
      drawn_threads.emplace(e["pid"].get<int>(), e["tid"].get<int>());
      EXPECT_GE(e["dur"].get<double>(), 0);
      if (e["args"].contains("bytes")) {
        EXPECT_GT(e["args"]["bytes"].get<double>(), 0);
        ++collectives_with_bytes;
      }
    }
    if (ph == "C") {
      ++counters;
      const double u = e["args"]["utilization"];
      EXPECT_GE(u, 0);
      EXPECT_LE(u, 1.0 + 1e-9);
    }
  }
  // Two planners x (4 GPUs + 1 network process).
  EXPECT_EQ(pids.size(), 10u);
  EXPECT_TRUE(process_names.count("table_wise gpu3 (node 1)"));
  EXPECT_TRUE(process_names.count("row_wise network (link utilisation)"));
  // The five GPU streams are named; the host's framework step (0 s in the hand cost
  // parameters) and the input delivery (the preset has no frontend network) stay empty and
  // unnamed: a thread is named exactly where it has a span.
  EXPECT_EQ(thread_names.size(), 5u);
  EXPECT_FALSE(thread_names.count("host: framework step"));
  EXPECT_FALSE(thread_names.count("host: input delivery (frontend network, PCIe)"));
  EXPECT_TRUE(thread_names.count("comm: pooled-embedding AlltoAll"));
  EXPECT_TRUE(thread_names.count("compute: sparse (embeddings)"));
  EXPECT_EQ(named_threads, drawn_threads);
  for (const char* p : {"embedding_lookup_fwd", "alltoall_fwd", "alltoall_bwd", "mlp_allreduce",
                        "input_alltoall", "top_mlp_fwd"}) {
    EXPECT_TRUE(phases.count(p)) << p;
  }
  EXPECT_GT(collectives_with_bytes, 0);
  EXPECT_GT(counters, 0);
}

TEST(ChromeTrace, ByteIdenticalForTheSameSeed) {
  const Traced a, b;
  EXPECT_EQ(a.render(), b.render());
}

TEST(ChromeTrace, RefusesToOverwriteWithoutForceAndWritesAtomically) {
  const fs::path dir = fs::temp_directory_path() /
                       ("shardsim_trace_test_" + std::to_string(static_cast<long>(::getpid())));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "trace.json").string();
  const Traced t;
  ChromeTrace trace;
  {
    Plan plan = testing::plan_with("table_wise", {t.cluster, t.model, t.wl, t.trace});
    trace.add("table_wise", t.cluster, simulate({t.cluster, t.model, t.wl, plan, t.trace, t.cost}));
  }
  EXPECT_NO_THROW(check_trace_out(path, false));
  write_chrome_trace_file(path, trace, false);
  ASSERT_TRUE(fs::exists(path));
  EXPECT_THROW(check_trace_out(path, false), InputError);
  EXPECT_THROW(write_chrome_trace_file(path, trace, false), InputError);
  EXPECT_NO_THROW(write_chrome_trace_file(path, trace, true));
  EXPECT_THROW(check_trace_out(dir.string(), true), InputError);  // a directory
  EXPECT_THROW(check_trace_out((dir / "missing" / "t.json").string(), false), InputError);
  // Only the trace itself is left: no temporary file.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  std::ifstream in(path);
  const nlohmann::json parsed = nlohmann::json::parse(in);
  EXPECT_TRUE(parsed.contains("traceEvents"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace shardsim
