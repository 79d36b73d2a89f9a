#pragma once
// io-private: a small ordered document tree (maps, sequences, strings, integers) with a layout
// per container, and its two emitters, YAML and JSON. A document (a plan file, io/plan_file.hpp)
// is built once as a tree and emitted in either format, so the two cannot drift apart.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <type_traits>
#include <vector>

namespace shardsim::doc {

// How a container is written: `block`, one child a line (YAML indentation, JSON pretty
// printing), or `flow`, on one line (`{a: 1, b: [2, 3]}`, `{"a": 1, "b": [2, 3]}`). JSON also
// writes a sequence on one line when it holds no map at any depth.
enum class Layout { block, flow };

class Node {
 public:
  enum class Kind { string, number, sequence, map };

  static Node string(std::string text);
  template <typename T>
  requires std::is_integral_v<T>
  static Node integer(T value) { return Node(Kind::number, std::to_string(value), Layout::flow); }
  // A finite double, in the shortest decimal form that reads back as the same value.
  static Node real(double value);
  static Node sequence(Layout layout = Layout::flow);
  static Node map(Layout layout = Layout::flow);

  // Appends to a sequence, or an entry to a map (keys keep their order); returns the child.
  Node& add(Node child);
  Node& add(std::string key, Node value);

  Kind kind() const { return kind_; }
  Layout layout() const { return layout_; }
  bool is_container() const { return kind_ == Kind::sequence || kind_ == Kind::map; }
  // A string's text, or a number's decimal digits.
  const std::string& text() const { return text_; }
  const std::vector<std::string>& keys() const { return keys_; }  // a map's, in order
  const std::vector<Node>& children() const { return children_; }

 private:
  Node(Kind kind, std::string text, Layout layout)
      : kind_(kind), text_(std::move(text)), layout_(layout) {}
  Kind kind_;
  std::string text_;
  Layout layout_;
  std::vector<std::string> keys_;
  std::vector<Node> children_;
};

// YAML: strings plain when that reads back as the same string, JSON-quoted otherwise. The root
// is written at the top level (a block map as `key: value` lines), followed by a newline.
void emit_yaml(std::ostream& out, const Node& root);
// JSON: block containers indented by two spaces a level; the root followed by a newline.
void emit_json(std::ostream& out, const Node& root);

}  // namespace shardsim::doc
