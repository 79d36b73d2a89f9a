#pragma once
// The YAML files under configs/, compiled into the binary (see cmake/EmbedConfigs.cmake).
#include <optional>
#include <span>
#include <string_view>

namespace shardsim {

struct EmbeddedConfig {
  const char* path;  // relative to configs/, e.g. "hardware/dgx-a100.yaml"
  const char* text;
};

std::span<const EmbeddedConfig> embedded_configs();

// The text of configs/<path>, if it was compiled in.
std::optional<std::string_view> find_embedded_config(std::string_view path);

}  // namespace shardsim
