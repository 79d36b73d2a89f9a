#include "run/planner_options.hpp"

#include <gtest/gtest.h>

#include "shardsim/core/error.hpp"

namespace shardsim {
namespace {

PlacementSpec spec(std::vector<std::string> planners, const std::string& options) {
  PlacementSpec p;
  p.planners = std::move(planners);
  p.options = YamlValue(options.empty() ? YAML::Node() : YAML::Load(options), "s.yaml",
                        "placement.options");
  return p;
}

TEST(PlannerOptions, KeyedByPlannerNameWhenSeveralPlannersAreListed) {
  const PlacementSpec p = spec({"table_wise", "row_wise"}, "{table_wise: {cost: size}}");
  const YamlValue tw = planner_options_yaml(p, "table_wise");
  EXPECT_EQ(tw.get("cost").as_string(), "size");
  EXPECT_EQ(tw.path(), "placement.options.table_wise");
  EXPECT_TRUE(planner_options_yaml(p, "row_wise").is_null());
}

TEST(PlannerOptions, UnkeyedOptionsGoToEveryPlanner) {
  const PlacementSpec p = spec({"table_wise"}, "{cost: dim}");
  EXPECT_EQ(planner_options_yaml(p, "table_wise").get("cost").as_string(), "dim");
  EXPECT_TRUE(planner_options_yaml(spec({"row_wise"}, ""), "row_wise").is_null());
}

TEST(PlannerOptions, MixingKeyedAndUnkeyedIsAnError) {
  const PlacementSpec p = spec({"table_wise", "row_wise"}, "{table_wise: {}, cost: size}");
  try {
    planner_options_yaml(p, "table_wise");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("placement.options.cost"), std::string::npos) << e.what();
  }
}

TEST(PlannerOptions, KeyedOptionsGoToTheRequestedPlannerEvenIfNotListed) {
  // `shardsim plan --planner row_wise` on a scenario listing table_wise only.
  const PlacementSpec p = spec({"table_wise"}, "{table_wise: {cost: size}, row_wise: {}}");
  EXPECT_TRUE(planner_options_yaml(p, "row_wise").is_map());
  // ...and options of a planner that is not run this time wait for it (`--set
  // placement.planner=...`, the Python module's planners=): no error.
  EXPECT_TRUE(planner_options_yaml(p, "table_wise").is_map());
  EXPECT_TRUE(planner_options_yaml(p, "hybrid").is_null());
  // A key that names no planner, beside planner keys, is an error.
  const PlacementSpec mixed = spec({"table_wise"}, "{table_wise: {cost: size}, headroom: 0.1}");
  EXPECT_THROW(planner_options_yaml(mixed, "table_wise"), InputError);
}

TEST(PlannerOptions, AreReadAgainstTheSchemaOfThePlannerTheyAreRoutedTo) {
  const PlacementSpec p = spec({"table_wise", "row_wise"}, "{table_wise: {cost: size}}");
  const PlannerOptions tw = planner_options(p, "table_wise");
  EXPECT_EQ(tw.text("cost"), "size");
  EXPECT_EQ(tw.path_of("cost"), "placement.options.table_wise.cost");
  EXPECT_EQ(tw.location_of("cost").line, 1);
  const PlannerOptions rw = planner_options(p, "row_wise");
  EXPECT_FALSE(rw.has("split"));
  EXPECT_EQ(rw.text("split"), "even");  // its default
  // Options routed to a planner that does not take them are its InputError.
  EXPECT_THROW(planner_options(spec({"row_wise"}, "{cost: size}"), "row_wise"), InputError);
}

TEST(PlannerOptions, UnkeyedOptionsSkipAnUnlistedPlanner) {
  const PlacementSpec p = spec({"table_wise"}, "{cost: dim}");
  const YamlValue none = planner_options_yaml(p, "row_wise");
  EXPECT_TRUE(none.is_null());
  EXPECT_EQ(none.path(), "placement.options");
}

}  // namespace
}  // namespace shardsim
