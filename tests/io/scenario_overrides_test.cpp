// `--set dotted.key=value`: parse_override and apply_overrides.
#include <gtest/gtest.h>

#include <functional>

#include "io/scenario_yaml.hpp"
#include "io/yaml_path.hpp"
#include "scenario_test_helpers.hpp"

namespace shardsim::scenario_overrides_test {
namespace {

Scenario load_with(const std::vector<std::string>& sets) {
  std::vector<Override> ov;
  for (const auto& s : sets) ov.push_back(parse_override(s));
  return load_scenario_text(test::tiny_text(), "tiny.yaml", ov);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

TEST(ScenarioOverrides, ParseOverride) {
  const Override o = parse_override("model.tables[2].rows=1000");
  EXPECT_EQ(o.key, "model.tables[2].rows");
  EXPECT_EQ(o.value, "1000");
  const Override spaced = parse_override(" name = a=b ");  // first '=' splits; trimmed
  EXPECT_EQ(spaced.key, "name");
  EXPECT_EQ(spaced.value, "a=b");
  EXPECT_EQ(parse_override("placement.options=").value, "");
}

TEST(ScenarioOverrides, ParseOverrideRejectsMalformedText) {
  EXPECT_NE(error_of([] { parse_override("cluster.nodes"); }).find("--set cluster.nodes"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_override("=4"); }).find("key before '=' is empty"),
            std::string::npos);
  const std::string dots = error_of([] { parse_override("cluster..nodes=4"); });
  EXPECT_NE(dots.find("key '--set cluster..nodes'"), std::string::npos) << dots;
  EXPECT_NE(dots.find("bad key path"), std::string::npos) << dots;
  EXPECT_NE(error_of([] { parse_override("model.tables[x].rows=4"); }).find("not a list index"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_override("model.tables[1.rows=4"); }).find("matching ']'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_override("cluster.nodes.=4"); }).find("ends with '.'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_override("clu ster=4"); }).find("unexpected ' '"),
            std::string::npos);
}

TEST(ScenarioOverrides, Scalar) {
  const Scenario sc = load_with({"workload.batch_per_gpu=1024", "cluster.nodes=4"});
  EXPECT_EQ(sc.workload.batch_per_gpu, 1024u);
  EXPECT_EQ(sc.cluster.nodes, 4);
  EXPECT_EQ(sc.name, "tiny");  // untouched keys keep their values
}

TEST(ScenarioOverrides, ListValue) {
  const Scenario sc =
      load_with({"placement.planner=[row_wise, data_parallel]", "model.bottom_mlp=[128, 64, 16]"});
  EXPECT_EQ(sc.placement.planners, (std::vector<std::string>{"row_wise", "data_parallel"}));
  EXPECT_EQ(sc.model.bottom_mlp, (std::vector<std::uint32_t>{128, 64, 16}));
}

TEST(ScenarioOverrides, NestedAndIndexed) {
  const Scenario sc = load_with(
      {"model.tables[1].rows=777", "model.tables[0].pooling={dist: uniform, min: 1, max: 3}"});
  EXPECT_EQ(sc.model.tables[1].rows, 777u);
  EXPECT_EQ(sc.model.tables[0].rows, 1000u);
  EXPECT_EQ(sc.model.tables[0].pooling.kind, PoolingSpec::Kind::uniform);
  EXPECT_DOUBLE_EQ(sc.model.tables[0].pooling.max, 3);
}

TEST(ScenarioOverrides, CreatesMissingKeysAndMaps) {
  // Neither workload.trace nor model.precision exists in the tiny scenario.
  const Scenario sc = load_with(
      {"workload.trace.layout=clustered", "model.precision.tables=fp16", "model.tables[1].q=5"});
  EXPECT_EQ(sc.workload.trace.layout, HotRowLayout::clustered);
  EXPECT_EQ(sc.workload.trace.mode, TraceMode::expected);
  EXPECT_EQ(sc.model.table_precision, Precision::fp16);
  EXPECT_DOUBLE_EQ(sc.model.tables[1].q, 5);
}

