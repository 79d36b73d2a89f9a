// workload.global_batch, workload.dataset_samples, cluster.price_per_gpu_hour and zipped sweep
// axes (issue 16; docs/scenario.md).
#include <gtest/gtest.h>

#include <algorithm>

#include "scenario_test_helpers.hpp"
#include "shardsim/io/sweep.hpp"

namespace shardsim {
namespace {

namespace global_batch_test {

// tiny_lines with line 15 (batch_per_gpu) replaced.
std::string tiny_batch(const std::string& line15, const std::string& extra = {}) {
  return test::tiny_with(15, line15) + extra;
}

TEST(GlobalBatch, DividesAmongTheClusterGpus) {
  // dgx-a100: 8 GPUs per node; 2 nodes.
  std::string text = tiny_batch("  global_batch: 8192");
  text.replace(text.find("nodes: 1"), 8, "nodes: 2");
  const Scenario sc = load_scenario_text(text, "gb.yaml");
  EXPECT_EQ(sc.workload.batch_per_gpu, 512u);
  EXPECT_TRUE(sc.workload.global_batch_given);
  EXPECT_FALSE(load_scenario_text(test::tiny_text(), "t.yaml").workload.global_batch_given);
}

TEST(GlobalBatch, NotDividingNamesFileLineKeyAndValidValues) {
  const std::string msg = test::expect_input_error(tiny_batch("  global_batch: 1001"), 15,
                                                   "workload.global_batch", "does not divide");
  EXPECT_NE(msg.find("1000, 1008"), std::string::npos) << msg;  // the nearest valid batches
  EXPECT_NE(msg.find("8 GPUs"), std::string::npos) << msg;
}

TEST(GlobalBatch, HintNamesNodeCountsThatDivide) {
  // 3 nodes x 8 GPUs = 24 does not divide 8192; 2 and 4 nodes do.
  std::string text = tiny_batch("  global_batch: 8192");
  text.replace(text.find("nodes: 1"), 8, "nodes: 3");
  const std::string msg =
      test::expect_input_error(text, 15, "workload.global_batch", "among the cluster's 24 GPUs");
  EXPECT_NE(msg.find("node counts whose GPUs divide it: 1, 2, 4, 8"), std::string::npos) << msg;
}

TEST(GlobalBatch, ExclusiveWithBatchPerGpu) {
  test::expect_input_error(tiny_batch("  batch_per_gpu: 512\n  global_batch: 4096"), 16,
                           "workload.global_batch", "not both");
}

TEST(GlobalBatch, OneOfTheTwoIsRequired) {
  test::expect_input_error(tiny_batch("  iterations: 3"), 15, "workload.batch_per_gpu",
                           "missing required key");
}

TEST(GlobalBatch, BadValues) {
  test::expect_input_error(tiny_batch("  global_batch: 0"), 15, "workload.global_batch");
  test::expect_input_error(tiny_batch("  global_batch: -8"), 15, "workload.global_batch");
  test::expect_input_error(tiny_batch("  global_batch: many"), 15, "workload.global_batch");
}

TEST(GlobalBatch, SweepPointThatDoesNotDivideIsNamed) {
  const YAML::Node doc = parse_yaml(
      tiny_batch("  global_batch: 8192", "sweep:\n  cluster.nodes: [1, 2, 3]\n"), "gb.yaml");
  const auto points = expand_sweep(doc, "gb.yaml");
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(load_scenario(points[1].document, "gb.yaml").workload.batch_per_gpu, 512u);
  try {
    (void)load_scenario(points[2].document, "gb.yaml");
    ADD_FAILURE() << "3 nodes x 8 GPUs do not divide 8192";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "workload.global_batch");
    EXPECT_EQ(e.where().line, 15);
  }
}

TEST(Cost, PriceAndDatasetSamples) {
  std::string text = tiny_batch("  batch_per_gpu: 512\n  dataset_samples: 4e9");
  text.replace(text.find("  nodes: 1"), 10, "  nodes: 1\n  price_per_gpu_hour: 2.5");
  const Scenario sc = load_scenario_text(text, "cost.yaml");
  EXPECT_DOUBLE_EQ(sc.cluster.price_per_gpu_hour, 2.5);
  EXPECT_EQ(sc.workload.dataset_samples, 4000000000u);
  const Scenario plain = load_scenario_text(test::tiny_text(), "plain.yaml");
  EXPECT_EQ(plain.cluster.price_per_gpu_hour, 0.0);
  EXPECT_EQ(plain.workload.dataset_samples, 0u);
}

TEST(Cost, BadPrices) {
  for (const char* bad : {"0", "-1", "free", ".nan", "2e7"}) {
    std::string text = test::tiny_text();
    text.replace(text.find("  nodes: 1"), 10,
                 std::string("  nodes: 1\n  price_per_gpu_hour: ") + bad);
    test::expect_input_error(text, 5, "cluster.price_per_gpu_hour");
  }
  test::expect_input_error(tiny_batch("  batch_per_gpu: 512\n  dataset_samples: 0"), 16,
                           "workload.dataset_samples");
}

YAML::Node zip_doc(const std::string& sweep) {
  return parse_yaml(test::tiny_plus(sweep), "zip.yaml");
}

TEST(ZipSweep, KeysVaryTogetherAndCombineWithOtherAxes) {
  const auto points = expand_sweep(zip_doc("sweep:\n"
                                           "  zip:\n"
                                           "    cluster.nodes: [1, 2, 4]\n"
                                           "    workload.batch_per_gpu: [4096, 2048, 1024]\n"
                                           "  placement.planner: [table_wise, row_wise]"),
                                   "zip.yaml");
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].label,
            "cluster.nodes=1,workload.batch_per_gpu=4096,placement.planner=table_wise");
  EXPECT_EQ(points[1].label,
            "cluster.nodes=1,workload.batch_per_gpu=4096,placement.planner=row_wise");
  EXPECT_EQ(points[5].label,
            "cluster.nodes=4,workload.batch_per_gpu=1024,placement.planner=row_wise");
  const Scenario last = load_scenario(points[5].document, "zip.yaml");
  EXPECT_EQ(last.cluster.nodes, 4);
  EXPECT_EQ(last.workload.batch_per_gpu, 1024u);
  std::vector<std::string> labels;
  for (const auto& p : points) labels.push_back(p.label);
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(std::unique(labels.begin(), labels.end()), labels.end()) << "labels are unique";
}

