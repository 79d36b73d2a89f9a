#include "shardsim/core/embedded_configs.hpp"

namespace shardsim {

std::optional<std::string_view> find_embedded_config(std::string_view path) {
  for (const auto& c : embedded_configs()) {
    if (path == c.path) return std::string_view(c.text);
  }
  return std::nullopt;
}

}  // namespace shardsim
