#include "shardsim/plan/plan_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "shardsim/core/error.hpp"

namespace shardsim {

namespace {
InputError plan_error(const std::string& source, std::string key, std::string problem) {
  return InputError(SourceLocation{source, 0, 0}, std::move(key), std::move(problem),
                    "every row and column of every table must be placed exactly once per replica");
}
}  // namespace

void validate_plan(const Plan& plan, const Cluster& cluster, const DlrmModel& model,
                   const std::string& source) {
  const auto& tables = model.tables;
  // table -> row block -> list of column ranges (replica 0 of each block/columns only).
  std::vector<std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<ColRange>>> blocks(
      tables.size());
  std::vector<std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t, std::uint32_t>, int>>
      replicas(tables.size());
  for (std::size_t i = 0; i < plan.shards.size(); ++i) {
    const Shard& sh = plan.shards[i];
    const std::string key = fmt::format("shards[{}]", i);
    if (sh.table >= tables.size()) {
      throw plan_error(source, key,
                       fmt::format("table index {} is out of range (the model has {} tables)",
                                   sh.table, tables.size()));
    }
    const auto& t = tables[sh.table];
    if (sh.gpu < 0 || sh.gpu >= cluster.num_gpus()) {
      throw plan_error(source, key,
                       fmt::format("table '{}': GPU {} does not exist (the cluster has {} GPUs)",
                                   t.name, sh.gpu, cluster.num_gpus()));
    }
    if (sh.rows.begin >= sh.rows.end || sh.rows.end > t.rows) {
      throw plan_error(source, key,
                       fmt::format("table '{}': rows [{}, {}) are empty or outside [0, {})", t.name,
                                   sh.rows.begin, sh.rows.end, t.rows));
    }
    if (sh.cols.begin >= sh.cols.end || sh.cols.end > t.dim) {
      throw plan_error(source, key,
                       fmt::format("table '{}': columns [{}, {}) are empty or outside [0, {})",
                                   t.name, sh.cols.begin, sh.cols.end, t.dim));
    }
    auto& count = replicas[sh.table][{sh.rows.begin, sh.rows.end, sh.cols.begin, sh.cols.end}];
    if (count++ == 0) blocks[sh.table][{sh.rows.begin, sh.rows.end}].push_back(sh.cols);
  }
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const std::string key = fmt::format("table '{}'", tables[t].name);
    if (blocks[t].empty()) throw plan_error(source, key, "the table is not placed on any GPU");
    std::uint64_t next_row = 0;
    for (auto& [rows, cols] : blocks[t]) {
      if (rows.first != next_row) {
        throw plan_error(source, key,
                         rows.first > next_row
                             ? fmt::format("rows [{}, {}) are not placed", next_row, rows.first)
                             : fmt::format("rows [{}, {}) are placed more than once", rows.first,
                                           std::min(next_row, rows.second)));
      }
      next_row = rows.second;
      std::sort(cols.begin(), cols.end(),
                [](const ColRange& a, const ColRange& b) { return a.begin < b.begin; });
      std::uint32_t next_col = 0;
      for (const ColRange& c : cols) {
        if (c.begin != next_col) {
          throw plan_error(source, key,
                           fmt::format("rows [{}, {}): columns from {} are {}", rows.first,
                                       rows.second, std::min(c.begin, next_col),
                                       c.begin > next_col ? "not placed" : "placed twice"));
        }
        next_col = c.end;
      }
      if (next_col != tables[t].dim) {
        throw plan_error(source, key,
                         fmt::format("rows [{}, {}): columns [{}, {}) are not placed", rows.first,
                                     rows.second, next_col, tables[t].dim));
      }
    }
    if (next_row != tables[t].rows) {
      throw plan_error(source, key,
                       fmt::format("rows [{}, {}) are not placed", next_row, tables[t].rows));
    }
  }
}

}  // namespace shardsim
