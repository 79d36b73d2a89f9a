// The process's YamlLoadCheck (core/yaml_load_check.hpp).
#include "core/yaml_load_check.hpp"

#include <mutex>

namespace shardsim {

namespace {

std::mutex& load_check_mutex() {
  static std::mutex m;
  return m;
}

YamlLoadCheck& installed_load_check() {
  static YamlLoadCheck check;
  return check;
}

}  // namespace

void set_yaml_load_check(YamlLoadCheck check) {
  const std::lock_guard lock(load_check_mutex());
  installed_load_check() = std::move(check);
}

YamlLoadCheck current_yaml_load_check() {
  const std::lock_guard lock(load_check_mutex());
  return installed_load_check();
}

}  // namespace shardsim
