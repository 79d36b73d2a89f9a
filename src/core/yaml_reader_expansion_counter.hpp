#pragma once
// parse_yaml's count of a document's nodes and scalar bytes, as written and with every alias
// expanded, taken on the parser's events before any node is built.
#include <yaml-cpp/eventhandler.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace shardsim {

// Counts the nodes of the first document as loading and reading it will see them: an alias
// counts as the whole node it names. yaml-cpp shares aliased nodes, but every walk over the
// document (duplicate keys, input hashes, options) expands them, so ten levels of ten aliases
// (a "billion laughs" document) would take hours while its text takes a few hundred bytes.
class ExpansionCounter final : public YAML::EventHandler {
 public:
  std::uint64_t written = 0;         // nodes as written
  std::uint64_t expanded = 0;        // nodes with every alias expanded
  std::uint64_t written_bytes = 0;   // bytes of scalar text as written
  std::uint64_t expanded_bytes = 0;  // bytes of scalar text with every alias expanded
  YAML::Mark worst;                  // the alias that expanded the most

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { leaf(anchor, 1); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    leaf(anchor, value.size());
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = sizes_.find(anchor);
    const Size size = it == sizes_.end() ? Size{1, 0} : it->second;
    if (size.nodes + size.bytes > worst_size_) {
      worst_size_ = size.nodes + size.bytes;
      worst = mark;
    }
    add(size);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Size {
    std::uint64_t nodes = 0;
    std::uint64_t bytes = 0;
  };
  struct Frame {
    YAML::anchor_t anchor;
    Size size;
  };
  static std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a > std::numeric_limits<std::uint64_t>::max() - b
               ? std::numeric_limits<std::uint64_t>::max()
               : a + b;
  }
  void add(Size size) {
    Size& into = stack_.empty() ? total_ : stack_.back().size;
    into.nodes = saturating_add(into.nodes, size.nodes);
    into.bytes = saturating_add(into.bytes, size.bytes);
    expanded = total_.nodes;
    expanded_bytes = total_.bytes;
  }
  void leaf(YAML::anchor_t anchor, std::uint64_t bytes) {
    ++written;
    written_bytes = saturating_add(written_bytes, bytes);
    if (anchor != 0) sizes_[anchor] = Size{1, bytes};
    add(Size{1, bytes});
  }
  void open(YAML::anchor_t anchor) {
    ++written;
    stack_.push_back(Frame{anchor, Size{1, 0}});
  }
  void close() {
    const Frame f = stack_.back();
    stack_.pop_back();
    if (f.anchor != 0) sizes_[f.anchor] = f.size;
    add(f.size);
  }
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Size> sizes_;
  Size total_;
  std::uint64_t worst_size_ = 0;
};

}  // namespace shardsim
