#include "shardsim/core/json_duplicate_keys.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <memory>
#include <unordered_set>
#include <utility>
#include <vector>

#include "shardsim/core/error.hpp"

namespace shardsim {

namespace {

using Json = nlohmann::json;
using Event = Json::parse_event_t;

// The containers open at each depth: nlohmann reports an object's keys, and the elements of an
// array, at the depth one above the container's own start event.
struct OpenContainer {
  bool is_array = false;
  std::size_t next_index = 0;  // an array's elements reported so far
  std::string path;
  std::string key;  // an object's current key
  std::unordered_set<std::string> keys;
};

class DuplicateKeyTracker {
 public:
  explicit DuplicateKeyTracker(std::string file) : file_(std::move(file)) {}

  void on_event(int depth, Event event, const Json& parsed) {
    const auto d = static_cast<std::size_t>(depth);
    switch (event) {
      case Event::object_start:
      case Event::array_start: {
        std::string path = element_path(d);
        if (open_.size() < d + 2) open_.resize(d + 2);
        open_[d + 1] = OpenContainer{event == Event::array_start, 0, std::move(path), {}, {}};
        break;
      }
      case Event::key:
        if (d < open_.size()) add_key(open_[d], parsed.get<std::string>());
        break;
      case Event::value:
        (void)element_path(d);
        break;
      case Event::object_end:
      case Event::array_end:
        break;
    }
  }

 private:
  // The path of an element starting at depth `d`; counts it when its container is an array.
  std::string element_path(std::size_t d) {
    if (d == 0 || d >= open_.size()) return {};
    OpenContainer& c = open_[d];
    if (c.is_array) return fmt::format("{}[{}]", c.path, c.next_index++);
    return c.path.empty() ? c.key : c.path + "." + c.key;
  }

  void add_key(OpenContainer& c, std::string key) {
    c.key = key;
    if (c.keys.insert(std::move(key)).second) return;
    throw InputError(SourceLocation{file_}, c.path.empty() ? c.key : c.path + "." + c.key,
                     "this key is written twice in the same object",
                     "remove one of them: a JSON reader keeps only one, and which depends on it");
  }

  std::string file_;
  std::vector<OpenContainer> open_;
};

}  // namespace

Json::parser_callback_t refusing_duplicate_keys(std::string file, Json::parser_callback_t inner) {
  auto tracker = std::make_shared<DuplicateKeyTracker>(std::move(file));
  return [tracker, inner = std::move(inner)](int depth, Event event, Json& parsed) {
    tracker->on_event(depth, event, parsed);
    return inner ? inner(depth, event, parsed) : true;
  };
}

}  // namespace shardsim
