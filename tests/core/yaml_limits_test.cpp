// Documents that are small as text but huge or deep as trees (core/yaml_reader.hpp): refused
// by parse_yaml with a location, in milliseconds, instead of hanging or overflowing the stack.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {
namespace {

// `levels` levels of ten aliases each: 10^levels leaves once expanded, ~40 bytes a level.
std::string alias_bomb(int levels) {
  std::string s = "name: [&a0 [x, x, x, x, x, x, x, x, x, x]";
  for (int i = 1; i < levels; ++i) {
    s += ", &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) s += (k ? ", *a" : "*a") + std::to_string(i - 1);
    s += "]";
  }
  return s + "]\n";
}

TEST(YamlLimits, AliasesThatExpandAMillionFoldAreRefusedAtTheWorstAlias) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    (void)parse_yaml(alias_bomb(9), "bomb.yaml");
    ADD_FAILURE() << "10^9 nodes from 400 bytes must be refused";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.where().file, "bomb.yaml");
    EXPECT_EQ(e.where().line, 1);
    EXPECT_GT(e.where().column, 300) << msg;  // an alias of the last level
    EXPECT_NE(msg.find("aliases expand the document from 22 to 1234567902 nodes"),
              std::string::npos)
        << msg;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
  // Modest aliasing is fine: 10^5 leaves from 5 levels (fewer than a million extra nodes).
  EXPECT_NO_THROW((void)parse_yaml(alias_bomb(5), "ok.yaml"));
  // Merge keys and ordinary anchors, as people write them.
  EXPECT_NO_THROW((void)parse_yaml(
      "base: &b {rows: 10, dim: 16}\nt: [{<<: *b, name: x}, {<<: *b, name: y}]\n", "merge.yaml"));
}

TEST(YamlLimits, AliasesThatMultiplyTheTextAreRefusedByBytes) {
  // One 100 KB string aliased 3,000 times: 3,001 nodes (far below the node limit), 300 MB of
  // text once expanded (issue 57's repro). Refused at the alias, with the byte counts: the keys
  // name, sweep, name (13 bytes) and the string, written once, then 3,000 times more.
  std::string s = "name: &s \"" + std::string(100000, 'x') + "\"\nsweep: {name: [";
  for (int i = 0; i < 3000; ++i) s += i ? ", *s" : "*s";
  s += "]}\n";
  try {
    (void)parse_yaml(s, "sb.yaml");
    ADD_FAILURE() << "300 MB of aliased text must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(std::string(e.what()).find("from 100013 to 300100013 bytes"), std::string::npos)
        << e.what();
  }
  // The same string aliased 100 times (10 MB) stays under the 16 MiB floor.
  std::string ok = "name: &s \"" + std::string(100000, 'x') + "\"\nsweep: {name: [";
  for (int i = 0; i < 100; ++i) ok += i ? ", *s" : "*s";
  EXPECT_NO_THROW((void)parse_yaml(ok + "]}\n", "ok.yaml"));
}

TEST(YamlLimits, DeepNestingIsAnInputErrorNotAStackOverflow) {
  const std::string deep = "name: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  EXPECT_THROW((void)parse_yaml(deep, "deep.yaml"), InputError);
  const std::string deep_maps = [] {
    std::string s;
    for (int i = 0; i < 20000; ++i) s += "{a: ";
    s += "1";
    for (int i = 0; i < 20000; ++i) s += "}";
    return s + "\n";
  }();
  EXPECT_THROW((void)parse_yaml(deep_maps, "deep.yaml"), InputError);
}

}  // namespace
}  // namespace shardsim
