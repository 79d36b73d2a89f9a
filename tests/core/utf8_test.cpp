// UTF-8 validation (core/utf8.hpp), and what it guards: YAML text and decoded strings.
#include "shardsim/core/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {
namespace {

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_EQ(first_invalid_utf8(""), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("plain ASCII"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("caf\xc3\xa9"), std::nullopt);       // U+00E9
  EXPECT_EQ(first_invalid_utf8("\xe2\x82\xac"), std::nullopt);      // U+20AC
  EXPECT_EQ(first_invalid_utf8("\xed\x9f\xbf"), std::nullopt);      // U+D7FF
  EXPECT_EQ(first_invalid_utf8("\xf0\x9f\x98\x80"), std::nullopt);  // U+1F600
  EXPECT_EQ(first_invalid_utf8("\xf4\x8f\xbf\xbf"), std::nullopt);  // U+10FFFF
}

TEST(Utf8, RejectsEveryMalformedSequenceAtItsFirstByte) {
  EXPECT_EQ(first_invalid_utf8("ab\x80"), 2u);            // a lone continuation byte
  EXPECT_EQ(first_invalid_utf8("a\xc0\xaf"), 1u);         // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xc1\xbf"), 0u);          // overlong
  EXPECT_EQ(first_invalid_utf8("\xe0\x80\xaf"), 0u);      // overlong 3-byte
  EXPECT_EQ(first_invalid_utf8("x\xed\xa0\x80"), 1u);     // surrogate U+D800
  EXPECT_EQ(first_invalid_utf8("\xf0\x80\x80\xaf"), 0u);  // overlong 4-byte
  EXPECT_EQ(first_invalid_utf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xf5\x80\x80\x80"), 0u);  // F5..FF never start a sequence
  EXPECT_EQ(first_invalid_utf8("ok\xc3"), 2u);            // cut short
  EXPECT_EQ(first_invalid_utf8("\xe2\x82"), 0u);          // cut short
  EXPECT_EQ(first_invalid_utf8("\xe2\x28\xa1"), 0u);      // bad continuation
}

TEST(Utf8, YamlTextMustBeUtf8AndNamesTheLineAndColumn) {
  try {
    (void)parse_yaml("name: ok\ncluster: {preset: dgx\xff}\n", "bad.yaml");
    ADD_FAILURE() << "invalid UTF-8 must be an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "bad.yaml");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 22);
    EXPECT_NE(std::string(e.what()).find("not valid UTF-8 (byte 30 is 0xff)"), std::string::npos)
        << e.what();
  }
}

TEST(Utf8, DecodedStringsMustBeUtf8) {
  // A lone surrogate escape: yaml-cpp itself refuses it, which parse_yaml reports.
  try {
    (void)parse_yaml("name: \"a\\ud800b\"\n", "esc.yaml");
    ADD_FAILURE() << "a lone surrogate must be an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 1);
    EXPECT_NE(std::string(e.what()).find("invalid unicode"), std::string::npos) << e.what();
  }
  // A string that is not UTF-8 however it got into a node (as_string checks every one).
  const YamlValue bad(YAML::Node(std::string("a\xff")), "n.yaml", "name");
  try {
    (void)bad.as_string();
    ADD_FAILURE() << "invalid UTF-8 must be an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "name");
    EXPECT_NE(std::string(e.what()).find("not valid UTF-8"), std::string::npos) << e.what();
  }
  EXPECT_EQ(YamlValue(parse_yaml("name: \"caf\\u00e9\"\n", "ok.yaml"), "ok.yaml", "")
                .get("name")
                .as_string(),
            "caf\xc3\xa9");
}

}  // namespace
}  // namespace shardsim
