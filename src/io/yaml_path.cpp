#include "io/yaml_path.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <mutex>

namespace shardsim {

bool is_path_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

namespace {

const char* kind_of(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "empty";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return "a scalar";
}

// Held while a new document is built from nodes of another. yaml-cpp keeps a document's nodes
// in a memory pool shared by every node of it; inserting a node of one document into another
// merges their pools, which writes to the pool handle of the input too (memory_holder::merge).
// Two threads deriving documents from one input (`size` probing presets at once, MPI worker
// slots) would race on that handle; reading documents only never touches it.
std::mutex& shared_node_mutex() {
  static std::mutex m;
  return m;
}

// A fresh node parsed from `text` ("{}", "[]" or a plain key) whose source position is `mark`:
// yaml-cpp offers no way to set a node's position except parsing, so the text is parsed after
// `mark.line` newlines and `mark.column` spaces. Without a usable mark, a node with none.
YAML::Node fresh_node_at(const std::optional<YAML::Mark>& mark, YAML::NodeType::value type,
                         std::string_view text) {
  if (!mark || mark->is_null() || mark->line < 0 || mark->column < 0) {
    return type == YAML::NodeType::Scalar ? YAML::Node(std::string(text)) : YAML::Node(type);
  }
  std::string padded(static_cast<std::size_t>(mark->line), '\n');
  padded.append(static_cast<std::size_t>(mark->column), ' ');
  padded.append(text);
  YAML::Node n = YAML::Load(padded);
  if (type == YAML::NodeType::Scalar && (!n.IsScalar() || n.Scalar() != text)) {
    return YAML::Node(std::string(text));  // a key that YAML would read differently, e.g. "-"
  }
  return n;
}

std::optional<YAML::Mark> mark_of(const YAML::Node& n) {
  if (!n.IsDefined()) return std::nullopt;
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return std::nullopt;
  return m;
}

struct SetContext {
  const std::vector<PathStep>& all;
  const YAML::Node& value;
  const std::optional<YAML::Mark>& new_node_mark;
  const SourceLocation& where;
  const std::string& key;
  YamlArena* arena;
};

// A new node that will hold nodes of the input: in the arena's pool when there is one.
YAML::Node joined(YAML::Node node, YamlArena* arena) {
  if (arena) arena->adopt(node);
  return node;
}

YAML::Node set_rec(const YAML::Node& node, std::size_t depth, const SetContext& ctx) {
  if (depth == ctx.all.size()) return ctx.value;
  const PathStep& step = ctx.all[depth];
  const std::string prefix = path_to_string(ctx.all, depth);
  if (step.is_index) {
    if (!node.IsDefined() || !node.IsSequence()) {
      throw InputError(ctx.where, ctx.key,
                       fmt::format("cannot index '{}' with [{}]: it is {}, not a list", prefix,
                                   step.index, kind_of(node)),
                       "indices apply to lists only, e.g. model.tables[0].rows");
    }
    if (step.index >= node.size()) {
      throw InputError(ctx.where, ctx.key,
                       fmt::format("index [{}] is past the end of '{}', which has {} element{}",
                                   step.index, prefix, node.size(), node.size() == 1 ? "" : "s"),
                       node.size() == 0
                           ? std::string("the list is empty")
                           : fmt::format("valid indices are 0 to {}", node.size() - 1));
    }
    YAML::Node copy =
        joined(fresh_node_at(mark_of(node), YAML::NodeType::Sequence, "[]"), ctx.arena);
    std::size_t i = 0;
    for (auto it = node.begin(); it != node.end(); ++it, ++i) {
      const YAML::Node element = *it;
      copy.push_back(i == step.index ? set_rec(element, depth + 1, ctx) : element);
    }
    return copy;
  }
  const bool empty = !node.IsDefined() || node.IsNull();
  if (!empty && !node.IsMap()) {
    throw InputError(
        ctx.where, ctx.key,
        fmt::format("cannot set key '{}' under '{}': it is {}, not a mapping", step.key,
                    prefix.empty() ? "the top level" : prefix, kind_of(node)),
        "check the dotted key against the scenario reference (docs/scenario.md)");
  }
  const std::optional<YAML::Mark> here = empty ? ctx.new_node_mark : mark_of(node);
  YAML::Node copy = joined(fresh_node_at(here, YAML::NodeType::Map, "{}"), ctx.arena);
  bool found = false;
  if (!empty) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!found && it->first.IsScalar() && it->first.Scalar() == step.key) {
        copy.force_insert(it->first, set_rec(it->second, depth + 1, ctx));
        found = true;
      } else {
        copy.force_insert(it->first, it->second);
      }
    }
  }
  if (!found) {
    copy.force_insert(
        joined(fresh_node_at(ctx.new_node_mark, YAML::NodeType::Scalar, step.key), ctx.arena),
        set_rec(YAML::Node(), depth + 1, ctx));
  }
  return copy;
}

}  // namespace

