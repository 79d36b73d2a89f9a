// Reading plan files (io/plan_file.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "io/plan_file_entries.hpp"
#include "shardsim/io/plan_file.hpp"
#include "shardsim/io/planner_options_reader.hpp"
#include "shardsim/io/torchrec_plan.hpp"
#include "shardsim/plan/plan_validation.hpp"

namespace shardsim {

namespace {

using plan_file::Entry;
using plan_file::inferred_kind;

RowRange read_range(const YamlValue& v) {
  v.expect_sequence();
  if (v.size() != 2) {
    throw v.error(fmt::format("expected [begin, end], found a list of {}", v.size()),
                  "a half-open range: [0, 100] means 0 to 99");
  }
  const std::uint64_t b = v.at(0).as_nonnegative_int();
  const std::uint64_t e = v.at(1).as_nonnegative_int();
  if (e <= b) {
    throw v.error(fmt::format("the range [{}, {}) is empty", b, e), "end must be above begin");
  }
  return {b, e};
}

int read_gpu(const YamlValue& v) {
  const std::int64_t g = v.as_int();
  if (g < 0 || g > (1 << 30)) throw v.error(fmt::format("GPU {} is not a GPU id", g));
  return static_cast<int>(g);
}

ShardKind read_kind(const YamlValue& v) {
  const std::string k =
      v.as_choice({"table_wise", "row_wise", "column_wise", "data_parallel", "fine_grained"});
  if (k == "row_wise") return ShardKind::row_wise;
  if (k == "column_wise") return ShardKind::column_wise;
  if (k == "data_parallel") return ShardKind::data_parallel;
  if (k == "fine_grained") return ShardKind::fine_grained;
  return ShardKind::table_wise;
}

// `storage:` of an entry: hbm (the default), uvm, or {kind: uvm_caching, cache_fraction in
// (0, 1), policy: lru | lfu (default lru)}.
ShardStorage read_storage(const YamlValue& v) {
  ShardStorage st;
  if (!v.is_map()) {
    const std::string k = v.as_choice({"hbm", "uvm", "uvm_caching"});
    if (k == "uvm_caching") {
      throw v.error("a uvm_caching shard needs its cache size",
                    "write storage: {kind: uvm_caching, cache_fraction: 0.2, policy: lru}");
    }
    st.kind = k == "uvm" ? StorageKind::uvm : StorageKind::hbm;
    return st;
  }
  v.expect_keys({"kind", "cache_fraction", "policy"});
  const std::string k = v.get("kind").as_choice({"hbm", "uvm", "uvm_caching"});
  st.kind = k == "uvm"           ? StorageKind::uvm
            : k == "uvm_caching" ? StorageKind::uvm_caching
                                 : StorageKind::hbm;
  if (st.kind != StorageKind::uvm_caching) {
    if (v.has("cache_fraction")) {
      throw v.get("cache_fraction")
          .error("only a uvm_caching shard has a cache",
                 "drop cache_fraction, or use kind: uvm_caching");
    }
    if (v.has("policy")) {
      throw v.get("policy").error("only a uvm_caching shard has a cache policy",
                                  "drop policy, or use kind: uvm_caching");
    }
    return st;
  }
  const YamlValue f = v.get("cache_fraction");
  st.cache_fraction = f.as_double();
  if (!(st.cache_fraction > 0 && st.cache_fraction < 1)) {
    throw f.error(fmt::format("expected a fraction of the shard's rows in (0, 1), found {}",
                              st.cache_fraction),
                  "0.2 caches a fifth of the rows (TorchRec's default cache_load_factor); "
                  "use storage: uvm for no cache, or hbm for the whole shard");
  }
  if (auto p = v.find("policy")) {
    st.policy = *parse_cache_policy(p->as_choice({"lru", "lfu"}));
  }
  return st;
}

struct BlockSpec {
  RowRange rows;
  RowSpace space = RowSpace::row_id;
  ColRange cols;
};

// rows / ranks / cols of an entry (defaults: the whole table).
BlockSpec read_block(const YamlValue& entry, const EmbeddingTable& t) {
  BlockSpec b{{0, t.rows}, RowSpace::row_id, {0, t.dim}};
  const auto rows = entry.find("rows");
  const auto ranks = entry.find("ranks");
  if (rows && ranks) {
    throw ranks->error("give rows (row ids) or ranks (popularity ranks), not both");
  }
  if (rows) b.rows = read_range(*rows);
  if (ranks) {
    b.rows = read_range(*ranks);
    b.space = RowSpace::rank;
  }
  if (auto c = entry.find("cols")) {
    const RowRange r = read_range(*c);
    if (r.end > t.dim) {
      throw c->error(
          fmt::format("columns [{}, {}) go past the table's dim {}", r.begin, r.end, t.dim));
    }
    b.cols = {static_cast<std::uint32_t>(r.begin), static_cast<std::uint32_t>(r.end)};
  }
  return b;
}

// `format:` and `num_gpus:` of a shardsim plan file: this format, made for this cluster.
void check_plan_header(const YamlValue& root, const Cluster& cluster) {
  if (auto f = root.find("format")) {
    if (f->as_string() != kPlanFormatTag) {
      throw f->error(
          fmt::format("unknown plan format '{}'", f->as_string()),
          fmt::format("this shardsim reads '{}' and '{}'", kPlanFormatTag, kTorchrecPlanFormatTag));
    }
  }
  if (auto n = root.find("num_gpus")) {
    if (n->as_positive_int() != static_cast<std::uint64_t>(cluster.num_gpus())) {
      throw n->error(fmt::format("the plan was made for {} GPUs but the cluster has {}",
                                 n->as_positive_int(), cluster.num_gpus()),
                     "plan again for this cluster, or change cluster.nodes");
    }
  }
}

// The model's table names: each one's index, and the list (for did-you-mean hints).
struct PlanTableNames {
  std::unordered_map<std::string, std::size_t> by_name;
  std::vector<std::string> names;
};

// The table names of `model`, in its order.
PlanTableNames plan_table_names(const DlrmModel& model) {
  PlanTableNames out;
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    out.by_name.emplace(model.tables[t].name, t);
    out.names.push_back(model.tables[t].name);
  }
  return out;
}

// `gpu:` or `gpus:` of an entry (exactly one of them): the GPUs that hold its block.
std::vector<int> read_entry_gpus(const YamlValue& entry) {
  std::vector<int> gpus;
  const auto gpu = entry.find("gpu");
  const auto gpu_list = entry.find("gpus");
  if (gpu && gpu_list) throw gpu_list->error("give gpu or gpus, not both");
  if (gpu) {
    gpus.push_back(read_gpu(*gpu));
  } else if (gpu_list) {
    gpu_list->expect_sequence();
    if (gpu_list->size() == 0) throw gpu_list->error("the list of GPUs is empty");
    for (const YamlValue& g : gpu_list->elements()) gpus.push_back(read_gpu(g));
  } else {
    throw entry.error("missing required key 'gpu' (or 'gpus' for replicas)",
                      "e.g. {rows: [0, 1000], gpu: 3}");
  }
  return gpus;
}

// The entries of table t's list: one shard per GPU of each entry, replicas of a block numbered.
void read_plan_entries(const YamlValue& list, std::size_t t, const EmbeddingTable& table,
                       Plan& plan, PlanSource& source) {
  list.expect_sequence();
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t, std::uint32_t>, int> replica;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YamlValue entry = list.at(i);
    entry.expect_map();
    entry.expect_keys({"rows", "ranks", "cols", "gpu", "gpus", "kind", "storage"});
    const BlockSpec b = read_block(entry, table);
    const std::vector<int> gpus = read_entry_gpus(entry);
    Entry e{b.rows, b.space, b.cols, {}, ShardKind::table_wise, {}};
    for (int g : gpus) e.replicas.emplace_back(0, g);
    const ShardKind kind =
        entry.has("kind") ? read_kind(entry.get("kind")) : inferred_kind(e, table);
    const ShardStorage storage =
        entry.has("storage") ? read_storage(entry.get("storage")) : ShardStorage{};
    for (int g : gpus) {
      int& r = replica[{b.rows.begin, b.rows.end, b.cols.begin, b.cols.end}];
      plan.shards.push_back(Shard{t, b.rows, b.space, b.cols, g, r++, kind, storage});
      source.shard_locations.push_back(entry.location());
      source.shard_keys.push_back(entry.path());
    }
  }
}

