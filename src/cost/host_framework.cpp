// The framework profiles of configs/host/frameworks.yaml.
#include "shardsim/cost/host_framework.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "shardsim/core/did_you_mean.hpp"
#include "shardsim/core/embedded_configs.hpp"
#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

namespace {

constexpr int kMaxCallsPerKind = 100;

int read_calls(const YamlValue& v) {
  const std::uint64_t n = v.as_nonnegative_int();
  if (n > static_cast<std::uint64_t>(kMaxCallsPerKind)) {
    throw v.error(fmt::format("expected at most {} calls, found {}", kMaxCallsPerKind, n),
                  "collective calls the host issues per sharding kind and iteration");
  }
  return static_cast<int>(n);
}

std::vector<HostFramework> parse_frameworks() {
  constexpr std::string_view kPath = "host/frameworks.yaml";
  const auto text = find_embedded_config(kPath);
  if (!text) throw std::logic_error("configs/host/frameworks.yaml was not compiled in");
  const std::string file = "configs/host/frameworks.yaml";
  const YamlValue root(parse_yaml(*text, file), file, "");
  root.expect_map();
  std::vector<HostFramework> out;
  for (const std::string& name : root.keys()) {
    const YamlValue v = root.get(name);
    v.expect_keys({"embedding_ops", "lookup_calls_forward", "lookup_calls_backward",
                   "collectives_return_to_host", "source"});
    HostFramework f;
    f.name = name;
    const std::string ops = v.get("embedding_ops").as_choice({"per_table", "per_group", "one"});
    f.embedding_ops = ops == "per_table"   ? EmbeddingOpGrouping::per_table
                      : ops == "per_group" ? EmbeddingOpGrouping::per_group
                                           : EmbeddingOpGrouping::one;
    f.lookup_calls_forward = read_calls(v.get("lookup_calls_forward"));
    f.lookup_calls_backward = read_calls(v.get("lookup_calls_backward"));
    f.collectives_return_to_host = v.get("collectives_return_to_host").as_bool();
    f.source = v.get("source").as_string();
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

const std::vector<HostFramework>& host_frameworks() {
  static const std::vector<HostFramework> kFrameworks = parse_frameworks();
  return kFrameworks;
}

std::vector<std::string> host_framework_choices() {
  std::vector<std::string> out{"auto"};
  for (const HostFramework& f : host_frameworks()) out.push_back(f.name);
  return out;
}

const HostFramework& host_framework(std::string_view name) {
  for (const HostFramework& f : host_frameworks()) {
    if (f.name == name) return f;
  }
  std::vector<std::string> names;
  for (const HostFramework& f : host_frameworks()) names.push_back(f.name);
  const auto guess = did_you_mean(name, names);
  throw std::invalid_argument(fmt::format("no host framework '{}'{} (known: {})", name,
                                          guess ? fmt::format("; did you mean '{}'?", *guess) : "",
                                          fmt::join(names, ", ")));
}

}  // namespace shardsim