std::vector<PathStep> parse_yaml_path(std::string_view text, const SourceLocation& where,
                                      const std::string& key) {
  const auto fail = [&](const std::string& problem) {
    return InputError(where, key, fmt::format("bad key path '{}': {}", text, problem),
                      "write keys as dotted.names with list indices in brackets, e.g. "
                      "model.tables[0].rows");
  };
  std::vector<PathStep> steps;
  std::size_t i = 0;
  if (text.empty()) throw fail("it is empty");
  while (i < text.size()) {
    // A key.
    const std::size_t start = i;
    while (i < text.size() && is_path_key_char(text[i])) ++i;
    if (i == start) {
      throw fail(i < text.size() ? fmt::format("unexpected '{}' at position {}", text[i], i + 1)
                                 : std::string("it ends with '.'"));
    }
    steps.push_back(PathStep{false, std::string(text.substr(start, i - start)), 0});
    // Any number of [index].
    while (i < text.size() && text[i] == '[') {
      const std::size_t close = text.find(']', i);
      if (close == std::string_view::npos) throw fail("'[' without a matching ']'");
      const std::string_view digits = text.substr(i + 1, close - i - 1);
      std::size_t index = 0;
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size()) {
        throw fail(fmt::format("'[{}]' is not a list index (a non-negative integer)", digits));
      }
      steps.push_back(PathStep{true, {}, index});
      i = close + 1;
    }
    if (i == text.size()) break;
    if (text[i] != '.') throw fail(fmt::format("unexpected '{}' at position {}", text[i], i + 1));
    ++i;
    if (i == text.size()) throw fail("it ends with '.'");
  }
  return steps;
}

std::string path_to_string(const std::vector<PathStep>& steps, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count && i < steps.size(); ++i) {
    if (steps[i].is_index) {
      out += fmt::format("[{}]", steps[i].index);
    } else {
      if (!out.empty()) out += '.';
      out += steps[i].key;
    }
  }
  return out;
}

YAML::Node set_at_path(const YAML::Node& root, const std::vector<PathStep>& steps,
                       const YAML::Node& value, const std::optional<YAML::Mark>& new_node_mark,
                       const SourceLocation& where, const std::string& key, YamlArena* arena) {
  const std::lock_guard lock(shared_node_mutex());
  const SetContext ctx{steps, value, new_node_mark, where, key, arena};
  return set_rec(root, 0, ctx);
}

YAML::Node without_key(const YAML::Node& map, std::string_view key, YamlArena* arena) {
  if (!map.IsDefined() || !map.IsMap()) return map;
  const std::lock_guard lock(shared_node_mutex());
  YAML::Node copy = joined(fresh_node_at(mark_of(map), YAML::NodeType::Map, "{}"), arena);
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) continue;
    copy.force_insert(it->first, it->second);
  }
  return copy;
}

YAML::Node without_marks(const YAML::Node& node) {
  if (!node.IsDefined()) return YAML::Node();
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return YAML::Node(node.Scalar());
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (auto it = node.begin(); it != node.end(); ++it) out.push_back(without_marks(*it));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (auto it = node.begin(); it != node.end(); ++it) {
        out.force_insert(without_marks(it->first), without_marks(it->second));
      }
      return out;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}

std::string render_yaml_value(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "null";
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

}  // namespace shardsim
