// TorchRec's ShardingPlan <-> Plan (io/torchrec_plan.hpp).
#include "shardsim/io/torchrec_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "shardsim/core/error.hpp"

namespace shardsim {

namespace {

struct Rect {
  std::uint64_t row = 0, col = 0, rows = 0, cols = 0;
  int rank = 0;
  YamlValue where;
};

std::pair<std::uint64_t, std::uint64_t> pair_of(const YamlValue& v) {
  v.expect_sequence();
  if (v.size() != 2)
    throw v.error(fmt::format("expected [rows, columns], found {} numbers", v.size()));
  return {v.at(0).as_nonnegative_int(), v.at(1).as_nonnegative_int()};
}

int rank_of(const YamlValue& v, const Cluster& cluster) {
  const std::int64_t r = v.as_int();
  if (r < 0 || r >= cluster.num_gpus()) {
    throw v.error(fmt::format("rank {} is not in the world of {} GPUs", r, cluster.num_gpus()),
                  "plan again for this cluster, or change cluster.nodes");
  }
  return static_cast<int>(r);
}

ShardStorage storage_of(const std::string& kernel, double cache_load_factor) {
  ShardStorage s;
  if (kernel == "fused_uvm") s.kind = StorageKind::uvm;
  if (kernel == "fused_uvm_caching") {
    s.kind = StorageKind::uvm_caching;
    s.cache_fraction = cache_load_factor;
  }
  return s;
}

// The shards of one non-data-parallel table: inside the table, no two overlapping, covering it.
void check_cover(const std::vector<Rect>& shards, const EmbeddingTable& t, const YamlValue& at) {
  long double area = 0;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const Rect& a = shards[i];
    if (a.rows == 0 || a.cols == 0) throw a.where.error("the shard is empty (a size of 0)");
    if (a.row + a.rows > t.rows || a.col + a.cols > t.dim) {
      throw a.where.error(
          fmt::format("the shard [{}, {}) x [{}, {}) goes past table '{}' ({} rows x {} columns)",
                      a.row, a.row + a.rows, a.col, a.col + a.cols, t.name, t.rows, t.dim));
    }
    for (std::size_t j = 0; j < i; ++j) {
      const Rect& b = shards[j];
      const bool rows = a.row < b.row + b.rows && b.row < a.row + a.rows;
      const bool cols = a.col < b.col + b.cols && b.col < a.col + a.cols;
      if (rows && cols) {
        throw a.where.error(fmt::format("the shard overlaps shard {} of table '{}'", j, t.name),
                            "each row and column of a table is in exactly one shard");
      }
    }
    area += static_cast<long double>(a.rows) * a.cols;
  }
  if (area != static_cast<long double>(t.rows) * t.dim) {
    throw at.error(fmt::format("the shards of table '{}' do not cover it ({} of {} cells)", t.name,
                               static_cast<double>(area), static_cast<double>(t.rows) * t.dim),
                   "each row and column of a table is in exactly one shard");
  }
}

}  // namespace

