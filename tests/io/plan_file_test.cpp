// Plan files: YAML and JSON round trips, hand-written plans, and bad plans reported with the
// file, the line, the table and the rows at fault.
#include "shardsim/io/plan_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "plan/plan_fixture.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/plan/serving.hpp"
#include "support/text.hpp"

namespace shardsim {
namespace {

using testing::model_of;
using testing::PlanFixture;

auto key(const Shard& s) {
  return std::make_tuple(s.table, s.rows.begin, s.rows.end, static_cast<int>(s.row_space),
                         s.cols.begin, s.cols.end, s.gpu, s.replica, static_cast<int>(s.kind));
}

std::vector<decltype(key(Shard{}))> sorted_keys(const Plan& p) {
  std::vector<decltype(key(Shard{}))> k;
  for (const Shard& s : p.shards) k.push_back(key(s));
  std::sort(k.begin(), k.end());
  return k;
}

std::string to_text(const Plan& p, const PlanFixture& f, PlanFormat format) {
  std::ostringstream out;
  write_plan(out, p, f.model, f.cluster, format, PlanFileInfo{"scenario-x"});
  return out.str();
}

Plan from_text(const std::string& text, const PlanFixture& f, const std::string& file = "p.yaml") {
  return read_plan_text(text, file, f.model, f.cluster);
}

// The InputError message of reading `text`, or "" if it reads.
std::string error_of(const std::string& text, const PlanFixture& f) {
  try {
    from_text(text, f);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

using testing::has;

TEST(PlanFile, EveryPlannersPlanRoundTripsThroughYamlAndJson) {
  const PlanFixture f(
      testing::hand_preset(2), 2,
      model_of({{1000, 64, 4, 1.1}, {200, 16, 2, 0.9}, {50000, 32, 8, 1.2}, {7, 6, 1, 0.5}}), 32,
      true, HotRowLayout::clustered);
  for (const std::string& name : planner_names()) {
    SCOPED_TRACE(name);
    const Plan p = f.valid_plan(name, testing::options_for(name));
    for (PlanFormat format : {PlanFormat::yaml, PlanFormat::json}) {
      const std::string text = to_text(p, f, format);
      const Plan back = from_text(text, f, format == PlanFormat::json ? "p.json" : "p.yaml");
      EXPECT_EQ(back.planner, name);
      EXPECT_EQ(back.lookup_comm, p.lookup_comm);  // oper: one_sided, local_aggregated
      EXPECT_EQ(back.replica_sync, p.replica_sync);
      EXPECT_EQ(back.fetch_overrides.size(), p.fetch_overrides.size());
      EXPECT_EQ(sorted_keys(back), sorted_keys(p)) << text;
      // Writing what was read gives the same bytes.
      EXPECT_EQ(to_text(back, f, format), text);
    }
  }
}

TEST(PlanFile, CommunicationSchemeKeys) {
  const PlanFixture f(testing::hand_preset(2), 1, model_of({{100, 16}}));
  const Plan p = from_text(R"(
format: shardsim-plan-1
communication: one_sided
replica_sync: allgather
tables:
  t0:
    - {gpus: [0, 1]}
)",
                           f);
  EXPECT_EQ(p.lookup_comm, LookupComm::one_sided);
  EXPECT_EQ(p.replica_sync, ReplicaSync::allgather);
  // Written only when not the defaults.
  EXPECT_TRUE(has(to_text(p, f, PlanFormat::yaml), "communication: one_sided\n"));
  EXPECT_TRUE(has(to_text(p, f, PlanFormat::json), "\"replica_sync\": \"allgather\""));
  EXPECT_FALSE(has(to_text(f.valid_plan("table_wise"), f, PlanFormat::yaml), "communication"));
  const std::string err = error_of(R"(
format: shardsim-plan-1
communication: shmem
tables:
  t0:
    - {gpu: 0}
)",
                                   f);
  EXPECT_TRUE(has(err, "communication")) << err;
  EXPECT_TRUE(has(err, "one_sided")) << err;
}

// bottom_mlp_gpu: the GPU that runs the bottom MLP for the global batch (Plan::bottom_mlp_gpu),
// written only when set; a GPU the cluster lacks, sparse groups or a one-sided plan are errors
// at its line.
// Found by fuzz_plan: tables listed out of the model's order read in the model's order, as the
// writer writes them, so the plan reads back shard for shard.
TEST(PlanFile, TablesInAnyOrderReadInTheModelsOrder) {
  const PlanFixture f(testing::hand_preset(4), 1, model_of({{100, 16}, {100, 16}, {100, 16}}));
  const Plan p = from_text(
      "format: shardsim-plan-1\ntables:\n  t2: [{gpu: 3}]\n  t0: [{gpu: 2}]\n  t1: [{gpu: 1}]\n",
      f);
  ASSERT_EQ(p.shards.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(p.shards[i].table, i);
  EXPECT_EQ(p.shards[0].gpu, 2);
  for (PlanFormat format : {PlanFormat::yaml, PlanFormat::json}) {
    const Plan again =
        from_text(to_text(p, f, format), f, format == PlanFormat::json ? "p.json" : "p.yaml");
    ASSERT_EQ(again.shards.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(key(again.shards[i]), key(p.shards[i]));
  }
}

TEST(PlanFile, BottomMlpGpuRoundTripsAndIsChecked) {
  const PlanFixture f(testing::hand_preset(2), 1, model_of({{100, 16}}));
  const Plan p =
      from_text("format: shardsim-plan-1\nbottom_mlp_gpu: 1\ntables:\n  t0: [{gpu: 0}]\n", f);
  EXPECT_EQ(p.bottom_mlp_gpu, 1);
  for (PlanFormat format : {PlanFormat::yaml, PlanFormat::json}) {
    const std::string text = to_text(p, f, format);
    EXPECT_EQ(from_text(text, f, format == PlanFormat::json ? "p.json" : "p.yaml").bottom_mlp_gpu,
              1)
        << text;
  }
  EXPECT_TRUE(has(to_text(p, f, PlanFormat::yaml), "bottom_mlp_gpu: 1\n"));
  EXPECT_FALSE(has(to_text(f.valid_plan("table_wise"), f, PlanFormat::yaml), "bottom_mlp"));
  // Each bad plan, and what its message must say besides the key's line.
  const std::pair<const char*, const char*> bad[] = {
      {"bottom_mlp_gpu: 2\ntables:\n  t0: [{gpu: 0}]\n", "GPU 2 does not exist"},
      {"bottom_mlp_gpu: 0\ngroups: [[0], [1]]\ntables:\n  t0: [{gpus: [0, 1]}]\n", "sparse groups"},
      {"bottom_mlp_gpu: 0\ncommunication: one_sided\ntables:\n  t0: [{gpu: 1}]\n", "one-sided"},
      {"bottom_mlp_gpu: -1\ntables:\n  t0: [{gpu: 0}]\n", "bottom_mlp_gpu"},
  };
  for (const auto& [text, fragment] : bad) {
    const std::string e = error_of(text, f);
    EXPECT_TRUE(has(e, "p.yaml:1:")) << e;
    EXPECT_TRUE(has(e, "bottom_mlp_gpu")) << e;
    EXPECT_TRUE(has(e, fragment)) << e;
  }
}

TEST(PlanFile, JsonIsValidJson) {
  const PlanFixture f(testing::hand_preset(2), 1, model_of({{100, 16}, {10, 8}}));
  const std::string text = to_text(f.valid_plan("data_parallel"), f, PlanFormat::json);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["format"], kPlanFormatTag);
  EXPECT_EQ(j["num_gpus"], 2);
  EXPECT_EQ(j["tables"]["t0"][0]["gpus"], nlohmann::json::parse("[0, 1]"));
  EXPECT_EQ(plan_format_for_path("a/b/Plan.JSON"), PlanFormat::json);
  EXPECT_EQ(plan_format_for_path("plan.yaml"), PlanFormat::yaml);
}

TEST(PlanFile, HandWrittenPlanWithGroupsAndFetch) {
  const PlanFixture f(testing::hand_preset(2), 2, model_of({{100, 16}, {10, 8}}));
  const Plan p = from_text(R"(
tables:
  t0:
    - {rows: [0, 50], gpus: [0, 2]}
    - {rows: [50, 100], cols: [0, 8], gpu: 1}
    - {rows: [50, 100], cols: [8, 16], gpu: 3}
  t1:
    - {gpus: [0, 1, 2, 3]}
groups: [[0, 1], [2, 3]]
fetch:
  - {table: t1, requester: 1, server: 3}
)",
                           f);
  ASSERT_EQ(p.shards.size(), 8u);
  EXPECT_EQ(p.planner, "file");
  EXPECT_EQ(p.shards[0].replica, 0);
  EXPECT_EQ(p.shards[1].replica, 1);
  EXPECT_EQ(p.shards[1].gpu, 2);
  EXPECT_EQ(p.shards[0].kind, ShardKind::data_parallel);  // inferred: replicated
  EXPECT_EQ(p.shards[2].kind, ShardKind::column_wise);
  EXPECT_EQ(p.groups.size(), 2u);
  ASSERT_EQ(p.fetch_overrides.size(), 1u);
  EXPECT_EQ(p.shards[p.fetch_overrides[0].shard].gpu, 3);
  const ServingMap s = build_serving_map(p, f.cluster);
  // Table t1's replica set: GPU 1 is served by GPU 3's replica (the override).
  for (std::size_t k = 0; k < s.sets.size(); ++k) {
    if (s.sets[k].table == 1) {
      EXPECT_EQ(p.shards[s.server(k, 1)].gpu, 3);
    }
  }
  // And it round trips, groups and fetch included.
  const std::string text = to_text(p, f, PlanFormat::yaml);
  EXPECT_TRUE(has(text, "groups:")) << text;
  EXPECT_TRUE(has(text, "{table: t1, requester: 1, server: 3}")) << text;
  EXPECT_EQ(sorted_keys(from_text(text, f)), sorted_keys(p));
  const std::string json = to_text(p, f, PlanFormat::json);
  const Plan pj = from_text(json, f, "p.json");
  EXPECT_EQ(pj.groups, p.groups);
  ASSERT_EQ(pj.fetch_overrides.size(), 1u);
}

TEST(PlanFile, WrittenBytesAreExact) {
  // Ranks, columns, an explicit kind, replicas, a name that needs quoting, a table without
  // shards, groups, fetch overrides and non-default communication: YAML and JSON byte for byte.
  DlrmModel m = model_of({{100, 16}, {10, 8}, {10, 8}});
  m.tables[1].name = "user id";
  const PlanFixture f(testing::hand_preset(2), 2, m);
  Plan p;
  p.planner = "hand";
  p.lookup_comm = LookupComm::one_sided;
  p.replica_sync = ReplicaSync::allgather;
  p.shards = {Shard{0, {0, 50}, RowSpace::rank, {0, 16}, 0, 0, ShardKind::row_wise, {}},
              Shard{0, {50, 100}, RowSpace::rank, {0, 8}, 1, 0, ShardKind::column_wise, {}},
              Shard{0, {50, 100}, RowSpace::rank, {8, 16}, 2, 0, ShardKind::fine_grained, {}},
              Shard{1, {0, 10}, RowSpace::row_id, {0, 8}, 3, 0, ShardKind::data_parallel, {}},
              Shard{1, {0, 10}, RowSpace::row_id, {0, 8}, 1, 1, ShardKind::data_parallel, {}}};
  p.groups = {{0, 1}, {2, 3}};
  p.peer_sync = {PeerSyncMode::touched_rows, 3};
  p.fetch_overrides = {FetchOverride{3, 0}, FetchOverride{1, 3}};
  std::ostringstream yaml, json;
  write_plan(yaml, p, f.model, f.cluster, PlanFormat::yaml, PlanFileInfo{"a scenario"});
  write_plan(json, p, f.model, f.cluster, PlanFormat::json, PlanFileInfo{"a scenario"});
  EXPECT_EQ(yaml.str(),
            R"(# A shardsim plan (docs/planners.md, "Plan files"). Edit it freely and simulate it
# with `placement: {file: <this file>}`; it is validated when read. Each shard:
# rows: [begin, end) of row ids (or ranks: popularity ranks), cols: [begin, end),
# gpu: id, or gpus: [ids] for replicas; a missing rows/cols means the whole table;
# storage: uvm or {kind: uvm_caching, cache_fraction, policy} for a shard in host memory.
format: shardsim-plan-1
planner: hand
scenario: "a scenario"
num_gpus: 4
communication: one_sided
replica_sync: allgather
tables:
  t0:
    - {ranks: [0, 50], gpu: 0}
    - {ranks: [50, 100], cols: [0, 8], gpu: 1}
    - {ranks: [50, 100], cols: [8, 16], gpu: 2, kind: fine_grained}
  "user id":
    - {gpus: [3, 1]}
  t2: []
groups:
  - [0, 1]
  - [2, 3]
sync: {mode: touched_rows, interval: 3}
fetch:
  - {table: "user id", requester: 0, server: 3}
  - {table: t0, ranks: [50, 100], cols: [0, 8], requester: 3, server: 1}
)");
  EXPECT_EQ(json.str(), R"({
  "format": "shardsim-plan-1",
  "planner": "hand",
  "scenario": "a scenario",
  "num_gpus": 4,
  "communication": "one_sided",
  "replica_sync": "allgather",
  "tables": {
    "t0": [
      {"ranks": [0, 50], "gpu": 0},
      {"ranks": [50, 100], "cols": [0, 8], "gpu": 1},
      {"ranks": [50, 100], "cols": [8, 16], "gpu": 2, "kind": "fine_grained"}
    ],
    "user id": [
      {"gpus": [3, 1]}
    ],
    "t2": []
  },
  "groups": [[0, 1], [2, 3]],
  "sync": {"mode": "touched_rows", "interval": 3},
  "fetch": [
    {"table": "user id", "requester": 0, "server": 3},
    {"table": "t0", "ranks": [50, 100], "cols": [0, 8], "requester": 3, "server": 1}
  ]
}
)");
}

TEST(PlanFile, TableNamesThatNeedQuotingRoundTrip) {
  DlrmModel m = model_of({{10, 8}, {10, 8}, {10, 8}});
  m.tables[0].name = "user id";
  m.tables[1].name = "true";
  m.tables[2].name = "a:b#c";
  const PlanFixture f(testing::hand_preset(2), 1, m);
  const Plan p = f.valid_plan("round_robin");
  for (PlanFormat format : {PlanFormat::yaml, PlanFormat::json}) {
    EXPECT_EQ(sorted_keys(from_text(to_text(p, f, format), f)), sorted_keys(p));
  }
}

TEST(PlanFile, BadPlansNameTheFileLineTableAndRows) {
  const PlanFixture f(testing::hand_preset(2), 1, model_of({{100, 16}, {10, 8}}));
  // Rows missing: reported at the table's line (3), naming the rows.
  std::string e = error_of("tables:\n  t1: [{gpu: 0}]\n  t0:\n    - {rows: [0, 60], gpu: 1}\n", f);
  EXPECT_TRUE(has(e, "p.yaml:3:")) << e;
  EXPECT_TRUE(has(e, "tables.t0")) << e;
  EXPECT_TRUE(has(e, "rows [60, 100) are not placed")) << e;
  // Rows placed twice: reported at the overlapping shard's line (5).
  e = error_of(
      "tables:\n  t1: [{gpu: 0}]\n  t0:\n    - {rows: [0, 60], gpu: 1}\n"
      "    - {rows: [50, 100], gpu: 0}\n",
      f);
  EXPECT_TRUE(has(e, "p.yaml:5:")) << e;
  EXPECT_TRUE(has(e, "rows [50, 60) are placed more than once")) << e;
  // GPU out of range.
  e = error_of("tables:\n  t1: [{gpu: 0}]\n  t0: [{gpu: 7}]\n", f);
  EXPECT_TRUE(has(e, "p.yaml:3:")) << e;
  EXPECT_TRUE(has(e, "GPU 7 does not exist")) << e;
  // Columns not on multiples of 4.
  e = error_of(
      "tables:\n  t1: [{gpu: 0}]\n  t0:\n    - {cols: [0, 6], gpu: 0}\n"
      "    - {cols: [6, 16], gpu: 1}\n",
      f);
  EXPECT_TRUE(has(e, "p.yaml:4:")) << e;
  EXPECT_TRUE(has(e, "multiples of 4")) << e;
  // Columns missing.
  e = error_of("tables:\n  t1: [{gpu: 0}]\n  t0:\n    - {cols: [0, 8], gpu: 0}\n", f);
  EXPECT_TRUE(has(e, "columns [8, 16) are not placed")) << e;
  // A table missing altogether.
  e = error_of("tables:\n  t1: [{gpu: 0}]\n", f);
  EXPECT_TRUE(has(e, "tables.t0")) << e;
  EXPECT_TRUE(has(e, "not placed on any GPU")) << e;
  // An unknown table, with a suggestion.
  e = error_of("tables:\n  t0: [{gpu: 0}]\n  t1: [{gpu: 0}]\n  t2: [{gpu: 1}]\n", f);
  EXPECT_TRUE(has(e, "p.yaml:4:")) << e;
  EXPECT_TRUE(has(e, "no table of this name")) << e;
  // Rows past the end, an empty range, rows and ranks together, no GPU, unknown keys.
  EXPECT_TRUE(has(error_of("tables:\n  t1: [{gpu: 0}]\n  t0: [{rows: [0, 101], gpu: 0}]\n", f),
                  "outside [0, 100)"));
  EXPECT_TRUE(
      has(error_of("tables:\n  t1: [{gpu: 0}]\n  t0: [{rows: [5, 5], gpu: 0}]\n", f), "is empty"));
  EXPECT_TRUE(has(
      error_of("tables:\n  t1: [{gpu: 0}]\n  t0: [{rows: [0, 100], ranks: [0, 100], gpu: 0}]\n", f),
      "not both"));
  EXPECT_TRUE(has(error_of("tables:\n  t1: [{gpu: 0}]\n  t0: [{rows: [0, 100]}]\n", f),
                  "missing required key 'gpu'"));
  EXPECT_TRUE(has(error_of("tables:\n  t1: [{gpu: 0}]\n  t0: [{gpuu: 0}]\n", f), "did you mean"));
  EXPECT_TRUE(has(error_of("tabels: {}\n", f), "did you mean 'tables'"));
  // One table in two row spaces.
  e = error_of(
      "tables:\n  t1: [{gpu: 0}]\n  t0:\n    - {rows: [0, 50], gpu: 0}\n"
      "    - {ranks: [50, 100], gpu: 1}\n",
      f);
  EXPECT_TRUE(has(e, "row space")) << e;
  // Two replicas of one block on one GPU.
  EXPECT_TRUE(has(error_of("tables:\n  t1: [{gpu: 0}]\n  t0: [{gpus: [1, 1]}]\n", f),
                  "placed twice on GPU 1"));
  // A plan for another cluster size; groups that do not cover every GPU; a bad fetch.
  EXPECT_TRUE(has(error_of("num_gpus: 8\ntables: {t0: [{gpu: 0}], t1: [{gpu: 0}]}\n", f),
                  "made for 8 GPUs but the cluster has 2"));
  EXPECT_TRUE(has(error_of("tables: {t0: [{gpu: 0}], t1: [{gpu: 0}]}\ngroups: [[0]]\n", f),
                  "GPU 1 is in no group"));
  EXPECT_TRUE(has(error_of("tables: {t0: [{gpu: 0}], t1: [{gpu: 0}]}\n"
                           "fetch: [{table: t0, requester: 1, server: 1}]\n",
                           f),
                  "no shard with these rows and columns on GPU 1"));
  // An empty document, and a JSON plan with an error: JSON errors have lines too.
  EXPECT_TRUE(has(error_of("", f), "empty"));
  e = error_of(
      "{\n  \"tables\": {\n    \"t0\": [{\"gpu\": 0}],\n    \"t1\": [{\"gpu\": 5}]\n  }\n}\n", f);
  EXPECT_TRUE(has(e, "p.yaml:4:")) << e;
  EXPECT_TRUE(has(e, "GPU 5 does not exist")) << e;
}

TEST(PlanFile, TwoDPlansKeepTheGroupsAndTheSync) {
  // 2 hosts x 4 GPUs; 8 tables of 1e5 x 32.
  const PlanFixture f(
      testing::hand_preset(4), 2,
      model_of(std::vector<testing::TableSpec>(8, testing::TableSpec{100000, 32, 4})), 64);
  const Plan p = f.valid_plan("two_d", {{"groups", 4},
                                        {"inner", "table_wise"},
                                        {"sync", "touched_rows"},
                                        {"sync_interval", 3},
                                        {"layout", "contiguous"}});
  EXPECT_EQ(p.groups[1], (std::vector<int>{2, 3}));
  for (PlanFormat format : {PlanFormat::yaml, PlanFormat::json}) {
    std::ostringstream out;
    write_plan(out, p, f.model, f.cluster, format, {});
    const std::string file = format == PlanFormat::json ? "p.json" : "p.yaml";
    const Plan back = read_plan_text(out.str(), file, f.model, f.cluster);
    EXPECT_EQ(back.groups, p.groups);
    EXPECT_EQ(back.peer_sync, p.peer_sync) << out.str();
    EXPECT_EQ(back.shards.size(), p.shards.size());
  }
}

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace plan_file_storage_test {

HardwarePreset hand_with_host() {
  HardwarePreset p = testing::hand_preset(2);
  p.host.memory_bytes_per_node = 1e12;
  p.host.link = LinkSpec{20e9, 1e-6};
  return p;
}

TEST(PlanFileStorage, HostShardsRoundTripThroughYamlAndJson) {
  const testing::PlanFixture f(hand_with_host(), 1, testing::model_of({{100, 16}, {10, 8}}));
  const Plan p = read_plan_text(R"(
tables:
  t0:
    - {rows: [0, 50], gpu: 0, storage: uvm}
    - {rows: [50, 100], gpu: 1, storage: {kind: uvm_caching, cache_fraction: 0.25, policy: lfu}}
  t1:
    - {gpus: [0, 1], storage: {kind: uvm_caching, cache_fraction: 0.5}}
)",
                                "p.yaml", f.model, f.cluster);
  ASSERT_EQ(p.shards.size(), 4u);
  EXPECT_EQ(p.shards[0].storage.kind, StorageKind::uvm);
  EXPECT_EQ(p.shards[1].storage, (ShardStorage{StorageKind::uvm_caching, CachePolicy::lfu, 0.25}));
  EXPECT_EQ(p.shards[2].storage, (ShardStorage{StorageKind::uvm_caching, CachePolicy::lru, 0.5}));
  EXPECT_EQ(p.shards[3].storage, p.shards[2].storage);
  for (PlanFormat format : {PlanFormat::yaml, PlanFormat::json}) {
    std::ostringstream out;
    write_plan(out, p, f.model, f.cluster, format, PlanFileInfo{"s"});
    const Plan back = read_plan_text(out.str(), format == PlanFormat::json ? "p.json" : "p.yaml",
                                     f.model, f.cluster);
    ASSERT_EQ(back.shards.size(), p.shards.size()) << out.str();
    for (std::size_t i = 0; i < p.shards.size(); ++i) {
      EXPECT_EQ(back.shards[i].storage, p.shards[i].storage) << out.str();
    }
  }
}

TEST(PlanFileStorage, BadStorageIsAnInputErrorWithTheLine) {
  const testing::PlanFixture f(hand_with_host(), 1, testing::model_of({{100, 16}}));
  const auto error_of_storage = [&](const std::string& storage) -> std::string {
    try {
      read_plan_text("tables:\n  t0:\n    - {gpu: 0, storage: " + storage + "}\n", "p.yaml",
                     f.model, f.cluster);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_TRUE(
      testing::has(error_of_storage("{kind: uvm_caching, cache_fraction: 1.5}"), "p.yaml:3"));
  EXPECT_TRUE(testing::has(error_of_storage("{kind: uvm_caching, cache_fraction: 1.5}"), "(0, 1)"));
  EXPECT_TRUE(testing::has(error_of_storage("uvm_caching"), "cache size"));
  EXPECT_TRUE(testing::has(error_of_storage("uvn"), "did you mean 'uvm'"));
  EXPECT_TRUE(testing::has(error_of_storage("{kind: uvm, cache_fraction: 0.2}"), "only a"));
  EXPECT_TRUE(testing::has(
      error_of_storage("{kind: uvm_caching, cache_fraction: 0.2, policy: fifo}"), "lru"));
  // A preset without host memory: the shard cannot leave HBM.
  const testing::PlanFixture no_host(testing::hand_preset(2), 1, testing::model_of({{100, 16}}));
  try {
    read_plan_text("tables:\n  t0:\n    - {gpu: 0, storage: uvm}\n", "p.yaml", no_host.model,
                   no_host.cluster);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(testing::has(e.what(), "describes no host memory")) << e.what();
  }
}

}  // namespace plan_file_storage_test
}  // namespace shardsim