// `tables:`: each of the model's tables at most once, by name, with its shards.
void read_plan_tables(const YamlValue& root, const DlrmModel& model, const PlanTableNames& names,
                      Plan& plan, PlanSource& source) {
  const std::string& file = root.file();
  const YamlValue tables = root.get("tables");
  tables.expect_map();
  std::vector<bool> seen(model.tables.size(), false);
  for (auto it = tables.node().begin(); it != tables.node().end(); ++it) {
    const std::string name = it->first.Scalar();
    const YamlValue key(it->first, file, "tables." + name);
    const auto found = names.by_name.find(name);
    if (found == names.by_name.end()) {
      const auto best = did_you_mean(name, names.names);
      throw key.error("the model has no table of this name",
                      best ? fmt::format("did you mean '{}'?", *best)
                           : "plan tables are keyed by the names of the scenario's tables");
    }
    const std::size_t t = found->second;
    if (seen[t]) throw key.error("the table is listed twice", "list each table once");
    seen[t] = true;
    source.table_locations[t] = key.location();
    const YamlValue list(it->second, file, "tables." + name);
    if (list.is_null()) continue;  // no shards: validation reports the table as not placed
    read_plan_entries(list, t, model.tables[t], plan, source);
  }
}

// `groups:`: the GPU groups of a 2D plan, lists of GPU ids.
void read_plan_groups(const YamlValue& g, Plan& plan, PlanSource& source) {
  source.groups_location = g.location();
  g.expect_sequence();
  for (const YamlValue& group : g.elements()) {
    group.expect_sequence();
    std::vector<int> members;
    for (const YamlValue& m : group.elements()) members.push_back(read_gpu(m));
    plan.groups.push_back(std::move(members));
  }
}

