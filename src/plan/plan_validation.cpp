#include "shardsim/plan/plan_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "plan/splits.hpp"

namespace shardsim {

namespace {

constexpr const char* kHint =
    "every row and column of every table must be placed exactly once per replica";

class Reporter {
 public:
  explicit Reporter(const PlanSource& s) : s_(s) {}

  [[noreturn]] void shard(std::size_t i, const std::string& problem,
                          const std::string& hint = kHint) const {
    const SourceLocation where =
        i < s_.shard_locations.size() ? s_.shard_locations[i] : SourceLocation{s_.name, 0, 0};
    const std::string key =
        i < s_.shard_keys.size() ? s_.shard_keys[i] : fmt::format("shards[{}]", i);
    throw InputError(where, key, problem, hint);
  }
  [[noreturn]] void table(std::size_t t, const std::string& name,
                          const std::string& problem) const {
    const SourceLocation where =
        t < s_.table_locations.size() ? s_.table_locations[t] : SourceLocation{s_.name, 0, 0};
    throw InputError(where, fmt::format("tables.{}", name),
                     fmt::format("table '{}': {}", name, problem), kHint);
  }
  [[noreturn]] void other(const SourceLocation& loc, const std::string& key,
                          const std::string& problem, const std::string& hint) const {
    throw InputError(loc.file.empty() && loc.line == 0 ? SourceLocation{s_.name, 0, 0} : loc, key,
                     problem, hint);
  }

