// Writing plan files (io/plan_file.hpp): the plan as one document tree (doc_tree.hpp), emitted
// as YAML or as JSON.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <ostream>
#include <tuple>

#include "io/doc_tree.hpp"
#include "io/plan_file_entries.hpp"
#include "shardsim/io/plan_file.hpp"

namespace shardsim {

namespace {

using doc::Layout;
using doc::Node;
using plan_file::Entry;
using plan_file::inferred_kind;

constexpr const char* kYamlHeader =
    "# A shardsim plan (docs/planners.md, \"Plan files\"). Edit it freely and simulate it\n"
    "# with `placement: {file: <this file>}`; it is validated when read. Each shard:\n"
    "# rows: [begin, end) of row ids (or ranks: popularity ranks), cols: [begin, end),\n"
    "# gpu: id, or gpus: [ids] for replicas; a missing rows/cols means the whole table;\n"
    "# storage: uvm or {kind: uvm_caching, cache_fraction, policy} for a shard in host memory.\n";

std::vector<std::vector<Entry>> entries_by_table(const Plan& plan, const DlrmModel& model) {
  std::vector<std::vector<Entry>> out(model.tables.size());
  using Key =
      std::tuple<std::uint64_t, std::uint64_t, int, std::uint32_t, std::uint32_t, int, double, int>;
  std::vector<std::map<Key, std::size_t>> index(model.tables.size());
  for (const Shard& s : plan.shards) {
    auto& entries = out.at(s.table);
    const Key key{s.rows.begin,
                  s.rows.end,
                  static_cast<int>(s.row_space),
                  s.cols.begin,
                  s.cols.end,
                  static_cast<int>(s.storage.kind),
                  s.storage.cache_fraction,
                  static_cast<int>(s.storage.policy)};
    auto [it, inserted] = index[s.table].try_emplace(key, entries.size());
    if (inserted) entries.push_back(Entry{s.rows, s.row_space, s.cols, {}, s.kind, s.storage});
    entries[it->second].replicas.emplace_back(s.replica, s.gpu);
  }
  for (auto& entries : out) {
    for (Entry& e : entries) std::stable_sort(e.replicas.begin(), e.replicas.end());
  }
  return out;
}

template <typename T>
Node range(T begin, T end) {
  Node r = Node::sequence();
  r.add(Node::integer(begin));
  r.add(Node::integer(end));
  return r;
}

// `ranks` or `rows` (unless the whole table) and `cols` (unless all of them) of a block.
void add_block(Node& fields, const RowRange& rows, RowSpace space, const ColRange& cols,
               const EmbeddingTable& t) {
  if (space == RowSpace::rank) {
    fields.add("ranks", range(rows.begin, rows.end));
  } else if (rows.begin != 0 || rows.end != t.rows) {
    fields.add("rows", range(rows.begin, rows.end));
  }
  if (cols.begin != 0 || cols.end != t.dim) fields.add("cols", range(cols.begin, cols.end));
}

Node entry_node(const Entry& e, const EmbeddingTable& t) {
  Node f = Node::map();
  add_block(f, e.rows, e.space, e.cols, t);
  if (e.replicas.size() == 1) {
    f.add("gpu", Node::integer(e.replicas.front().second));
  } else {
    Node& gpus = f.add("gpus", Node::sequence());
    for (const auto& [replica, gpu] : e.replicas) gpus.add(Node::integer(gpu));
  }
  if (e.kind != inferred_kind(e, t)) f.add("kind", Node::string(to_string(e.kind)));
  if (e.storage.kind == StorageKind::uvm) {
    f.add("storage", Node::string("uvm"));
  } else if (e.storage.kind == StorageKind::uvm_caching) {
    Node& st = f.add("storage", Node::map());
    st.add("kind", Node::string("uvm_caching"));
    st.add("cache_fraction", Node::real(e.storage.cache_fraction));
    st.add("policy", Node::string(to_string(e.storage.policy)));
  }
  return f;
}

Node fetch_node(const Plan& plan, const FetchOverride& o, const DlrmModel& model) {
  const Shard& s = plan.shards.at(o.shard);
  const EmbeddingTable& t = model.tables.at(s.table);
  Node f = Node::map();
  f.add("table", Node::string(t.name));
  add_block(f, s.rows, s.row_space, s.cols, t);
  f.add("requester", Node::integer(o.requesting_gpu));
  f.add("server", Node::integer(s.gpu));
  return f;
}

// The plan as a document: scalars first, then tables (in model order), groups and fetch.
Node plan_tree(const Plan& plan, const DlrmModel& model, const Cluster& cluster,
               const PlanFileInfo& info) {
  Node root = Node::map(Layout::block);
  root.add("format", Node::string(kPlanFormatTag));
  root.add("planner", Node::string(plan.planner.empty() ? "unknown" : plan.planner));
  if (!info.scenario.empty()) root.add("scenario", Node::string(info.scenario));
  root.add("num_gpus", Node::integer(cluster.num_gpus()));
  // Written only when not the default, so plans of the pooled planners read as before.
  if (plan.lookup_comm != LookupComm::pooled) {
    root.add("communication", Node::string(to_string(plan.lookup_comm)));
  }
  if (plan.replica_sync != ReplicaSync::dense) {
    root.add("replica_sync", Node::string(to_string(plan.replica_sync)));
  }
  if (plan.bottom_mlp_gpu >= 0) root.add("bottom_mlp_gpu", Node::integer(plan.bottom_mlp_gpu));
  const auto entries = entries_by_table(plan, model);
  Node& tables = root.add("tables", Node::map(Layout::block));
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    Node& list = tables.add(model.tables[t].name,
                            Node::sequence(entries[t].empty() ? Layout::flow : Layout::block));
    for (const Entry& e : entries[t]) list.add(entry_node(e, model.tables[t]));
  }
  if (!plan.groups.empty()) {
    Node& groups = root.add("groups", Node::sequence(Layout::block));
    for (const auto& g : plan.groups) {
      Node& members = groups.add(Node::sequence());
      for (int gpu : g) members.add(Node::integer(gpu));
    }
    Node& sync = root.add("sync", Node::map());
    sync.add("mode", Node::string(to_string(plan.peer_sync.mode)));
    sync.add("interval", Node::integer(plan.peer_sync.interval));
  }
  if (!plan.fetch_overrides.empty()) {
    Node& fetch = root.add("fetch", Node::sequence(Layout::block));
    for (const FetchOverride& o : plan.fetch_overrides) fetch.add(fetch_node(plan, o, model));
  }
  return root;
}

}  // namespace

PlanFormat plan_format_for_path(const std::string& path) {
  std::string lower = path;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.size() >= 5 && lower.compare(lower.size() - 5, 5, ".json") == 0 ? PlanFormat::json
                                                                               : PlanFormat::yaml;
}

void write_plan(std::ostream& out, const Plan& plan, const DlrmModel& model, const Cluster& cluster,
                PlanFormat format, const PlanFileInfo& info) {
  const Node tree = plan_tree(plan, model, cluster, info);
  if (format == PlanFormat::yaml) {
    out << kYamlHeader;
    doc::emit_yaml(out, tree);
  } else {
    doc::emit_json(out, tree);
  }
}

}  // namespace shardsim
