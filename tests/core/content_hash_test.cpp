// Canonical YAML text and FNV-1a content hashes.
#include "shardsim/core/content_hash.hpp"

#include <gtest/gtest.h>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {
namespace {

std::string canon(const std::string& yaml) {
  return canonical_yaml(YAML::Load(yaml));
}

TEST(ContentHash, Fnv1a64KnownVectors) {
  // Published FNV-1a 64-bit test vectors (Fowler, Noll, Vo).
  EXPECT_EQ(content_hash(""), "fnv1a64:cbf29ce484222325");
  EXPECT_EQ(content_hash("a"), "fnv1a64:af63dc4c8601ec8c");
  EXPECT_EQ(content_hash("foobar"), "fnv1a64:85944171f73967e8");
}

TEST(ContentHash, CanonicalFormIsCompactAndSorted) {
  EXPECT_EQ(canon("b: 1\na: [x, 2]\nc: ~"), R"({"a":["x",2],"b":1,"c":~})");
  EXPECT_EQ(canon(""), "~");
}

TEST(ContentHash, LayoutCommentsAndKeyOrderDoNotMatter) {
  const std::string block = R"(# a comment
cluster:
  preset: dgx-a100   # trailing comment
  nodes: 2
workload: {seed: 42, batch_per_gpu: 4096}
)";
  const std::string flow =
      R"({workload: {batch_per_gpu: 4096, seed: 42}, cluster: {nodes: 2, preset: "dgx-a100"}})";
  EXPECT_EQ(canon(block), canon(flow));
  EXPECT_EQ(yaml_content_hash(YAML::Load(block)), yaml_content_hash(YAML::Load(flow)));
}

TEST(ContentHash, EqualNumbersWrittenDifferentlyAreEqual) {
  EXPECT_EQ(canon("rows: 40000000"), canon("rows: 4e7"));
  EXPECT_EQ(canon("rows: 40000000"), canon("rows: 40000000.0"));
  EXPECT_EQ(canon("rows: 40000000"), canon("rows: +040000000"));
  EXPECT_EQ(canon("x: 0.5"), canon("x: 5e-1"));
  EXPECT_EQ(canon("x: 0.5"), R"({"x":0.5})");
}

TEST(ContentHash, DifferentValuesDiffer) {
  EXPECT_NE(canon("rows: 40000000"), canon("rows: 40000001"));
  EXPECT_NE(canon("a: [1, 2]"), canon("a: [2, 1]"));  // sequences keep their order
  EXPECT_NE(canon("a: x"), canon("b: x"));
  EXPECT_NE(canon("a: 1"), canon("a: -1"));
  // Integers beyond 2^53 keep every digit (seeds are 64-bit).
  EXPECT_NE(canon("seed: 12345678901234567891"), canon("seed: 12345678901234567892"));
  EXPECT_NE(yaml_content_hash(YAML::Load("a: 1")), yaml_content_hash(YAML::Load("a: 2")));
}

TEST(ContentHash, ScalarsThatAreNotNumbersAreStrings) {
  EXPECT_EQ(canon("name: \"a,b\""), R"({"name":"a,b"})");
  EXPECT_EQ(canon("x: inf"), R"({"x":"inf"})");
  EXPECT_EQ(canon("x: 0x10"), R"({"x":"0x10"})");
}

}  // namespace
}  // namespace shardsim