 private:
  const PlanSource& s_;
};

bool aligned(std::uint32_t col, std::uint32_t dim) {
  return col % kColumnAlignment == 0 || col == dim;
}

}  // namespace

void validate_plan(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                   const std::string& source) {
  PlanSource s;
  s.name = source;
  validate_plan(plan, cluster, model, s);
}

namespace {

// One shard's own fields: its table, GPU, rows and columns exist and columns are aligned.
void check_shard_fields(const Reporter& report, std::size_t i, const Shard& sh,
                        const std::vector<EmbeddingTable>& tables, int n, const Cluster& cluster,
                        LookupComm comm) {
  if (sh.table >= tables.size()) {
    report.shard(i, fmt::format("table index {} is out of range (the model has {} tables)",
                                sh.table, tables.size()));
  }
  const auto& t = tables[sh.table];
  if (sh.gpu < 0 || sh.gpu >= n) {
    report.shard(i,
                 fmt::format("table '{}': GPU {} does not exist (the cluster has {} GPUs, "
                             "0 to {})",
                             t.name, sh.gpu, n, n - 1),
                 "GPU ids are global: node x GPUs per node + local id");
  }
  const char* unit = sh.row_space == RowSpace::rank ? "ranks" : "rows";
  if (sh.rows.begin >= sh.rows.end || sh.rows.end > t.rows) {
    report.shard(i, fmt::format("table '{}': {} [{}, {}) are empty or outside [0, {})", t.name,
                                unit, sh.rows.begin, sh.rows.end, t.rows));
  }
  if (sh.cols.begin >= sh.cols.end || sh.cols.end > t.dim) {
    report.shard(i, fmt::format("table '{}': columns [{}, {}) are empty or outside [0, {})", t.name,
                                sh.cols.begin, sh.cols.end, t.dim));
  }
  if (!aligned(sh.cols.begin, t.dim) || !aligned(sh.cols.end, t.dim)) {
    report.shard(i,
                 fmt::format("table '{}': columns [{}, {}) do not start and end on multiples "
                             "of {} (or the last column, {})",
                             t.name, sh.cols.begin, sh.cols.end, kColumnAlignment, t.dim),
                 "embedding kernels load rows in 4-column vectors; cut columns at multiples "
                 "of 4");
  }
  if (sh.storage.in_host() && !cluster.preset().host.present()) {
    report.shard(i,
                 fmt::format("table '{}': the shard is in host memory ({}), and the preset '{}' "
                             "describes no host memory",
                             t.name, to_string(sh.storage.kind), cluster.preset().name),
                 "add a host: block to the preset (cluster.overrides.host: {memory_GiB, "
                 "link_GBps, link_latency_us}; docs/hardware.md), or keep the shard in HBM");
  }
  if (sh.storage.in_host() && comm == LookupComm::one_sided) {
    report.shard(i,
                 fmt::format("table '{}': a shard in host memory ({}) in a one-sided plan is not "
                             "modelled",
                             t.name, to_string(sh.storage.kind)),
                 "OPER's one-sided gets read rows from HBM; keep the shard in HBM, or use "
                 "communication: pooled");
  }
  if (sh.storage.kind == StorageKind::uvm_caching &&
      !(sh.storage.cache_fraction > 0 && sh.storage.cache_fraction < 1)) {
    report.shard(i, fmt::format("table '{}': cache fraction {} is outside (0, 1)", t.name,
                                sh.storage.cache_fraction));
  }
}

// Row blocks of each table (first replica of each block only) and the shard that placed each
// column range: every row and column placed, none twice.
using Block = std::pair<std::uint64_t, std::uint64_t>;
using TableBlocks = std::map<Block, std::vector<std::pair<ColRange, std::size_t>>>;
void check_coverage(const Reporter& report, const std::vector<EmbeddingTable>& tables,
                    std::vector<TableBlocks>& blocks, const std::vector<int>& space_of) {
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const std::string& name = tables[t].name;
    const char* unit = space_of[t] == static_cast<int>(RowSpace::rank) ? "ranks" : "rows";
    if (blocks[t].empty()) report.table(t, name, "the table is not placed on any GPU");
    std::uint64_t next_row = 0;
    for (auto& [rows, cols] : blocks[t]) {
      if (rows.first != next_row) {
        if (rows.first > next_row) {
          report.table(t, name,
                       fmt::format("{} [{}, {}) are not placed", unit, next_row, rows.first));
        }
        report.shard(cols.front().second,
                     fmt::format("table '{}': {} [{}, {}) are placed more than once", name, unit,
                                 rows.first, std::min(next_row, rows.second)));
      }
      next_row = rows.second;
      std::sort(cols.begin(), cols.end(),
                [](const auto& a, const auto& b) { return a.first.begin < b.first.begin; });
      std::uint32_t next_col = 0;
      for (const auto& [c, shard] : cols) {
        if (c.begin > next_col) {
          report.table(t, name,
                       fmt::format("{} [{}, {}): columns [{}, {}) are not placed", unit, rows.first,
                                   rows.second, next_col, c.begin));
        }
        if (c.begin < next_col) {
          report.shard(shard, fmt::format("table '{}': {} [{}, {}): columns [{}, {}) are placed "
                                          "twice",
                                          name, unit, rows.first, rows.second, c.begin,
                                          std::min(next_col, c.end)));
        }
        next_col = c.end;
      }
      if (next_col != tables[t].dim) {
        report.table(t, name,
                     fmt::format("{} [{}, {}): columns [{}, {}) are not placed", unit, rows.first,
                                 rows.second, next_col, tables[t].dim));
      }
    }
    if (next_row != tables[t].rows) {
      report.table(t, name,
                   fmt::format("{} [{}, {}) are not placed", unit, next_row, tables[t].rows));
    }
  }
}

// 2D groups: non-empty, existing GPUs, disjoint, covering the cluster.
void check_groups(const Reporter& report, const Plan& plan, const PlanSource& source, int n) {
  if (plan.groups.empty()) return;
  {
    std::vector<int> group_of(static_cast<std::size_t>(n), -1);
    for (std::size_t g = 0; g < plan.groups.size(); ++g) {
      if (plan.groups[g].empty()) {
        report.other(source.groups_location, fmt::format("groups[{}]", g), "the group is empty",
                     "list at least one GPU per group");
      }
      for (int gpu : plan.groups[g]) {
        if (gpu < 0 || gpu >= n) {
          report.other(source.groups_location, fmt::format("groups[{}]", g),
                       fmt::format("GPU {} does not exist (the cluster has {} GPUs)", gpu, n),
                       "GPU ids are 0 to num_gpus - 1");
        }
        if (group_of[gpu] >= 0) {
          report.other(source.groups_location, fmt::format("groups[{}]", g),
                       fmt::format("GPU {} is already in group {}", gpu, group_of[gpu]),
                       "groups must not overlap");
        }
        group_of[gpu] = static_cast<int>(g);
      }
    }
    for (int gpu = 0; gpu < n; ++gpu) {
      if (group_of[gpu] < 0) {
        report.other(source.groups_location, "groups", fmt::format("GPU {} is in no group", gpu),
                     "groups must cover every GPU of the cluster");
      }
    }
  }
}

// Fetch overrides name existing shards and GPUs.
void check_fetch_overrides(const Reporter& report, const Plan& plan, const PlanSource& source,
                           int n) {
  for (std::size_t k = 0; k < plan.fetch_overrides.size(); ++k) {
    const FetchOverride& f = plan.fetch_overrides[k];
    const SourceLocation loc =
        k < source.fetch_locations.size() ? source.fetch_locations[k] : SourceLocation{};
    const std::string key = fmt::format("fetch[{}]", k);
    if (f.shard >= plan.shards.size()) {
      report.other(loc, key, fmt::format("shard {} does not exist", f.shard),
                   "a fetch override names a replica of the plan");
    }
    if (f.requesting_gpu < 0 || f.requesting_gpu >= n) {
      report.other(loc, key, fmt::format("GPU {} does not exist", f.requesting_gpu),
                   "GPU ids are 0 to num_gpus - 1");
    }
  }
}

// The bottom MLP on one GPU (Plan::bottom_mlp_gpu): an existing GPU, a model with a bottom MLP,
// one pooled AlltoAll over all GPUs (its output rides in it).
void check_bottom_mlp(const Reporter& report, const Plan& plan, const SourceLocation& loc,
                      const std::string& key, const DlrmModel& model, int n) {
  const int g = plan.bottom_mlp_gpu;
  if (g == -1) return;
  if (g < 0 || g >= n) {
    report.other(
        loc, key, fmt::format("GPU {} does not exist: the cluster has {} GPUs", g, n),
        fmt::format("GPU ids are 0 to {}; leave the key out for a data-parallel bottom MLP",
                    n - 1));
  }
  if (model.bottom_mlp.empty()) {
    report.other(loc, key, "the model has no bottom MLP to place",
                 "add model.bottom_mlp, or leave this key out");
  }
  if (!plan.groups.empty()) {
    report.other(loc, key,
                 "a bottom MLP on one GPU needs one AlltoAll over all GPUs, but the plan "
                 "has sparse groups",
                 "leave this key out with two_d plans (their bottom MLP is data parallel)");
  }
  if (plan.lookup_comm != LookupComm::pooled) {
    report.other(loc, key,
                 "a bottom MLP on one GPU sends its output in the pooled AlltoAll, "
                 "which a one-sided plan does not run",
                 "use communication: pooled, or leave this key out");
  }
}

}  // namespace

