#pragma once
// The process's YamlLoadCheck (core/yaml_reader.hpp) and a stream that reads text in place, so
// that parse_yaml's two passes over a file (events, then nodes) add no copy of its text.
#include <istream>
#include <streambuf>
#include <string_view>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

// A copy of the check set_yaml_load_check installed last (empty: none).
YamlLoadCheck current_yaml_load_check();

// Reads `text` in place (it must outlive the buffer).
class TextViewBuffer final : public std::streambuf {
 public:
  explicit TextViewBuffer(std::string_view text) {
    // The get area is only read: the buffer has no put area and rejects putback of other bytes.
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
  }
};

}  // namespace shardsim
