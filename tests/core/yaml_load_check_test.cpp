// The process's YamlLoadCheck (core/yaml_reader.hpp): parse_yaml hands it the counts of a document
// before building any node, and its refusal is parse_yaml's.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {
namespace {

// Installs a check that records the count it is given (and refuses when `refuse`); uninstalls it
// at the end of the test.
class YamlLoadCheckTest : public ::testing::Test {
 protected:
  void install(bool refuse = false) {
    set_yaml_load_check(YamlLoadCheck{
        {"model.tables"}, [this, refuse](const YamlDocumentCount& c, const std::string& file) {
          seen = c;
          if (refuse) throw InputError(SourceLocation{file}, "model.tables", "too many");
        }});
  }
  void TearDown() override { set_yaml_load_check({}); }
  std::optional<YamlDocumentCount> seen;
};

TEST_F(YamlLoadCheckTest, CountsNodesBytesAndTheListedElements) {
  install();
  // Nodes: the root map, `model`, its map, `tables`, the list, and 2 x (map, `rows`, value) = 11.
  // Scalar bytes: model (5) + tables (6) + 2 x (rows (4) + 1 digit) = 21.
  const std::string text = "model:\n  tables: [{rows: 1}, {rows: 2}]\n";
  const YAML::Node doc = parse_yaml(text, "m.yaml");
  EXPECT_EQ(doc["model"]["tables"].size(), 2u);
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->input_bytes, text.size());
  EXPECT_TRUE(seen->events_counted);
  EXPECT_EQ(seen->written_nodes, 11u);
  EXPECT_EQ(seen->expanded_nodes, 11u);
  EXPECT_EQ(seen->written_bytes, 21u);
  EXPECT_EQ(seen->expanded_bytes, 21u);
  ASSERT_EQ(seen->lists.size(), 1u);
  EXPECT_EQ(seen->lists[0].path, "model.tables");
  EXPECT_EQ(seen->lists[0].elements, 2u);
  EXPECT_EQ(seen->lists[0].where.to_string(), "m.yaml:2:11");
}

TEST_F(YamlLoadCheckTest, AnAliasedListCountsAsItsElements) {
  install();
  (void)parse_yaml("all: &t [{rows: 1}, {rows: 2}, {rows: 3}]\nmodel:\n  tables: *t\n", "a.yaml");
  ASSERT_TRUE(seen.has_value());
  ASSERT_EQ(seen->lists.size(), 1u);
  EXPECT_EQ(seen->lists[0].elements, 3u);
  EXPECT_EQ(seen->lists[0].where.line, 3);
  // The alias adds the list's 10 nodes and 15 bytes again.
  EXPECT_EQ(seen->expanded_nodes, seen->written_nodes + 10);
  EXPECT_EQ(seen->expanded_bytes, seen->written_bytes + 15);
  // Other lists are not counted.
  seen.reset();
  (void)parse_yaml("tables: [1, 2]\nmodel: {x: [1, 2, 3]}\n", "b.yaml");
  ASSERT_TRUE(seen.has_value());
  EXPECT_TRUE(seen->lists.empty());
}

TEST_F(YamlLoadCheckTest, ItsRefusalIsParseYamlsAndNoCheckAfterItIsRemoved) {
  install(/*refuse=*/true);
  EXPECT_THROW((void)parse_yaml("model: {tables: []}\n", "r.yaml"), InputError);
  set_yaml_load_check({});
  seen.reset();
  EXPECT_NO_THROW((void)parse_yaml("model: {tables: []}\n", "r.yaml"));
  EXPECT_FALSE(seen.has_value());
}

}  // namespace
}  // namespace shardsim
