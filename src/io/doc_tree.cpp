// The document tree and its YAML and JSON emitters (doc_tree.hpp).
#include "io/doc_tree.hpp"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

namespace shardsim::doc {

Node Node::string(std::string text) {
  return Node(Kind::string, std::move(text), Layout::flow);
}

Node Node::real(double value) {
  return Node(Kind::number, fmt::format("{}", value), Layout::flow);
}

Node Node::sequence(Layout layout) {
  return Node(Kind::sequence, {}, layout);
}

Node Node::map(Layout layout) {
  return Node(Kind::map, {}, layout);
}

Node& Node::add(Node child) {
  if (kind_ != Kind::sequence) throw std::logic_error("doc::Node::add: not a sequence");
  children_.push_back(std::move(child));
  return children_.back();
}

Node& Node::add(std::string key, Node value) {
  if (kind_ != Kind::map) throw std::logic_error("doc::Node::add: not a map");
  keys_.push_back(std::move(key));
  children_.push_back(std::move(value));
  return children_.back();
}

namespace {

std::string indent(int n) {
  return std::string(static_cast<std::size_t>(n), ' ');
}

// A string as JSON writes it (double-quoted, escaped); valid YAML too.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump();
}

// ---------------------------------------------------------------- YAML

// Whether `s` can be written unquoted and reads back as the same string (not a number, a
// boolean or null).
bool plain_yaml_scalar(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) {
      return false;
    }
  }
  std::string lower = s;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word :
       {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf", "infinity"}) {
    if (lower == word) return false;
  }
  return true;
}

std::string yaml_string(const std::string& s) {
  return plain_yaml_scalar(s) ? s : quoted(s);
}

bool yaml_block(const Node& n) {
  return n.is_container() && n.layout() == Layout::block;
}

// A scalar, or a container in flow style.
void yaml_flow(std::ostream& out, const Node& n) {
  switch (n.kind()) {
    case Node::Kind::string:
      out << yaml_string(n.text());
      return;
    case Node::Kind::number:
      out << n.text();
      return;
    case Node::Kind::sequence:
    case Node::Kind::map: {
      const bool map = n.kind() == Node::Kind::map;
      out << (map ? "{" : "[");
      for (std::size_t i = 0; i < n.children().size(); ++i) {
        if (i) out << ", ";
        if (map) out << yaml_string(n.keys()[i]) << ": ";
        yaml_flow(out, n.children()[i]);
      }
      out << (map ? "}" : "]");
      return;
    }
  }
}

// The children of a block container, one a line at `depth` spaces.
void yaml_block_children(std::ostream& out, const Node& n, int depth) {
  const bool map = n.kind() == Node::Kind::map;
  for (std::size_t i = 0; i < n.children().size(); ++i) {
    const Node& child = n.children()[i];
    out << indent(depth) << (map ? yaml_string(n.keys()[i]) + ":" : std::string("-"));
    if (yaml_block(child)) {
      out << "\n";
      yaml_block_children(out, child, depth + 2);
    } else {
      out << " ";
      yaml_flow(out, child);
      out << "\n";
    }
  }
}

// ---------------------------------------------------------------- JSON

bool holds_map(const Node& n) {
  for (const Node& c : n.children()) {
    if (c.kind() == Node::Kind::map || holds_map(c)) return true;
  }
  return false;
}

void json_value(std::ostream& out, const Node& n, int depth) {
  switch (n.kind()) {
    case Node::Kind::string:
      out << quoted(n.text());
      return;
    case Node::Kind::number:
      out << n.text();
      return;
    case Node::Kind::sequence:
    case Node::Kind::map:
      break;
  }
  const bool map = n.kind() == Node::Kind::map;
  const bool one_line =
      n.layout() == Layout::flow || (n.kind() == Node::Kind::sequence && !holds_map(n));
  out << (map ? "{" : "[");
  for (std::size_t i = 0; i < n.children().size(); ++i) {
    if (one_line) {
      if (i) out << ", ";
    } else {
      out << (i ? ",\n" : "\n") << indent(depth + 2);
    }
    if (map) out << quoted(n.keys()[i]) << ": ";
    json_value(out, n.children()[i], depth + 2);
  }
  if (!one_line && !n.children().empty()) out << "\n" << indent(depth);
  out << (map ? "}" : "]");
}

}  // namespace

void emit_yaml(std::ostream& out, const Node& root) {
  if (yaml_block(root)) {
    yaml_block_children(out, root, 0);
  } else {
    yaml_flow(out, root);
    out << "\n";
  }
}

void emit_json(std::ostream& out, const Node& root) {
  json_value(out, root, 0);
  out << "\n";
}

}  // namespace shardsim::doc
