#pragma once
// String checks shared by the tests.
#include <string>
#include <string_view>

namespace shardsim::testing {

// Whether `text` contains `part`.
inline bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace shardsim::testing
