// The structure rules of every YAML document (core/yaml_reader.hpp, parse_yaml): a key written
// twice in one mapping, and nesting past kMaxYamlNestingDepth, are InputErrors at the node.
#include <gtest/gtest.h>

#include <string>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {
namespace {

InputError error_of(const std::string& text) {
  try {
    (void)parse_yaml(text, "in.yaml");
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return InputError(SourceLocation{}, "", "", "");
}

TEST(YamlStructure, ASecondTopLevelBlockIsRefusedAtItsKey) {
  // The plan file of issue 57: yaml-cpp keeps both `tables:` and lookups see the first.
  const InputError e =
      error_of("format: shardsim-plan-1\ntables:\n  a: [{gpu: 0}]\ntables:\n  a: [{gpu: 1}]\n");
  EXPECT_EQ(e.where().file, "in.yaml");
  EXPECT_EQ(e.where().line, 4);
  EXPECT_EQ(e.where().column, 1);
  EXPECT_EQ(e.key(), "tables");
  EXPECT_NE(std::string(e.what()).find("written twice in the same mapping"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("the first is at in.yaml:2:1"), std::string::npos)
      << e.what();
}

TEST(YamlStructure, DuplicatesAreFoundAtAnyDepthWithTheirPath) {
  EXPECT_EQ(error_of("a:\n  - {x: 1}\n  - {x: 1, y: 2, x: 3}\n").key(), "a[1].x");
  EXPECT_EQ(error_of("a: {b: {c: 1, c: 2}}\n").key(), "a.b.c");
  // A key spelled through an alias of a scalar is the same key.
  EXPECT_EQ(error_of("k: &n x\nm: {x: 1, *n : 2}\n").key(), "m.x");
  // Flow and block writings of one document.
  EXPECT_EQ(error_of("{p: 1, q: 2, p: 3}\n").where().column, 14);
}

TEST(YamlStructure, EqualKeysInDifferentMappingsAreFine) {
  EXPECT_NO_THROW((void)parse_yaml("a: {x: 1}\nb: {x: 1}\nc: [{x: 1}, {x: 2}]\n", "ok.yaml"));
  // A value equal to a key is not a key.
  EXPECT_NO_THROW((void)parse_yaml("x: x\ny: [x, x]\n", "ok.yaml"));
  // Anchors and aliases of whole mappings repeat no key of one mapping.
  EXPECT_NO_THROW((void)parse_yaml("a: &m {x: 1}\nb: *m\nc: [*m, *m]\n", "ok.yaml"));
}

TEST(YamlStructure, TooDeepNestingNamesTheDepthAtTheNodeThatExceedsIt) {
  // 50,000 brackets on one line: refused at the 101st, not at the end of the text.
  const InputError e =
      error_of("name: " + std::string(50000, '[') + std::string(50000, ']') + "\n");
  EXPECT_EQ(e.where().line, 1);
  EXPECT_EQ(e.where().column, 7 + static_cast<int>(kMaxYamlNestingDepth) - 1) << e.what();
  const std::string msg = e.what();
  EXPECT_NE(msg.find("nest 101 levels deep here, more than the 100 levels"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("malformed YAML"), std::string::npos) << msg;
  // Block mappings, one level a line: at the line of level 101.
  std::string block;
  for (int i = 0; i < 150; ++i) block += std::string(2 * static_cast<std::size_t>(i), ' ') + "a:\n";
  EXPECT_EQ(error_of(block).where().line, 101);
}

TEST(YamlStructure, NestingAtTheLimitIsFineAndAliasesCountExpanded) {
  const std::size_t n = kMaxYamlNestingDepth;
  EXPECT_NO_THROW((void)parse_yaml(std::string(n, '[') + std::string(n, ']') + "\n", "ok.yaml"));
  // 60 levels anchored, aliased under 60 more (the top mapping and 59 lists): 120 expanded.
  const std::string deep = "a: &d " + std::string(60, '[') + std::string(60, ']') +
                           "\nb: " + std::string(59, '[') + "*d" + std::string(59, ']') + "\n";
  const InputError e = error_of(deep);
  EXPECT_EQ(e.where().line, 2);
  EXPECT_NE(std::string(e.what()).find("aliases expanded"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace shardsim
