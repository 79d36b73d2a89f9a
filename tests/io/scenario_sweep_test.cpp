// sweep: Cartesian product (first key slowest), labels, and bad sweeps.
#include <gtest/gtest.h>

#include "scenario_test_helpers.hpp"
#include "shardsim/io/sweep.hpp"

#include <limits>

namespace shardsim {
namespace {

YAML::Node tiny_doc_plus(const std::string& extra) {
  return parse_yaml(test::tiny_plus(extra), "sw.yaml");
}

TEST(ScenarioSweep, CartesianProductFirstKeySlowest) {
  const YAML::Node doc =
      tiny_doc_plus("sweep:\n  cluster.nodes: [1, 2]\n  workload.batch_per_gpu: [256, 512, 1024]");
  const auto points = expand_sweep(doc, "sw.yaml");
  ASSERT_EQ(points.size(), 6u);
  const std::vector<std::string> labels = {
      "cluster.nodes=1,workload.batch_per_gpu=256",  "cluster.nodes=1,workload.batch_per_gpu=512",
      "cluster.nodes=1,workload.batch_per_gpu=1024", "cluster.nodes=2,workload.batch_per_gpu=256",
      "cluster.nodes=2,workload.batch_per_gpu=512",  "cluster.nodes=2,workload.batch_per_gpu=1024"};
  const int nodes[] = {1, 1, 1, 2, 2, 2};
  const unsigned batch[] = {256, 512, 1024, 256, 512, 1024};
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].label, labels[i]);
    EXPECT_FALSE(points[i].document["sweep"].IsDefined()) << "the sweep block is removed";
    const Scenario sc = load_scenario(points[i].document, "sw.yaml");
    EXPECT_EQ(sc.cluster.nodes, nodes[i]);
    EXPECT_EQ(sc.workload.batch_per_gpu, batch[i]);
    EXPECT_TRUE(sc.sweep.empty());
  }
  // The input document keeps its sweep and its values.
  EXPECT_TRUE(doc["sweep"].IsMap());
  EXPECT_EQ(doc["cluster"]["nodes"].Scalar(), "1");
  EXPECT_EQ(doc["workload"]["batch_per_gpu"].Scalar(), "512");
}

TEST(ScenarioSweep, ListValuesIndicesAndNewKeys) {
  const YAML::Node doc = tiny_doc_plus(
      "sweep:\n"
      "  placement.planner: [[table_wise, row_wise], data_parallel]\n"
      "  model.tables[1].rows: [10, 20]\n"
      "  workload.trace.layout: [clustered]");
  const auto points = expand_sweep(doc, "sw.yaml");
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].label,
            "placement.planner=[table_wise, row_wise],model.tables[1].rows=10,"
            "workload.trace.layout=clustered");
  EXPECT_EQ(points[3].label,
            "placement.planner=data_parallel,model.tables[1].rows=20,"
            "workload.trace.layout=clustered");
  const Scenario first = load_scenario(points[0].document, "sw.yaml");
  EXPECT_EQ(first.placement.planners, (std::vector<std::string>{"table_wise", "row_wise"}));
  EXPECT_EQ(first.model.tables[1].rows, 10u);
  EXPECT_EQ(first.workload.trace.layout, HotRowLayout::clustered);
  const Scenario last = load_scenario(points[3].document, "sw.yaml");
  EXPECT_EQ(last.placement.planners, (std::vector<std::string>{"data_parallel"}));
  EXPECT_EQ(last.model.tables[1].rows, 20u);
}

TEST(ScenarioSweep, NoSweepIsOnePoint) {
  const YAML::Node doc = parse_yaml(test::tiny_text(), "t.yaml");
  const auto points = expand_sweep(doc, "t.yaml");
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].label, "");
  EXPECT_EQ(load_scenario(points[0].document, "t.yaml").name, "tiny");
}

TEST(ScenarioSweep, ExampleSweepsNodes) {
  const YAML::Node doc = load_yaml_file(test::source_path("scenarios/example.yaml"));
  const auto points = expand_sweep(doc, "example.yaml");
  ASSERT_EQ(points.size(), 3u);
  const int nodes[] = {1, 2, 4};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(points[i].label, "cluster.nodes=" + std::to_string(nodes[i]));
    const Scenario sc = load_scenario(points[i].document, "example.yaml");
    EXPECT_EQ(sc.cluster.nodes, nodes[i]);
    EXPECT_EQ(sc.model.tables.size(), 103u);
  }
}

