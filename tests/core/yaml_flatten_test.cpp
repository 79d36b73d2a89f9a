// flatten_yaml (core/yaml_reader.hpp): the resolved scenario as dotted keys, for `shardsim diff`.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {
namespace {

TEST(FlattenYaml, DottedKeysInOrderAndLongListsAsOneHashedEntry) {
  const YAML::Node n = YAML::Load(
      "b: {y: [1, 2], x: hello}\na: ~\nt: [{r: 1}, {r: 2}]\nbig: [0,1,2,3,4]\nempty: {}\n");
  const auto flat = flatten_yaml(n, 4);
  ASSERT_EQ(flat.size(), 7u);
  EXPECT_EQ(flat[0], (std::pair<std::string, std::string>{"a", "~"}));
  EXPECT_EQ(flat[1].first, "b.x");
  EXPECT_EQ(flat[1].second, "\"hello\"");
  EXPECT_EQ(flat[2], (std::pair<std::string, std::string>{"b.y", "[1,2]"}));
  EXPECT_EQ(flat[3].first, "big");
  EXPECT_EQ(flat[3].second.rfind("\"5 entries, fnv1a64:", 0), 0u) << flat[3].second;
  EXPECT_EQ(flat[4], (std::pair<std::string, std::string>{"empty", "{}"}));
  EXPECT_EQ(flat[5], (std::pair<std::string, std::string>{"t[0].r", "1"}));
  EXPECT_EQ(flat[6], (std::pair<std::string, std::string>{"t[1].r", "2"}));
  // Reading leaves the document as it was.
  EXPECT_EQ(YAML::Dump(n),
            YAML::Dump(YAML::Load("b: {y: [1, 2], x: hello}\na: ~\nt: [{r: 1}, {r: 2}]\n"
                                  "big: [0,1,2,3,4]\nempty: {}\n")));
}

TEST(FlattenYaml, KeysThatAreNotPlainScalarsAreTheirCanonicalText) {
  // A null key (`{: x}`, found by fuzz_scenario) and a sequence key do not throw.
  const auto flat = flatten_yaml(YAML::Load("p: {: x, [1, 2]: y}\n"));
  ASSERT_EQ(flat.size(), 2u);
  EXPECT_EQ(flat[0].second == "\"x\"" || flat[1].second == "\"x\"", true);
}

}  // namespace
}  // namespace shardsim
