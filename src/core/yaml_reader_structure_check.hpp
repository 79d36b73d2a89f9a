#pragma once
// The rules every YAML document shardsim reads must follow beyond its syntax, checked on the
// parser's events as parse_yaml reads the text (before any node is built): no key written twice in
// one mapping (yaml-cpp keeps both and lookups see only the first, so the second would be
// silently ignored), and lists and mappings nested at most kMaxYamlNestingDepth levels, aliases
// expanded. It also counts the elements of the lists at the paths it is given (YamlLoadCheck's
// `lists`: e.g. a scenario's `model.tables`), for the resource guard to refuse a document before
// its nodes are built. Each event is then passed on to `next`.
#include <yaml-cpp/eventhandler.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

class YamlStructureCheck final : public YAML::EventHandler {
 public:
  // `counted_lists`: the paths (e.g. "model.tables") whose lists' elements are counted.
  YamlStructureCheck(std::string file, YAML::EventHandler& next,
                     std::vector<std::string> counted_lists = {});

  // The lists at `counted_lists` the document has (written, or an alias of a list), in the order
  // they end.
  const std::vector<YamlDocumentCount::List>& counted() const { return counted_; }

  void OnDocumentStart(const YAML::Mark& mark) override;
  void OnDocumentEnd() override;
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override;
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override;
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override;
  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value style) override;
  void OnSequenceEnd() override;
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value style) override;
  void OnMapEnd() override;

 private:
  struct Frame {
    bool is_map = false;
    bool at_key = true;     // a map's next node is a key
    std::size_t index = 0;  // a list's next element
    std::string path;       // of this node
    std::string key;        // the map's current key
    int height = 1;         // levels of this node's deepest part so far, aliases expanded
    YAML::anchor_t anchor = 0;
    bool counted = false;                              // a list at one of counted_lists_
    YAML::Mark mark;                                   // where the node starts
    std::unordered_map<std::string, YAML::Mark> keys;  // a map's keys so far
  };
  // The path of the node about to start, checking it as a key when the map expects one.
  std::string enter(const YAML::Mark& mark, const std::string* key_text);
  // Marks the node just finished, of `height` levels, in its parent.
  void leave(int height);
  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool is_map);
  void close();
  bool is_counted(const std::string& path) const;

  std::string file_;
  YAML::EventHandler& next_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, int> heights_;          // of anchored nodes
  std::map<YAML::anchor_t, std::string> scalars_;  // anchored scalars, for aliased keys
  std::map<YAML::anchor_t, std::uint64_t> lists_;  // elements of anchored lists
  std::vector<std::string> counted_lists_;
  std::vector<YamlDocumentCount::List> counted_;
};

}  // namespace shardsim
