#include "core/yaml_reader_structure_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "shardsim/core/error.hpp"
#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

namespace {

SourceLocation location_at(const std::string& file, const YAML::Mark& mark) {
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

// Named by its top-level key only: the full path of a node 100 levels down is 100 steps long, and
// the line and column say where it is.
InputError too_deep(const std::string& file, const YAML::Mark& mark, const std::string& path,
                    std::size_t depth) {
  const std::string top = path.substr(0, path.find_first_of(".["));
  return InputError(location_at(file, mark), top,
                    fmt::format("lists and mappings nest {} levels deep here, more than the {} "
                                "levels a document may nest (aliases expanded)",
                                depth, kMaxYamlNestingDepth),
                    "shardsim's inputs nest a few levels: close the brackets or outdent; "
                    "`*name` nests the whole node anchored `&name` where it is written");
}

}  // namespace

YamlStructureCheck::YamlStructureCheck(std::string file, YAML::EventHandler& next,
                                       std::vector<std::string> counted_lists)
    : file_(std::move(file)), next_(next), counted_lists_(std::move(counted_lists)) {}

bool YamlStructureCheck::is_counted(const std::string& path) const {
  return std::find(counted_lists_.begin(), counted_lists_.end(), path) != counted_lists_.end();
}

std::string YamlStructureCheck::enter(const YAML::Mark& mark, const std::string* key_text) {
  if (stack_.empty()) return {};
  Frame& top = stack_.back();
  if (!top.is_map) return fmt::format("{}[{}]", top.path, top.index);
  if (!top.at_key) return child_path(top.path, top.key);
  top.key = key_text ? *key_text : "?";
  const std::string path = child_path(top.path, top.key);
  if (key_text) {
    const auto [it, inserted] = top.keys.emplace(*key_text, mark);
    if (!inserted) {
      throw InputError(location_at(file_, mark), path,
                       "this key is written twice in the same mapping",
                       fmt::format("remove one of them (the first is at {})",
                                   location_at(file_, it->second).to_string()));
    }
  }
  return path;
}

void YamlStructureCheck::leave(int height) {
  if (stack_.empty()) return;
  Frame& top = stack_.back();
  top.height = std::max(top.height, 1 + height);
  if (top.is_map) {
    top.at_key = !top.at_key;
  } else {
    ++top.index;
  }
}

void YamlStructureCheck::open(const YAML::Mark& mark, YAML::anchor_t anchor, bool is_map) {
  std::string path = enter(mark, nullptr);
  if (stack_.size() + 1 > kMaxYamlNestingDepth) {
    throw too_deep(file_, mark, path, stack_.size() + 1);
  }
  Frame f;
  f.is_map = is_map;
  f.path = std::move(path);
  f.anchor = anchor;
  f.mark = mark;
  f.counted = !is_map && is_counted(f.path);
  stack_.push_back(std::move(f));
}

void YamlStructureCheck::close() {
  Frame& f = stack_.back();
  if (f.counted) counted_.push_back({f.path, f.index, location_at(file_, f.mark)});
  if (f.anchor != 0 && !f.is_map) lists_[f.anchor] = f.index;
  const int height = f.height;
  const YAML::anchor_t anchor = f.anchor;
  stack_.pop_back();
  if (anchor != 0) heights_[anchor] = height;
  leave(height);
}

void YamlStructureCheck::OnDocumentStart(const YAML::Mark& mark) {
  next_.OnDocumentStart(mark);
}

void YamlStructureCheck::OnDocumentEnd() {
  next_.OnDocumentEnd();
}

void YamlStructureCheck::OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) {
  static const std::string kNull = "~";
  enter(mark, &kNull);
  if (anchor != 0) {
    heights_[anchor] = 0;
    scalars_[anchor] = kNull;
  }
  leave(0);
  next_.OnNull(mark, anchor);
}

void YamlStructureCheck::OnScalar(const YAML::Mark& mark, const std::string& tag,
                                  YAML::anchor_t anchor, const std::string& value) {
  enter(mark, &value);
  if (anchor != 0) {
    heights_[anchor] = 0;
    scalars_[anchor] = value;
  }
  leave(0);
  next_.OnScalar(mark, tag, anchor, value);
}

void YamlStructureCheck::OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) {
  const auto scalar = scalars_.find(anchor);
  const std::string path = enter(mark, scalar == scalars_.end() ? nullptr : &scalar->second);
  const auto h = heights_.find(anchor);
  const int height = h == heights_.end() ? 0 : h->second;
  const std::size_t depth = stack_.size() + static_cast<std::size_t>(height);
  if (depth > kMaxYamlNestingDepth) throw too_deep(file_, mark, path, depth);
  // `tables: *all`: the list anchored `&all` is loaded again here.
  if (const auto list = lists_.find(anchor); list != lists_.end() && is_counted(path)) {
    counted_.push_back({path, list->second, location_at(file_, mark)});
  }
  leave(height);
  next_.OnAlias(mark, anchor);
}

void YamlStructureCheck::OnSequenceStart(const YAML::Mark& mark, const std::string& tag,
                                         YAML::anchor_t anchor, YAML::EmitterStyle::value style) {
  open(mark, anchor, false);
  next_.OnSequenceStart(mark, tag, anchor, style);
}

void YamlStructureCheck::OnSequenceEnd() {
  close();
  next_.OnSequenceEnd();
}

void YamlStructureCheck::OnMapStart(const YAML::Mark& mark, const std::string& tag,
                                    YAML::anchor_t anchor, YAML::EmitterStyle::value style) {
  open(mark, anchor, true);
  next_.OnMapStart(mark, tag, anchor, style);
}

void YamlStructureCheck::OnMapEnd() {
  close();
  next_.OnMapEnd();
}

}  // namespace shardsim
