// The resource guard before a YAML document is loaded (run/resource_loading_estimate.hpp).
#include "shardsim/run/resource_loading_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace shardsim {

namespace {

// ---------------------------------------------------------------- constants (bytes)

// A node of a yaml-cpp tree as yaml-cpp's Load builds it (node, node_ref, node_data with its
// strings, the shared pointers and the document's memory set). Measured: VmRSS before and after
// yaml-cpp's Load of a document held in memory (yaml-cpp 0.7, glibc malloc): 10^6 list items 523 B
// a node, 200,000 block mappings of 4 keys (9 nodes each) 485 B, 300,000 [value, weight] pairs 497
// B.
constexpr double kYamlNodeBytes = 500;
// What a listed table costs once loaded beyond its YAML nodes and text: the EmbeddingTable and its
// name, the loader's index of names (name, place and path of each). Measured on scenarios listing
// 100,000 and 500,000 tables `{name: tN, rows: 1000, dim: 16, pooling: 2}` (9 nodes each): the peak
// RSS of `validate --max-memory 10G` (/usr/bin/time -f %M: 473.6 and 2310.6 MB) grows 4,702 B a
// table, of which yaml-cpp's Load's nodes take 4,359 B (VmRSS around it, as above) and the
// canonical text ~100 B.
constexpr double kListedTableLoadBytes = 250;
// The canonical text of the input hash (core/yaml_reader_hash.cpp), built whole: every scalar with
// aliases expanded and about 2 B of punctuation a node, held twice while a mapping joins its
// entries' texts.
constexpr double kCanonicalPunctuationBytesPerNode = 2;
constexpr double kCanonicalTextCopies = 2;

std::string count_text(double x) {
  if (x < 1e6) return fmt::format("{:.0f}", x);
  return fmt::format("{:.3g}", x);
}

const YamlDocumentCount::List* listed_tables(const YamlDocumentCount& count) {
  const auto it = std::find_if(count.lists.begin(), count.lists.end(),
                               [](const auto& l) { return l.path == kListedTablesPath; });
  return it == count.lists.end() ? nullptr : &*it;
}

}  // namespace

ResourceEstimate loading_estimate(const YamlDocumentCount& count) {
  ResourceEstimate e;
  const auto add = [&e](std::string what, double bytes) {
    if (bytes > 0) e.items.push_back({std::move(what), bytes});
  };
  const double input = static_cast<double>(count.input_bytes);
  add(fmt::format("the text: {} B", count_text(input)), input);
  const double nodes = static_cast<double>(count.written_nodes);
  add(fmt::format("YAML nodes: {} x {} B", count_text(nodes), kYamlNodeBytes),
      nodes * kYamlNodeBytes);
  const double canonical =
      static_cast<double>(count.expanded_bytes) +
      static_cast<double>(count.expanded_nodes) * kCanonicalPunctuationBytesPerNode;
  add(fmt::format("the input hash's canonical text: {} x {} B (aliases expanded)",
                  kCanonicalTextCopies, count_text(canonical)),
      kCanonicalTextCopies * canonical);
  if (const auto* tables = listed_tables(count)) {
    const double t = static_cast<double>(tables->elements);
    add(fmt::format("the listed tables as loaded: {} x {} B", count_text(t), kListedTableLoadBytes),
        t * kListedTableLoadBytes);
  }
  for (const MemoryItem& i : e.items) e.total_bytes += i.bytes;
  sort_largest_first(e.items);
  return e;
}

void check_loading(const YamlDocumentCount& count, const MemoryLimit& limit,
                   const std::string& file) {
  if (limit.bytes <= 0) return;
  const ResourceEstimate e = loading_estimate(count);
  if (e.total_bytes <= limit.bytes) return;
  const std::string over =
      fmt::format("more than the limit of {} ({})", human_bytes(limit.bytes), limit.origin);
  const std::string raise =
      fmt::format("raise the limit with --max-memory (e.g. --max-memory {:.0f}G)",
                  std::ceil(e.total_bytes * 1.25 / 1073741824.0));
  if (!count.events_counted) {
    throw InputError(SourceLocation{file}, "--max-memory",
                     fmt::format("the file holds {} of text: loading it needs at least that, {}",
                                 human_bytes(e.total_bytes), over),
                     "check that this is the file meant, or " + raise);
  }
  std::string terms;
  for (std::size_t i = 0; i < e.items.size() && i < 3; ++i) {
    terms += fmt::format("; {}: {}", e.items[i].what, human_bytes(e.items[i].bytes));
  }
  if (const auto* tables = listed_tables(count)) {
    throw InputError(
        tables->where, tables->path,
        fmt::format("lists {} tables: loading the scenario would need about {} of memory, {}{}",
                    tables->elements, human_bytes(e.total_bytes), over, terms),
        "draw many tables with model.generate (no YAML node per table), or " + raise);
  }
  throw InputError(SourceLocation{file}, "--max-memory",
                   fmt::format("loading the document would need about {} of memory, {}{}",
                               human_bytes(e.total_bytes), over, terms),
                   "write a smaller document, or " + raise);
}

void guard_yaml_loading(const MemoryLimit& limit) {
  if (limit.bytes <= 0) {
    set_yaml_load_check({});
    return;
  }
  set_yaml_load_check(YamlLoadCheck{
      {kListedTablesPath}, [limit](const YamlDocumentCount& count, const std::string& file) {
        check_loading(count, limit, file);
      }});
}

}  // namespace shardsim