Plan read_torchrec_plan(const YamlValue& root, const DlrmModel& model, const Cluster& cluster) {
  root.expect_map();
  root.expect_keys({"format", "world_size", "local_world_size", "model", "planner", "tables"});
  if (auto w = root.find("world_size")) {
    if (w->as_positive_int() != static_cast<std::uint64_t>(cluster.num_gpus())) {
      throw w->error(fmt::format("the plan is for a world of {} GPUs but the cluster has {}",
                                 w->as_positive_int(), cluster.num_gpus()),
                     "set cluster.nodes (and the preset's gpus_per_node) to the plan's topology");
    }
  }
  const YamlValue tables = root.get("tables");
  tables.expect_map();
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < model.tables.size(); ++i) index[model.tables[i].name] = i;
  Plan plan;
  plan.planner = root.has("planner") ? root.get("planner").as_string() : "torchrec-plan";
  std::set<std::size_t> seen;
  for (const std::string& name : tables.keys()) {
    const YamlValue e = tables.get(name);
    const auto it = index.find(name);
    if (it == index.end()) {
      throw e.error(fmt::format("the model has no table '{}'", name),
                    "the plan and the scenario must name the same tables");
    }
    const EmbeddingTable& t = model.tables[it->second];
    seen.insert(it->second);
    e.expect_keys({"sharding_type", "compute_kernel", "ranks", "shards", "cache_load_factor"});
    const std::string type = e.get("sharding_type")
                                 .as_choice({"data_parallel", "table_wise", "column_wise",
                                             "table_column_wise", "row_wise", "table_row_wise"});
    const std::string kernel =
        e.get("compute_kernel").as_choice({"dense", "fused", "fused_uvm", "fused_uvm_caching"});
    double load = kTorchrecDefaultCacheLoadFactor;
    if (auto c = e.find("cache_load_factor")) {
      load = c->as_positive_double();
      if (load >= 1) throw c->error("expected a fraction of the rows in (0, 1)");
    }
    if (type == "data_parallel") {
      if (kernel != "dense" && kernel != "fused") {
        throw e.get("compute_kernel").error("a data-parallel table runs the dense kernel");
      }
      const YamlValue ranks = e.get("ranks");
      ranks.expect_sequence();
      if (ranks.size() == 0) throw ranks.error("a data-parallel table needs its ranks");
      std::set<int> replicas;
      int replica = 0;
      for (const YamlValue& r : ranks.elements()) {
        const int gpu = rank_of(r, cluster);
        if (!replicas.insert(gpu).second) throw r.error(fmt::format("rank {} given twice", gpu));
        Shard sh = whole_table_shard(it->second, t.rows, t.dim, ShardKind::data_parallel);
        sh.gpu = gpu;
        sh.replica = replica++;
        plan.shards.push_back(sh);
      }
      continue;
    }
    if (kernel == "dense") {
      throw e.get("compute_kernel").error(fmt::format("a {} table needs a fused kernel", type));
    }
    const YamlValue shards = e.get("shards");
    shards.expect_sequence();
    if (shards.size() == 0) throw shards.error(fmt::format("table '{}' has no shards", name));
    std::vector<Rect> rects;
    for (const YamlValue& s : shards.elements()) {
      s.expect_keys({"rank", "offset", "size", "placement", "perf_ms", "hbm", "ddr"});
      const auto [row, col] = pair_of(s.get("offset"));
      const auto [rows, cols] = pair_of(s.get("size"));
      rects.push_back(Rect{row, col, rows, cols, rank_of(s.get("rank"), cluster), s});
    }
    check_cover(rects, t, e);
    for (const Rect& r : rects) {
      Shard sh;
      sh.table = it->second;
      sh.rows = {r.row, r.row + r.rows};
      sh.cols = {static_cast<std::uint32_t>(r.col), static_cast<std::uint32_t>(r.col + r.cols)};
      sh.gpu = r.rank;
      sh.kind = r.rows != t.rows  ? ShardKind::row_wise
                : r.cols != t.dim ? ShardKind::column_wise
                                  : ShardKind::table_wise;
      sh.storage = storage_of(kernel, load);
      plan.shards.push_back(sh);
    }
  }
  for (std::size_t i = 0; i < model.tables.size(); ++i) {
    if (!seen.count(i)) {
      throw tables.error(
          fmt::format("table '{}' of the model is not in the plan", model.tables[i].name),
          "a ShardingPlan names every table of the EmbeddingBagCollection");
    }
  }
  return plan;
}

namespace {

[[noreturn]] void cannot(const std::string& table, const std::string& why) {
  throw InputError(SourceLocation{"--format torchrec"}, table,
                   fmt::format("TorchRec's ShardingPlan cannot express table '{}': {}", table, why),
                   "export plans of table_wise, row_wise, column_wise, table_row_wise, "
                   "table_column_wise, data_parallel, hybrid, torchrec or neuroshard");
}

std::string kernel_of(const ShardStorage& s) {
  switch (s.kind) {
    case StorageKind::uvm:
      return "fused_uvm";
    case StorageKind::uvm_caching:
      return "fused_uvm_caching";
    default:
      return "fused";
  }
}

}  // namespace