TEST(ZipSweep, SeveralGroupsAndPointCount) {
  const YAML::Node doc = zip_doc(
      "sweep:\n"
      "  zip:\n"
      "    - {cluster.nodes: [1, 2], workload.batch_per_gpu: [512, 256]}\n"
      "    - model.tables[0].rows: [10, 20, 30]\n"
      "      model.tables[1].rows: [40, 50, 60]");
  EXPECT_EQ(expand_sweep(doc, "zip.yaml").size(), 6u);
  const Scenario sc = load_scenario(doc, "zip.yaml");
  ASSERT_EQ(sc.sweep.size(), 4u);
  EXPECT_EQ(sc.sweep[0].zip_group, 0);
  EXPECT_EQ(sc.sweep[1].zip_group, 0);
  EXPECT_EQ(sc.sweep[2].zip_group, 1);
  EXPECT_EQ(sweep_point_count(sc.sweep), 6u);
}

TEST(ZipSweep, GlobalBatchZippedWithNodes) {
  const auto points = expand_sweep(
      parse_yaml(tiny_batch("  global_batch: 4096",
                            "sweep:\n  zip: {cluster.nodes: [1, 2], workload.global_batch: "
                            "[4096, 8192]}\n"),
                 "zip.yaml"),
      "zip.yaml");
  ASSERT_EQ(points.size(), 2u);
  for (const auto& p : points) {
    EXPECT_EQ(load_scenario(p.document, "zip.yaml").workload.batch_per_gpu, 512u) << p.label;
  }
}

void expect_zip_error(const std::string& sweep, int line, const std::string& key,
                      const std::string& fragment) {
  try {
    (void)expand_sweep(zip_doc(sweep), "bad.yaml");
    ADD_FAILURE() << "no error for " << sweep;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.where().line, line) << msg;
    EXPECT_EQ(e.key(), key) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
  }
}

TEST(ZipSweep, Errors) {
  // tiny_plus puts `sweep:` on line 18.
  expect_zip_error("sweep:\n  zip:\n    cluster.nodes: [1, 2]\n    workload.batch_per_gpu: [1]", 21,
                   "sweep.zip.workload.batch_per_gpu", "one length");
  expect_zip_error("sweep:\n  zip: [1, 2]", 19, "sweep.zip[0]", "expected a mapping");
  expect_zip_error("sweep:\n  zip: {}", 19, "sweep.zip", "empty");
  expect_zip_error("sweep:\n  zip: []", 19, "sweep.zip", "empty");
  expect_zip_error("sweep:\n  zip: {cluster.nodes: 2}", 19, "sweep.zip.cluster.nodes",
                   "expected a list");
  expect_zip_error("sweep:\n  cluster.nodes: [1]\n  zip: {cluster.nodes: [1, 2]}", 20,
                   "sweep.zip.cluster.nodes", "swept twice");
  expect_zip_error("sweep:\n  zip: {cluster.nodes: [1, 2, 1], workload.batch_per_gpu: [8, 16, 8]}",
                   19, "sweep.zip.cluster.nodes[2]", "repeats its point 1");
  expect_zip_error("sweep:\n  zip: [{cluster.nodes: [1]}, {cluster.nodes: [2]}]", 19,
                   "sweep.zip[1].cluster.nodes", "swept twice");
}

TEST(ZipSweep, MaxPointsCountsZipGroupsOnce) {
  // 3 zipped keys of 4 values each: 4 points, not 64.
  const YAML::Node doc = zip_doc(
      "sweep:\n  zip: {cluster.nodes: [1, 2, 3, 4], workload.batch_per_gpu: [1, 2, 3, 4], "
      "workload.seed: [1, 2, 3, 4]}");
  EXPECT_EQ(expand_sweep(doc, "zip.yaml", 4).size(), 4u);
  EXPECT_THROW((void)expand_sweep(doc, "zip.yaml", 3), InputError);
}

}  // namespace global_batch_test

}  // namespace
}  // namespace shardsim