// `sync:`: how replicas in different groups are synchronised (2D, Plan::sync): {mode, interval}.
void read_peer_sync(const YamlValue& sv, Plan& plan) {
  sv.expect_map();
  sv.expect_keys({"mode", "interval"});
  if (auto mode = sv.find("mode")) {
    plan.peer_sync.mode = mode->as_choice({"dense", "touched_rows"}) == "touched_rows"
                              ? PeerSyncMode::touched_rows
                              : PeerSyncMode::dense;
  }
  if (auto interval = sv.find("interval")) {
    const std::uint64_t k = interval->as_positive_int();
    if (k > 1000000) throw interval->error("expected at most 1000000 iterations between syncs");
    plan.peer_sync.interval = static_cast<int>(k);
  }
}

// `fetch:`: overrides of the replica a requester reads a block from, resolved against the shards.
void read_fetch_overrides(const YamlValue& f, const DlrmModel& model, const Cluster& cluster,
                          const PlanTableNames& names, Plan& plan) {
  f.expect_sequence();
  for (const YamlValue& o : f.elements()) {
    o.expect_map();
    o.expect_keys({"table", "rows", "ranks", "cols", "requester", "server"});
    const YamlValue tv = o.get("table");
    const auto found = names.by_name.find(tv.as_string());
    if (found == names.by_name.end()) {
      const auto best = did_you_mean(tv.as_string(), names.names);
      throw tv.error("the model has no table of this name",
                     best ? fmt::format("did you mean '{}'?", *best) : std::string());
    }
    const BlockSpec b = read_block(o, model.tables[found->second]);
    const int requester = read_gpu(o.get("requester"));
    const YamlValue server_value = o.get("server");
    const int server = read_gpu(server_value);
    std::size_t shard = plan.shards.size();
    for (std::size_t s = 0; s < plan.shards.size(); ++s) {
      const Shard& sh = plan.shards[s];
      if (sh.table == found->second && sh.rows == b.rows && sh.row_space == b.space &&
          sh.cols == b.cols && sh.gpu == server) {
        shard = s;
        break;
      }
    }
    if (shard == plan.shards.size()) {
      throw server_value.error(
          fmt::format("table '{}' has no shard with these rows and columns on GPU {}",
                      tv.as_string(), server),
          "a fetch override names a GPU that holds a replica of the block");
    }
    if (requester < 0 || requester >= cluster.num_gpus()) {
      throw o.get("requester")
          .error(fmt::format("GPU {} does not exist (the cluster has {} GPUs)", requester,
                             cluster.num_gpus()));
    }
    plan.fetch_overrides.push_back(FetchOverride{shard, requester});
  }
}

}  // namespace