TEST(ScenarioSweep, TableListPointsAreTheirOwnAndKeepTheirLines) {
  // Points whose values are whole table lists (NeuroShard's task files) share one pool of nodes
  // (YamlArena): each must still read its own list, at its own lines, and leave the input as it
  // was.
  const YAML::Node doc = tiny_doc_plus(
      "sweep:\n"
      "  model.tables:\n"
      "    - [{name: x, rows: 10, dim: 4, pooling: 1}]\n"
      "    - [{name: y, rows: 20, dim: 4, pooling: 1}, {name: z, rows: 30, dim: 8, pooling: 1}]\n"
      "    - [{name: w, rows: abc, dim: 4, pooling: 1}]");
  const auto points = expand_sweep(doc, "sw.yaml");
  ASSERT_EQ(points.size(), 3u);
  const Scenario first = load_scenario(points[0].document, "sw.yaml");
  ASSERT_EQ(first.model.tables.size(), 1u);
  EXPECT_EQ(first.model.tables[0].name, "x");
  EXPECT_EQ(first.model.tables[0].rows, 10u);
  const Scenario second = load_scenario(points[1].document, "sw.yaml");
  ASSERT_EQ(second.model.tables.size(), 2u);
  EXPECT_EQ(second.model.tables[1].rows, 30u);
  try {
    (void)load_scenario(points[2].document, "sw.yaml");
    ADD_FAILURE() << "rows: abc must fail";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 22) << e.what();  // the third list's line
  }
  // The input keeps its own tables (a and b) and its sweep.
  ASSERT_EQ(doc["model"]["tables"].size(), 2u);
  EXPECT_EQ(doc["model"]["tables"][0]["name"].Scalar(), "a");
  EXPECT_EQ(doc["sweep"]["model.tables"].size(), 3u);
}

TEST(ScenarioSweep, PointsKeepSourceLines) {
  // A bad value elsewhere in a point still reports its own line (9), not line 1.
  const YAML::Node doc = parse_yaml(
      test::tiny_with(9, "      rows: abc") + "sweep:\n  cluster.nodes: [1, 2]\n", "bad.yaml");
  const auto points = expand_sweep(doc, "bad.yaml");
  try {
    (void)load_scenario(points[1].document, "bad.yaml");
    ADD_FAILURE() << "rows: abc must fail";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 9) << e.what();
  }
}

TEST(ScenarioSweep, BadSweepValueReportsTheSweepLine) {
  // cluster.nodes: [1, 0]: the second point fails at the 0 on line 19.
  const YAML::Node doc = tiny_doc_plus("sweep:\n  cluster.nodes: [1, 0]");
  const auto points = expand_sweep(doc, "bad.yaml");
  EXPECT_NO_THROW((void)load_scenario(points[0].document, "bad.yaml"));
  try {
    (void)load_scenario(points[1].document, "bad.yaml");
    ADD_FAILURE() << "nodes 0 must fail";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 19) << e.what();
    EXPECT_EQ(e.key(), "cluster.nodes");
  }
}

TEST(ScenarioSweep, UnknownKeyFailsWhenThePointIsLoaded) {
  const YAML::Node doc = tiny_doc_plus("sweep:\n  cluster.nodez: [1, 2]");
  const auto points = expand_sweep(doc, "bad.yaml");  // syntactically fine
  ASSERT_EQ(points.size(), 2u);
  try {
    (void)load_scenario(points[0].document, "bad.yaml");
    ADD_FAILURE() << "cluster.nodez must fail";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.where().line, 19) << msg;  // the sweep key's line
    EXPECT_EQ(e.key(), "cluster.nodez");
    EXPECT_NE(msg.find("did you mean 'nodes'?"), std::string::npos) << msg;
  }
}

void expect_sweep_error(const std::string& sweep_block, int line, const std::string& key,
                        const std::string& fragment) {
  const YAML::Node doc = tiny_doc_plus(sweep_block);
  for (int pass = 0; pass < 2; ++pass) {
    try {
      if (pass == 0) {
        (void)expand_sweep(doc, "bad.yaml");
      } else {
        (void)load_scenario(doc, "bad.yaml");  // load_scenario checks the sweep block too
      }
      ADD_FAILURE() << "no error for " << sweep_block << " (pass " << pass << ")";
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(e.where().line, line) << msg;
      EXPECT_EQ(e.key(), key) << msg;
      EXPECT_NE(msg.find("bad.yaml:" + std::to_string(line)), std::string::npos) << msg;
      EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
    }
  }
}