// `--set key=~` (or `null`, or nothing after '=') removes the key (issue 18), so the scenario
// behaves as if it never had it: the loader's default, or only placement.file.
TEST(ScenarioOverrides, TildeRemovesAKey) {
  const Scenario plain = load_with({});
  EXPECT_EQ(load_with({"cluster.nodes=4", "cluster.nodes=~"}).cluster.nodes, plain.cluster.nodes);
  EXPECT_EQ(load_with({"workload.seed=5", "workload.seed=null"}).workload.seed,
            plain.workload.seed);
  // A required key removed is missing.
  EXPECT_NE(error_of([] { load_with({"model.bottom_mlp=~"}); }).find("missing required key"),
            std::string::npos);
  // Removing what is not there changes nothing.
  EXPECT_EQ(load_with({"workload.trace.layout=~"}).workload.trace.layout,
            plain.workload.trace.layout);
  // Without a planner and without a plan file the loader says what is missing.
  EXPECT_NE(error_of([] { load_with({"placement.planner=~"}); }).find("planner"),
            std::string::npos);
  // A list element is not a key.
  EXPECT_NE(error_of([] { load_with({"model.tables[1]=~"}); }).find("removes a key"),
            std::string::npos);
  // The empty list is still refused, and the message says how to remove the key instead.
  EXPECT_NE(error_of([] { load_with({"placement.planner=[]"}); }).find("placement.planner=~"),
            std::string::npos);
}

TEST(ScenarioOverrides, LaterOverridesWin) {
  const Scenario sc = load_with({"cluster.nodes=4", "cluster.nodes=8"});
  EXPECT_EQ(sc.cluster.nodes, 8);
}

TEST(ScenarioOverrides, BadPathsNameTheOverride) {
  const std::string past = error_of([] { (void)load_with({"model.tables[5].rows=1"}); });
  EXPECT_NE(past.find("key '--set model.tables[5].rows'"), std::string::npos) << past;
  EXPECT_NE(past.find("past the end"), std::string::npos) << past;
  const std::string under = error_of([] { (void)load_with({"cluster.nodes.x=1"}); });
  EXPECT_NE(under.find("key '--set cluster.nodes.x'"), std::string::npos) << under;
  EXPECT_NE(under.find("a scalar, not a mapping"), std::string::npos) << under;
  const std::string idx = error_of([] { (void)load_with({"cluster[0]=1"}); });
  EXPECT_NE(idx.find("not a list"), std::string::npos) << idx;
  const std::string yaml = error_of([] { (void)load_with({"cluster.nodes=[1, 2"}); });
  EXPECT_NE(yaml.find("key '--set cluster.nodes'"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("not valid YAML"), std::string::npos) << yaml;
}

TEST(ScenarioOverrides, BadValuesAreCaughtByTheLoader) {
  const std::string zero = error_of([] { (void)load_with({"workload.batch_per_gpu=0"}); });
  EXPECT_NE(zero.find("tiny.yaml"), std::string::npos) << zero;
  EXPECT_NE(zero.find("key 'workload.batch_per_gpu'"), std::string::npos) << zero;
  EXPECT_NE(zero.find("positive"), std::string::npos) << zero;
  const std::string typo = error_of([] { (void)load_with({"workload.batch_per_gpuu=8"}); });
  EXPECT_NE(typo.find("did you mean 'batch_per_gpu'?"), std::string::npos) << typo;
}

TEST(ScenarioOverrides, InputDocumentIsNotChanged) {
  YAML::Node original = parse_yaml(test::tiny_text(), "tiny.yaml");
  YAML::Node doc = original;  // a second handle to the same document
  apply_overrides(doc, {parse_override("cluster.nodes=9"), parse_override("model.tables[1].rows=3"),
                        parse_override("workload.seed=5")});
  EXPECT_EQ(original["cluster"]["nodes"].Scalar(), "1");
  EXPECT_EQ(original["model"]["tables"][1]["rows"].Scalar(), "5000");
  EXPECT_FALSE(original["workload"]["seed"].IsDefined());
  EXPECT_EQ(doc["cluster"]["nodes"].Scalar(), "9");
  EXPECT_EQ(doc["model"]["tables"][1]["rows"].Scalar(), "3");
}

TEST(ScenarioOverrides, SourceLinesSurviveOverrides) {
  // After overriding one key, an error elsewhere still points at its line in the file.
  const std::string text = test::tiny_with(9, "      rows: abc");
  try {
    (void)load_scenario_text(
        text, "bad.yaml",
        {parse_override("cluster.nodes=2"), parse_override("model.tables[1].dim=64")});
    ADD_FAILURE() << "rows: abc must fail";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 9) << e.what();
    EXPECT_EQ(e.key(), "model.tables[1].rows");
  }
}

TEST(ScenarioOverrides, FileOverrides) {
  const Scenario sc = load_scenario_file(test::source_path("scenarios/example.yaml"),
                                         {parse_override("model.generate.count=5")});
  EXPECT_EQ(sc.model.tables.size(), 8u);
}

}  // namespace
}  // namespace shardsim::scenario_overrides_test
