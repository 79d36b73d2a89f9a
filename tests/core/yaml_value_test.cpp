// YamlValue's constructed values (core/yaml_reader.hpp): an absent value, and a mapping with one
// key added or overridden that leaves the document it was copied from alone.
#include <gtest/gtest.h>

#include "shardsim/core/error.hpp"
#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {
namespace {

TEST(YamlValue, AbsentIsNullWithItsFileAndPath) {
  const YamlValue v = YamlValue::absent("s.yaml", "placement.options");
  EXPECT_TRUE(v.is_null());
  EXPECT_EQ(v.file(), "s.yaml");
  EXPECT_EQ(v.path(), "placement.options");
  EXPECT_FALSE(v.has("x"));
}

TEST(YamlValue, WithEntryAddsOrOverridesOneKey) {
  const YamlValue doc(parse_yaml("o: {a: 1, headroom: 0.5}\n", "s.yaml"), "s.yaml", "");
  const YamlValue o = doc.get("o");
  const YamlValue added = o.with_entry("b", 0.25, "o2");
  EXPECT_EQ(added.path(), "o2");
  EXPECT_EQ(added.file(), "s.yaml");
  EXPECT_EQ(added.keys(), (std::vector<std::string>{"a", "headroom", "b"}));
  EXPECT_EQ(added.get("b").as_double(), 0.25);
  EXPECT_EQ(added.get("a").as_int(), 1);
  EXPECT_EQ(o.with_entry("headroom", 0.1, "o").get("headroom").as_double(), 0.1);
  EXPECT_FALSE(o.has("b"));  // the document is not changed
  EXPECT_EQ(o.get("headroom").as_double(), 0.5);

  const YamlValue from_null = YamlValue::absent("s.yaml", "x").with_entry("headroom", 0.05, "x");
  EXPECT_EQ(from_null.keys(), (std::vector<std::string>{"headroom"}));
  EXPECT_EQ(from_null.get("headroom").as_double(), 0.05);

  const YamlValue list(parse_yaml("[1, 2]", "s.yaml"), "s.yaml", "l");
  EXPECT_THROW(list.with_entry("k", 1, "l"), InputError);
}

TEST(YamlValue, AssignmentRebindsAndLeavesTheDocumentAlone) {
  const YAML::Node doc = YAML::Load("a: {x: 1}\nb: {y: 2}");
  YamlValue a(doc["a"], "f.yaml", "a");
  const YamlValue b(doc["b"], "f.yaml", "b");
  a = b;  // yaml-cpp's own Node assignment would write b's content into doc["a"]
  EXPECT_EQ(a.path(), "b");
  EXPECT_EQ(a.node()["y"].as<int>(), 2);
  EXPECT_EQ(doc["a"]["x"].as<int>(), 1);
  EXPECT_FALSE(doc["a"]["y"]);
  YamlValue c = YamlValue::absent("g.yaml", "c");
  c = YamlValue(doc["a"], "f.yaml", "a");  // move assignment
  EXPECT_EQ(c.node()["x"].as<int>(), 1);
  EXPECT_EQ(doc["b"]["y"].as<int>(), 2);
  EXPECT_EQ(c.file(), "f.yaml");
}

}  // namespace
}  // namespace shardsim