TEST(ScenarioSweep, BadSweepsFailEarly) {
  expect_sweep_error("sweep:\n  cluster..nodes: [1, 2]", 19, "sweep.cluster..nodes",
                     "bad key path");
  expect_sweep_error("sweep:\n  model.tables[a].rows: [1, 2]", 19, "sweep.model.tables[a].rows",
                     "not a list index");
  expect_sweep_error("sweep:\n  cluster.nodes: 4", 19, "sweep.cluster.nodes",
                     "expected a list of values");
  expect_sweep_error("sweep:\n  cluster.nodes: []", 19, "sweep.cluster.nodes", "empty");
  expect_sweep_error("sweep:\n  sweep.x: [1]", 19, "sweep.sweep.x", "under `sweep`");
  expect_sweep_error("sweep: [1, 2]", 18, "sweep", "expected a mapping");
  std::string many = "sweep:\n";
  for (int k = 0; k < 6; ++k) {
    many += "  cost.k" + std::to_string(k) + ": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
  }
  // 10^5 points at the fifth axis (line 23): over the default cap of 10^4.
  expect_sweep_error(many, 23, "sweep.cost.k4",
                     "more than 10000 points (the axes up to this one make 100000)");
}

TEST(ScenarioSweep, ThePointCapIsTheCallersToRaise) {
  // 3 x 3 x 3 = 27 points: refused under a cap of 26, expanded under 27 (`--max-points`).
  const YAML::Node doc = tiny_doc_plus(
      "sweep:\n  cluster.nodes: [1, 2, 3]\n  workload.seed: [1, 2, 3]\n  workload.iterations: [1, "
      "2, 3]");
  try {
    (void)expand_sweep(doc, "cap.yaml", 26);
    ADD_FAILURE() << "27 points over a cap of 26";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 21) << e.what();
    EXPECT_EQ(e.key(), "sweep.workload.iterations");
    EXPECT_NE(std::string(e.what()).find("more than 26 points (the axes up to this one make 27)"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--max-points"), std::string::npos) << e.what();
  }
  EXPECT_EQ(expand_sweep(doc, "cap.yaml", 27).size(), 27u);
  // Axes whose product overflows 64 bits are refused, not wrapped around.
  std::string huge = "sweep:\n";
  std::string values = "[";
  for (int v = 0; v < 1000; ++v) values += (v ? ", " : "") + std::to_string(v);
  values += "]";
  for (int k = 0; k < 8; ++k) huge += "  cost.k" + std::to_string(k) + ": " + values + "\n";
  EXPECT_THROW(
      (void)expand_sweep(tiny_doc_plus(huge), "huge.yaml", std::numeric_limits<std::size_t>::max()),
      InputError);
}

TEST(ScenarioSweep, IndexPastTheEndFailsAtExpansion) {
  const YAML::Node doc = tiny_doc_plus("sweep:\n  model.tables[7].rows: [1, 2]");
  try {
    (void)expand_sweep(doc, "bad.yaml");
    ADD_FAILURE() << "tables[7] does not exist";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 19) << e.what();
    EXPECT_EQ(e.key(), "sweep.model.tables[7].rows");
    EXPECT_NE(std::string(e.what()).find("past the end"), std::string::npos) << e.what();
  }
}

TEST(ScenarioSweep, AxesAreStoredOnTheScenario) {
  const Scenario sc = load_scenario_text(
      test::tiny_plus("sweep:\n  cluster.nodes: [1, 2, 4]\n  workload.seed: [1, 2]"), "s.yaml");
  ASSERT_EQ(sc.sweep.size(), 2u);
  EXPECT_EQ(sc.sweep[0].key, "cluster.nodes");
  EXPECT_EQ(sc.sweep[0].values.size(), 3u);
  EXPECT_EQ(sc.sweep[1].key, "workload.seed");
  EXPECT_EQ(sc.sweep[1].values[1].as_string(), "2");
}

}  // namespace
}  // namespace shardsim