// Shards in the model's table order (a file may list tables in any order), each table's in the
// order written, their locations and keys with them: the order the writer writes, so a plan reads
// back as it was written.
static void in_model_order(Plan& plan, PlanSource& source) {
  std::vector<std::size_t> order(plan.shards.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return plan.shards[a].table < plan.shards[b].table;
  });
  const auto permute = [&](auto& v) {
    if (v.size() != order.size()) return;
    auto copy = v;
    for (std::size_t i = 0; i < order.size(); ++i) v[i] = std::move(copy[order[i]]);
  };
  permute(plan.shards);
  permute(source.shard_locations);
  permute(source.shard_keys);
}

Plan read_plan(const YamlValue& root, const DlrmModel& model, const Cluster& cluster) {
  const std::string& file = root.file();
  if (root.is_null()) {
    throw InputError(SourceLocation{file, 0, 0}, "", "the plan file is empty",
                     "write one with `shardsim plan SCENARIO --planner NAME --out plan.yaml`");
  }
  root.expect_map();
  // TorchRec's ShardingPlan (io/torchrec_plan.hpp), e.g. from scripts/torchrec_export.py.
  if (auto f = root.find("format");
      f && f->is_scalar() && f->as_string() == kTorchrecPlanFormatTag) {
    return read_torchrec_plan(root, model, cluster);
  }
  root.expect_keys({"format", "planner", "scenario", "num_gpus", "communication", "replica_sync",
                    "tables", "groups", "sync", "fetch", "bottom_mlp_gpu"});
  check_plan_header(root, cluster);
  Plan plan;
  plan.planner = root.has("planner") ? root.get("planner").as_string() : "file";
  if (auto c = root.find("communication")) plan.lookup_comm = read_lookup_comm(*c);
  if (auto r = root.find("replica_sync")) plan.replica_sync = read_replica_sync(*r);
  PlanSource source;
  source.name = file;
  if (auto b = root.find("bottom_mlp_gpu")) {
    const std::uint64_t g = b->as_nonnegative_int();
    // Out of range: validate_plan names it.
    plan.bottom_mlp_gpu =
        static_cast<int>(std::min<std::uint64_t>(g, std::numeric_limits<int>::max()));
    source.bottom_mlp_location = b->location();
  }
  source.table_locations.assign(model.tables.size(), SourceLocation{file, 0, 0});
  const PlanTableNames names = plan_table_names(model);
  read_plan_tables(root, model, names, plan, source);
  in_model_order(plan, source);
  if (auto g = root.find("groups")) read_plan_groups(*g, plan, source);
  if (auto sv = root.find("sync")) read_peer_sync(*sv, plan);
  // Shards are validated before fetch overrides are resolved against them.
  validate_plan(plan, cluster, model, source);
  if (auto f = root.find("fetch")) read_fetch_overrides(*f, model, cluster, names, plan);
  return plan;
}

Plan read_plan_text(std::string_view text, const std::string& file, const DlrmModel& model,
                    const Cluster& cluster) {
  return read_plan(YamlValue(parse_yaml(text, file), file, ""), model, cluster);
}

Plan read_plan_file(const std::string& path, const DlrmModel& model, const Cluster& cluster) {
  return read_plan(YamlValue(load_yaml_file(path), path, ""), model, cluster);
}

}  // namespace shardsim
