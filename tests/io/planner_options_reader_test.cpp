// Planner options read from YAML against each planner's schema (io/planner_options_reader.hpp):
// the errors a user sees for bad input, and the typed values a factory gets.
#include "shardsim/io/planner_options_reader.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim {
namespace {

YamlValue yaml(const std::string& text) {
  return YamlValue(text.empty() ? YAML::Node() : parse_yaml(text, "s.yaml"), "s.yaml",
                   "placement.options");
}

PlannerOptions read(const std::string& planner, const std::string& text) {
  return read_planner_options(yaml(text), find_planner(planner, {}, "test").options);
}

// The InputError reading the options and making the planner gives, or "no error".
std::string error(const std::string& planner, const std::string& text) {
  try {
    (void)find_planner(planner, {}, "test").make(read(planner, text));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PlannerOptionsReader, BadValuesNameTheKeyAndWhatWasExpected) {
  struct Case {
    const char* planner;
    const char* yaml;
    const char* part;  // of the message
  };
  const std::vector<Case> cases = {
      {"table_wise", "{headroom: 1.5}", "expected a number in [0, 0.9], found 1.5"},
      {"table_wise", "{headroomm: 0.1}", "did you mean 'headroom'"},
      {"table_wise", "{cost: sizes}", "'sizes' is not one of: lookup, size, dim, size_lookup"},
      {"table_wise", "{split_oversized: sometimes}", "placement.options.split_oversized"},
      {"row_wise", "{split: ranks}", "did you mean 'rank'"},
      {"access_greedy", "{chunks_per_gpu: 0}", "placement.options.chunks_per_gpu"},
      {"access_greedy", "{chunks_per_gpu: 5000}", "at most 4096"},
      {"column_wise", "{cols_per_shard: 10}", "multiple of 4"},
      {"hybrid", "{schemes: [table_wize]}", "did you mean 'table_wise'"},
      {"hybrid", "{schemes: []}", "expected a non-empty list of schemes"},
      {"hybrid", "{cache_fraction: 1}", "[0.001, 0.999]"},
      {"torchrec", "{sharding_types: [typo_wise]}", "row_wise"},
      {"torchrec", "{sharding_types: table_wise}", "non-empty list of sharding_types"},
      {"torchrec", "{batch_size: 0}", "placement.options.batch_size"},
      {"torchrec", "{hbm_GiBps: -1}", "[0.001, 1000000]"},
      {"torchrec", "{host_tables: sometimes}", "auto, always, never"},
      {"torchrec", "{torchrec_version: v0.3.2}", "v0_3_2, current"},
      {"torchrec", "{torchrec_version: v0_3_2, hbm_to_ddr_GiBps: 32}", "no HBM-to-DDR"},
      {"neuroshard", "{backend: neural}", "analytic, simulation"},
      {"neuroshard", "{beam_width: 0}", "placement.options.beam_width"},
      {"neuroshard", "{time_budget_s: -1}", "placement.options.time_budget_s"},
      {"neuroshard", "{cache: maybe}", "placement.options.cache"},
      {"neuroshard", "{beam: 3}", "unknown planner option"},
      {"neuroshard", "{grid_start: 1.4, grid_end: 1.2}", "grid_end (1.2) is below grid_start"},
      {"neuroshard", "{steps: 5000}", "steps above 1000"},
      {"oper", "{threshold: 1.5}", "[0, 1], found 1.5"},
      {"oper", "{threshold: 0}", "must be above 0"},
      {"oper", "{extra_memory_ratio: 11}", "[0, 10]"},
      {"oper", "{mode: serving}", "training, inference"},
      {"oper", "{communication: shm}", "pooled, one_sided"},
      {"oper", "{replica_sync: ring}", "dense, allgather, local_aggregated"},
      {"oper", "{treshold: 0.01}", "did you mean 'threshold'"},
      {"two_d", "", "needs `groups` or `group_size`"},
      {"two_d", "{groups: 2, group_size: 4}", "not both"},
      {"two_d", "{groups: 2, sync: sparse}", "touched_rows"},
      {"two_d", "{groups: 2, sync_interval: 0}", "placement.options.sync_interval"},
      {"two_d", "{groups: 2, layout: strided}", "peers_in_host"},
      {"two_d", "{groups: 2, sync_aware: maybe}", "placement.options.sync_aware"},
      {"two_d", "{groups: 2, grups: 2}", "did you mean 'groups'"},
      {"two_d", "{groups: 2, inner: table_wsie}", "did you mean 'table_wise'"},
      {"two_d", "{groups: 2, inner: two_d}", "its own inner planner"},
      {"two_d", "{groups: 2, inner: table_wise, inner_options: {split: rank}}",
       "placement.options.inner_options.split"},
      {"two_d", "{groups: 2, inner_options: [1]}", "placement.options.inner_options"},
      {"two_d", "{groups: 2, headroom: 0.1, inner_options: {headroom: 0.2}}", "given twice"},
  };
  for (const Case& c : cases) {
    const std::string what = error(c.planner, c.yaml);
    EXPECT_NE(what.find(c.part), std::string::npos) << c.planner << " " << c.yaml << ": " << what;
    EXPECT_EQ(what.find("no error"), std::string::npos) << c.planner << " " << c.yaml;
  }
}

TEST(PlannerOptionsReader, AnUnknownKeyListsThePlannersOptions) {
  try {
    (void)read("table_wise", "{cost: size,\n costt: size}");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.key(), "placement.options.costt");
    EXPECT_EQ(e.problem(), "unknown planner option");
    EXPECT_EQ(e.hint(),
              "did you mean 'cost'? options of this planner: cost, split_oversized, "
              "row_wise_above_bytes, "
              "headroom, "
              "communication, replica_sync");
  }
}

TEST(PlannerOptionsReader, EveryPlannerTakesTheCommonOptionsAndNoOthers) {
  for (const PlannerInfo& info : planner_registry()) {
    SCOPED_TRACE(info.name);
    const std::string groups = info.name == "two_d" ? "groups: 2, " : "";
    EXPECT_NE(error(info.name, "{" + groups + "no_such_option: 1}").find("unknown planner option"),
              std::string::npos);
    EXPECT_NE(error(info.name, "{" + groups + "headroom: -0.1}").find("[0, 0.9]"),
              std::string::npos);
    EXPECT_EQ(error(info.name, "{" + groups + "headroom: 0.05, communication: one_sided}"),
              "no error");
    const PlannerOptions o = read(info.name, "{headroom: 0.05, replica_sync: allgather}");
    EXPECT_DOUBLE_EQ(o.number("headroom"), 0.05);
    EXPECT_EQ(o.replica_sync(), ReplicaSync::allgather);
    EXPECT_FALSE(o.lookup_comm().has_value());
  }
}

TEST(PlannerOptionsReader, ValuesKeepWhereTheyWereGivenAndNestedOptionsTheirPlanner) {
  const PlannerOptions o = read("two_d",
                                "{groups: 4,\n inner: table_wise,\n"
                                " inner_options: {cost: size}}");
  EXPECT_EQ(o.integer("groups"), 4u);
  EXPECT_FALSE(o.has("group_size"));
  EXPECT_EQ(o.integer("sync_interval"), 1u);  // the schema's default
  EXPECT_EQ(o.location_of("groups").line, 1);
  EXPECT_EQ(o.location_of("sync_interval").line, 0);  // not given: the file only
  EXPECT_EQ(o.path_of("sync_interval"), "placement.options.sync_interval");
  const PlannerOptions& inner = o.nested("inner_options");
  EXPECT_EQ(inner.text("cost"), "size");
  EXPECT_FALSE(inner.boolean("split_oversized"));
  EXPECT_EQ(inner.location_of("cost").line, 3);
  EXPECT_EQ(inner.path_of("cost"), "placement.options.inner_options.cost");
  // Without `inner`, inner_options are hybrid's (its default).
  EXPECT_EQ(read("two_d", "{groups: 2, inner_options: {schemes: [row_wise]}}")
                .nested("inner_options")
                .list("schemes"),
            OptionList{"row_wise"});
  const PlannerOptions none = read("hybrid", "");
  EXPECT_DOUBLE_EQ(none.number("headroom"), 0.1);
  EXPECT_EQ(none.list("schemes").size(), 5u);
}

// Making the planner twice from one options document (as `baseline --seeds 2` does for each
// seed) works: moving `headroom` to the inner planner leaves the scenario's inner_options as
// written.
TEST(PlannerOptionsReader, TwoDsHeadroomLeavesTheScenariosInnerOptionsUnchanged) {
  const YamlValue options =
      yaml("{groups: 2, inner: table_wise, headroom: 0.1, inner_options: {}}");
  const PlannerInfo& info = find_planner("two_d", {}, "test");
  EXPECT_NO_THROW((void)info.make(read_planner_options(options, info.options)));
  EXPECT_NO_THROW((void)info.make(read_planner_options(options, info.options)));
  EXPECT_EQ(options.get("inner_options").keys().size(), 0u);
}

TEST(PlannerOptionsReader, CommunicationAndReplicaSyncValues) {
  EXPECT_EQ(read_lookup_comm(yaml("one_sided")), LookupComm::one_sided);
  EXPECT_EQ(read_replica_sync(yaml("local_aggregated")), ReplicaSync::local_aggregated);
  EXPECT_THROW(read_lookup_comm(yaml("onesided")), InputError);
  EXPECT_THROW(read_replica_sync(yaml("[dense]")), InputError);
}

}  // namespace
}  // namespace shardsim
