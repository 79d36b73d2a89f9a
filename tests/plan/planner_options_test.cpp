// Planner option schemas and typed values (plan/planner_options.hpp); YAML input is read by
// io/planner_options_reader.hpp (tests/io/planner_options_reader_test.cpp).
#include "shardsim/plan/planner_options.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "shardsim/plan/planner.hpp"

namespace shardsim {
namespace {

OptionSchema schema() {
  return planner_schema({OptionSpec::number("fraction", 0.0, 1.0, 0.25, "a share"),
                         OptionSpec::integer("count", OptionKind::positive_int, std::nullopt, "n"),
                         OptionSpec::choice("mode", {"a", "b"}, "a", "which"),
                         OptionSpec::choice_list("kinds", {"x", "y", "z"}, "which ones"),
                         OptionSpec::boolean("flag", true, "on or off")},
                        0.1);
}

TEST(PlannerOptionSchema, GettersGiveTheValueGivenOrTheSchemasDefault) {
  const OptionSchema s = schema();
  PlannerOptions o(s, {{"count", 3}, {"fraction", 1}, {"kinds", OptionList{"z", "x"}}},
                   {"s.yaml", 4, 2});
  EXPECT_DOUBLE_EQ(o.number("fraction"), 1.0);  // an integer given for a number
  EXPECT_EQ(o.integer("count"), 3u);
  EXPECT_EQ(o.text("mode"), "a");
  EXPECT_EQ(o.list("kinds"), (OptionList{"z", "x"}));
  EXPECT_TRUE(o.boolean("flag"));
  EXPECT_DOUBLE_EQ(o.number("headroom"), 0.1);  // the common options, the planner's default
  EXPECT_TRUE(o.has("count"));
  EXPECT_FALSE(o.has("mode"));
  EXPECT_FALSE(o.lookup_comm().has_value());
  o.set("communication", "one_sided", {"s.yaml", 7, 3}, "placement.options.communication");
  EXPECT_EQ(o.lookup_comm(), LookupComm::one_sided);
  // Errors at a key: where it was given, or the options' file.
  const InputError given = o.error("communication", "bad");
  EXPECT_EQ(given.where().line, 7);
  EXPECT_EQ(given.key(), "placement.options.communication");
  const InputError absent = o.error("mode", "bad");
  EXPECT_EQ(absent.where().file, "s.yaml");
  EXPECT_EQ(absent.where().line, 0);
  EXPECT_EQ(absent.key(), "placement.options.mode");
}

TEST(PlannerOptionSchema, ValuesOutsideTheSchemaAndMisreadsAreRefused) {
  const OptionSchema s = schema();
  PlannerOptions o(s);
  EXPECT_THROW(o.set("fraction", 1.5), std::invalid_argument);
  EXPECT_THROW(o.set("fraction", "half"), std::invalid_argument);
  EXPECT_THROW(o.set("count", 0), std::invalid_argument);
  EXPECT_THROW(o.set("count", -2), std::invalid_argument);
  EXPECT_THROW(o.set("mode", "c"), std::invalid_argument);
  EXPECT_THROW(o.set("kinds", OptionList{}), std::invalid_argument);
  EXPECT_THROW(o.set("kinds", OptionList{"x", "w"}), std::invalid_argument);
  EXPECT_THROW(o.set("flag", 1), std::invalid_argument);
  EXPECT_THROW(o.set("nope", 1), std::invalid_argument);
  // Reading a key not declared, as another kind, or without a default and not given is a bug.
  EXPECT_THROW((void)o.number("nope"), std::logic_error);
  EXPECT_THROW((void)o.text("fraction"), std::logic_error);
  EXPECT_THROW((void)o.integer("count"), std::logic_error);
  EXPECT_THROW((void)PlannerOptions().has("fraction"), std::logic_error);
}

// Every declared option of every planner is in docs/planners.md, as `name`.
TEST(PlannerOptionSchema, DocsListEveryOption) {
  std::ifstream in(std::string(SHARDSIM_SOURCE_DIR) + "/docs/planners.md");
  ASSERT_TRUE(in) << "docs/planners.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string docs = text.str();
  for (const PlannerInfo& info : planner_registry()) {
    EXPECT_NE(docs.find("`" + info.name + "`"), std::string::npos) << info.name;
    for (const OptionSpec& o : info.options) {
      EXPECT_NE(docs.find("`" + o.name + "`"), std::string::npos) << info.name << ": " << o.name;
      EXPECT_FALSE(o.doc.empty()) << info.name << ": " << o.name;
    }
  }
}

}  // namespace
}  // namespace shardsim