void validate_plan(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                   const PlanSource& source) {
  const Reporter report(source);
  const auto& tables = model.tables;
  const int n = cluster.num_gpus();
  // table -> row block -> column ranges (first replica of each block only), and the shard that
  // first placed each block (for messages).
  std::vector<TableBlocks> blocks(tables.size());
  // Per block (table, rows, columns): its replicas' GPUs, to find a block placed twice on one
  // GPU. A short list while the block has few replicas, a bitmap of the GPUs once it has many
  // (a block copied to every GPU: thousands), never one set entry per shard.
  struct BlockGpus {
    int count = 0;
    std::vector<int> few;
    std::vector<bool> many;
    bool add(int gpu, int num_gpus) {  // false when `gpu` holds the block already
      ++count;
      if (many.empty()) {
        if (std::find(few.begin(), few.end(), gpu) != few.end()) return false;
        few.push_back(gpu);
        if (few.size() > 32) {
          many.assign(static_cast<std::size_t>(num_gpus), false);
          for (int g : few) many[static_cast<std::size_t>(g)] = true;
          few.clear();
        }
        return true;
      }
      if (many[static_cast<std::size_t>(gpu)]) return false;
      many[static_cast<std::size_t>(gpu)] = true;
      return true;
    }
  };
  using BlockKey =
      std::tuple<std::size_t, std::uint64_t, std::uint64_t, std::uint32_t, std::uint32_t>;
  std::map<BlockKey, BlockGpus> replicas;
  // The copies of a block usually follow each other (a block copied to every GPU: thousands of
  // shards in a row): the last block's entry is reused without a search.
  BlockKey last_key;
  BlockGpus* last_block = nullptr;
  std::vector<int> space_of(tables.size(), -1);
  std::vector<std::size_t> first_shard_of(tables.size(), 0);
  for (std::size_t i = 0; i < plan.shards.size(); ++i) {
    const Shard& sh = plan.shards[i];
    check_shard_fields(report, i, sh, tables, n, cluster, plan.lookup_comm);
    const auto& t = tables[sh.table];
    const char* unit = sh.row_space == RowSpace::rank ? "ranks" : "rows";
    const int space = static_cast<int>(sh.row_space);
    if (space_of[sh.table] < 0) {
      space_of[sh.table] = space;
      first_shard_of[sh.table] = i;
    } else if (space_of[sh.table] != space) {
      report.shard(
          i,
          fmt::format("table '{}': this shard counts rows by {} but shard {} counts "
                      "them by {}",
                      t.name, sh.row_space == RowSpace::rank ? "rank" : "row id",
                      first_shard_of[sh.table], sh.row_space == RowSpace::rank ? "row id" : "rank"),
          "all shards of a table use one row space (row_space: rank or row_id)");
    }
    const BlockKey key{sh.table, sh.rows.begin, sh.rows.end, sh.cols.begin, sh.cols.end};
    if (last_block == nullptr || key != last_key) {
      last_block = &replicas[key];
      last_key = key;
    }
    BlockGpus& block = *last_block;
    if (block.count == 0) blocks[sh.table][{sh.rows.begin, sh.rows.end}].emplace_back(sh.cols, i);
    if (!block.add(sh.gpu, n)) {
      report.shard(
          i,
          fmt::format("table '{}': {} [{}, {}) columns [{}, {}) are placed twice on "
                      "GPU {}",
                      t.name, unit, sh.rows.begin, sh.rows.end, sh.cols.begin, sh.cols.end, sh.gpu),
          "replicas of a block must be on different GPUs");
    }
  }
  check_coverage(report, tables, blocks, space_of);
  check_groups(report, plan, source, n);
  check_fetch_overrides(report, plan, source, n);
  check_bottom_mlp(report, plan, source.bottom_mlp_location, source.bottom_mlp_key, model, n);
}

void check_bottom_mlp_gpu(const Plan& plan, const DlrmModel& model, int num_gpus,
                          const SourceLocation& where, const std::string& key) {
  PlanSource source;
  source.name = where.file;
  check_bottom_mlp(Reporter(source), plan, where, key, model, num_gpus);
}

}  // namespace shardsim