nlohmann::ordered_json torchrec_plan_json(const Plan& plan, const DlrmModel& model,
                                          const Cluster& cluster) {
  if (!plan.groups.empty()) cannot(model.tables.front().name, "the plan has 2D sparse groups");
  if (plan.lookup_comm != LookupComm::pooled) {
    cannot(model.tables.front().name, "the plan's lookups are one-sided");
  }
  std::vector<std::vector<const Shard*>> by_table(model.tables.size());
  for (const Shard& s : plan.shards) by_table.at(s.table).push_back(&s);
  const int per_node = cluster.gpus_per_node();
  nlohmann::ordered_json tables = nlohmann::ordered_json::object();
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    const EmbeddingTable& table = model.tables[t];
    const std::vector<const Shard*>& shards = by_table[t];
    if (shards.empty()) cannot(table.name, "it has no shards");
    nlohmann::ordered_json e;
    const bool whole = std::all_of(shards.begin(), shards.end(), [&](const Shard* s) {
      return s->rows.begin == 0 && s->rows.end == table.rows && s->cols.begin == 0 &&
             s->cols.end == table.dim;
    });
    for (const Shard* s : shards) {
      if (s->row_space != RowSpace::row_id) cannot(table.name, "its rows are popularity ranks");
      if (s->kind == ShardKind::fine_grained)
        cannot(table.name, "it is split into hot rows (OPER)");
    }
    std::vector<int> ranks;
    for (const Shard* s : shards) ranks.push_back(s->gpu);
    if (shards.size() > 1 && whole) {
      // Replicas of the whole table: data parallel.
      e["sharding_type"] = "data_parallel";
      e["compute_kernel"] = "dense";
      e["ranks"] = ranks;
      tables[table.name] = std::move(e);
      continue;
    }
    const bool row_split = std::any_of(
        shards.begin(), shards.end(), [&](const Shard* s) { return s->rows.size() != table.rows; });
    const bool col_split = std::any_of(shards.begin(), shards.end(),
                                       [&](const Shard* s) { return s->cols.size() != table.dim; });
    if (row_split && col_split) cannot(table.name, "it is split by rows and by columns at once");
    std::set<int> nodes;
    for (int r : ranks) nodes.insert(r / per_node);
    std::string type = "table_wise";
    if (row_split) {
      // Within one host of several: TorchRec's table-row-wise; else row-wise over the world.
      type = nodes.size() == 1 && cluster.num_nodes() > 1 ? "table_row_wise" : "row_wise";
    } else if (col_split) {
      // TorchRec's column-wise places its shards on any ranks (table-column-wise, within a host,
      // differs in its communication, which the shards do not tell): column-wise.
      type = "column_wise";
    }
    const std::string kernel = kernel_of(shards.front()->storage);
    for (const Shard* s : shards) {
      if (kernel_of(s->storage) != kernel) cannot(table.name, "its shards use different storage");
    }
    e["sharding_type"] = type;
    e["compute_kernel"] = kernel;
    e["ranks"] = ranks;
    if (shards.front()->storage.kind == StorageKind::uvm_caching) {
      e["cache_load_factor"] = shards.front()->storage.cache_fraction;
    }
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Shard* s : shards) {
      nlohmann::ordered_json sh;
      sh["rank"] = s->gpu;
      sh["offset"] = {s->rows.begin, s->cols.begin};
      sh["size"] = {s->rows.size(), s->cols.size()};
      list.push_back(std::move(sh));
    }
    e["shards"] = std::move(list);
    tables[table.name] = std::move(e);
  }
  nlohmann::ordered_json j;
  j["format"] = kTorchrecPlanFormatTag;
  j["planner"] = plan.planner;
  j["world_size"] = cluster.num_gpus();
  j["local_world_size"] = per_node;
  j["tables"] = std::move(tables);
  return j;
}

}  // namespace shardsim
