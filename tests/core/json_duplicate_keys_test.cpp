// refusing_duplicate_keys (core/json_duplicate_keys.hpp): the JSON readers' duplicate-key rule.
#include "shardsim/core/json_duplicate_keys.hpp"

#include <gtest/gtest.h>

#include <string>

#include "shardsim/core/error.hpp"

namespace shardsim {
namespace {

using Json = nlohmann::json;

std::string key_refused(const std::string& text) {
  try {
    [[maybe_unused]] const Json j = Json::parse(text, refusing_duplicate_keys("r.json"));
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "r.json");
    EXPECT_NE(std::string(e.what()).find("written twice in the same object"), std::string::npos);
    return e.key();
  }
  return "(accepted)";
}

TEST(JsonDuplicateKeys, ASecondWritingIsRefusedWithItsPath) {
  // nlohmann alone keeps the last value silently.
  EXPECT_EQ(Json::parse(R"({"qps": 1, "qps": 2})")["qps"], 2);
  EXPECT_EQ(key_refused(R"({"qps": 1, "qps": 2})"), "qps");
  EXPECT_EQ(key_refused(R"({"reports": [{"a": 1}, {"a": 1}, {"a": 1, "b": {"c": 0, "c": 1}}]})"),
            "reports[2].b.c");
  EXPECT_EQ(key_refused(R"([1, [2, {"x": 0}], {"y": 0, "y": 0}])"), "[2].y");
}

TEST(JsonDuplicateKeys, EqualKeysInDifferentObjectsAreKept) {
  const Json j = Json::parse(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]})",
                             refusing_duplicate_keys("ok.json"));
  EXPECT_EQ(j["c"][1]["x"], 4);
}

TEST(JsonDuplicateKeys, TheInnerCallbackStillDecides) {
  const Json::parser_callback_t skip = [](int, Json::parse_event_t event, Json& parsed) {
    return !(event == Json::parse_event_t::key && parsed == "big");
  };
  const Json j =
      Json::parse(R"({"big": [[1, 2], [3]], "keep": 1})", refusing_duplicate_keys("r.json", skip));
  EXPECT_FALSE(j.contains("big"));
  EXPECT_EQ(j["keep"], 1);
  // Inside what the inner callback skips, a key twice is still refused.
  EXPECT_THROW(
      Json::parse(R"({"big": {"z": 1, "z": 2}})", refusing_duplicate_keys("r.json", skip)).size(),
      InputError);
}

}  // namespace
}  // namespace shardsim
