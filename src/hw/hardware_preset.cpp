// Hardware presets: YAML schema (documented at the top of configs/hardware/dgx-a100.yaml and in
// docs/hardware.md) -> HardwarePreset in SI units, built-in presets, overrides, validation.
#include "shardsim/hw/hardware_preset.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "hw/preset_checks.hpp"
#include "shardsim/core/embedded_configs.hpp"
#include "shardsim/core/units.hpp"

namespace shardsim {
namespace {

// Counts read from a preset are bounded so that products (GPUs = nodes x GPUs per node, ...)
// stay far from int overflow; the limits are far above any real machine.
constexpr std::int64_t kMaxGpusPerNode = 4096;
constexpr std::int64_t kMaxNicsPerNode = 4096;
constexpr std::int64_t kMaxDomainNodes = 65536;
constexpr std::int64_t kMaxFanout = 1 << 20;

constexpr std::string_view kPresetPrefix = "hardware/";
constexpr std::string_view kPresetSuffix = ".yaml";

int read_count(const YamlValue& v, std::int64_t max_value) {
  const std::uint64_t n = v.as_positive_int();
  if (n > static_cast<std::uint64_t>(max_value)) {
    throw v.error(fmt::format("{} is too large (at most {})", n, max_value),
                  "check the unit and the number of digits");
  }
  return static_cast<int>(n);
}

// Calls `apply` with the value of `key` when present; a missing key is an error only when
// `required` (a preset file needs every key; overrides give any subset).
template <class Apply>
void field(const YamlValue& map, std::string_view key, bool required, Apply&& apply) {
  if (auto v = map.find(key)) {
    apply(*v);
  } else if (required) {
    (void)map.get(key);  // throws "missing required key" naming the key and the map's line
  }
}

void read_gpu(GpuSpec& gpu, const YamlValue& node, bool required) {
  node.expect_keys({"name",
                    "hbm_capacity_GiB",
                    "hbm_peak_GBps",
                    "hbm_achievable_GBps",
                    "peak_fp32_TFLOPps",
                    "peak_tf32_TFLOPps",
                    "peak_fp16_TFLOPps",
                    "peak_bf16_TFLOPps",
                    "mlp_efficiency",
                    "mlp_efficiency_fp32",
                    "mlp_efficiency_tf32",
                    "mlp_efficiency_fp16",
                    "mlp_efficiency_bf16",
                    "mlp_batch_half",
                    "mlp_batch_half_fp32",
                    "mlp_batch_half_tf32",
                    "mlp_batch_half_fp16",
                    "mlp_batch_half_bf16",
                    "mlp_width_half",
                    "mlp_width_half_fp32",
                    "mlp_width_half_tf32",
                    "mlp_width_half_fp16",
                    "mlp_width_half_bf16",
                    "kernel_launch_us",
                    "l2_MiB"});
  field(node, "name", required, [&](const YamlValue& v) { gpu.name = v.as_string(); });
  field(node, "hbm_capacity_GiB", required,
        [&](const YamlValue& v) { gpu.hbm_capacity_bytes = v.as_positive_double() * units::GiB; });
  field(node, "hbm_peak_GBps", required,
        [&](const YamlValue& v) { gpu.hbm_peak_Bps = v.as_positive_double() * units::GB; });
  field(node, "hbm_achievable_GBps", required,
        [&](const YamlValue& v) { gpu.hbm_achievable_Bps = v.as_positive_double() * units::GB; });
  field(node, "peak_fp32_TFLOPps", required,
        [&](const YamlValue& v) { gpu.peak_fp32_flops = v.as_positive_double() * units::TFLOPS; });
  field(node, "peak_tf32_TFLOPps", required, [&](const YamlValue& v) {
    gpu.peak_tf32_flops = v.as_nonnegative_double() * units::TFLOPS;
  });
  field(node, "peak_fp16_TFLOPps", required, [&](const YamlValue& v) {
    gpu.peak_fp16_flops = v.as_nonnegative_double() * units::TFLOPS;
  });
  field(node, "peak_bf16_TFLOPps", required, [&](const YamlValue& v) {
    gpu.peak_bf16_flops = v.as_nonnegative_double() * units::TFLOPS;
  });
  field(node, "mlp_efficiency", required,
        [&](const YamlValue& v) { gpu.mlp_efficiency = v.as_positive_double(); });
  // Optional in every preset: a precision without its own figure uses mlp_efficiency.
  for (const auto& [key, member] : kMlpEfficiencyKeys) {
    double* slot = &(gpu.*member);  // a named pointer: clang < 16 cannot capture a binding
    field(node, key, false, [slot](const YamlValue& v) { *slot = v.as_positive_double(); });
  }
  field(node, "mlp_batch_half", false,
        [&](const YamlValue& v) { gpu.mlp_batch_half = v.as_nonnegative_double(); });
  field(node, "mlp_width_half", false,
        [&](const YamlValue& v) { gpu.mlp_width_half = v.as_nonnegative_double(); });
  for (const MlpHalfKey& k : kMlpHalfKeys) {
    double* slot = &(gpu.*k.member);
    field(node, k.key, false, [slot](const YamlValue& v) { *slot = v.as_positive_double(); });
  }
  field(node, "kernel_launch_us", required,
        [&](const YamlValue& v) { gpu.kernel_launch_s = v.as_nonnegative_double() * units::us; });
  field(node, "l2_MiB", required,
        [&](const YamlValue& v) { gpu.l2_bytes = v.as_nonnegative_double() * units::MiB; });
}

// A link's two keys; the caller checks the map's keys (`nic` has one more).
void read_link(LinkSpec& link, const YamlValue& node, bool required, std::string_view bw_key,
               double bw_unit_Bps) {
  field(node, bw_key, required,
        [&](const YamlValue& v) { link.bandwidth_Bps = v.as_positive_double() * bw_unit_Bps; });
  field(node, "latency_us", required,
        [&](const YamlValue& v) { link.latency_s = v.as_nonnegative_double() * units::us; });
}

// `host:` (docs/hardware.md): the first three keys in a preset file, any subset in overrides;
// `frontend_Gbitps` is optional everywhere.
void read_host(HostSpec& host, const YamlValue& node, bool required) {
  node.expect_keys({"memory_GiB", "link_GBps", "link_latency_us", "frontend_Gbitps"});
  field(node, "memory_GiB", required, [&](const YamlValue& v) {
    host.memory_bytes_per_node = v.as_positive_double() * units::GiB;
  });
  field(node, "link_GBps", required,
        [&](const YamlValue& v) { host.link.bandwidth_Bps = v.as_positive_double() * units::GB; });
  field(node, "link_latency_us", required,
        [&](const YamlValue& v) { host.link.latency_s = v.as_nonnegative_double() * units::us; });
  field(node, "frontend_Gbitps", false, [&](const YamlValue& v) {
    host.frontend_Bps = v.as_positive_double() * units::gbit_per_s_to_Bps(1.0);
  });
}

std::vector<TierSpec> read_tiers(const YamlValue& node) {
  std::vector<TierSpec> tiers;
  for (const YamlValue& t : node.elements()) {
    t.expect_keys({"name", "fanout", "oversubscription", "latency_us", "load_balancing",
                   "port_Gbitps", "congestion_loss"});
    TierSpec tier;
    tier.name = t.get("name").as_string();
    tier.fanout = read_count(t.get("fanout"), kMaxFanout);
    tier.oversubscription = t.get("oversubscription").as_positive_double();
    tier.latency_s = t.get("latency_us").as_nonnegative_double() * units::us;
    // Optional (docs/hardware.md): how the switch spreads flows over its uplinks, and the rate
    // of one uplink port (default: the NIC's).
    if (auto lb = t.find("load_balancing")) {
      tier.load_balancing = lb->as_choice({"adaptive", "ecmp"}) == "ecmp" ? LoadBalancing::ecmp
                                                                          : LoadBalancing::adaptive;
    }
    if (auto port = t.find("port_Gbitps")) {
      tier.port_Bps = port->as_positive_double() * units::gbit_per_s_to_Bps(1.0);
    }
    if (auto loss = t.find("congestion_loss")) tier.congestion_loss = loss->as_nonnegative_double();
    tiers.push_back(std::move(tier));
  }
  return tiers;
}

// The reserved HBM (docs/hardware.md, "Reserved memory"): a plain total, `reserved_memory_GiB`,
// or its parts, `reserved_memory:`, never both in one map. In a preset file one of them is
// required and the parts all are; an override may give a subset of the parts only where the
// preset already has them (otherwise all three), and a plain total there replaces the parts.
void read_reserved_memory(HardwarePreset& p, const YamlValue& root, bool required) {
  const auto total = root.find("reserved_memory_GiB");
  const auto parts = root.find("reserved_memory");
  if (total && parts) {
    throw parts->error("both reserved_memory and reserved_memory_GiB are given",
                       "give one: reserved_memory_GiB is the plain total, reserved_memory its "
                       "parts (cuda_context_GiB, nccl_buffers_GiB, "
                       "allocator_fragmentation_fraction)");
  }
  if (required && !total && !parts) {
    throw root.error("missing required key reserved_memory (or reserved_memory_GiB)",
                     "give the parts, reserved_memory: {cuda_context_GiB, nccl_buffers_GiB, "
                     "allocator_fragmentation_fraction}, or a plain total reserved_memory_GiB");
  }
  if (total) {
    p.reserved = ReservedMemory{};
    p.reserved_memory_bytes = total->as_nonnegative_double() * units::GiB;
  }
  if (parts) {
    parts->expect_keys(
        {"cuda_context_GiB", "nccl_buffers_GiB", "allocator_fragmentation_fraction"});
    const bool all = required || !p.reserved.decomposed;
    field(*parts, "cuda_context_GiB", all, [&](const YamlValue& v) {
      p.reserved.cuda_context_bytes = v.as_nonnegative_double() * units::GiB;
    });
    field(*parts, "nccl_buffers_GiB", all, [&](const YamlValue& v) {
      p.reserved.nccl_buffers_bytes = v.as_nonnegative_double() * units::GiB;
    });
    field(*parts, "allocator_fragmentation_fraction", all, [&](const YamlValue& v) {
      const double f = v.as_nonnegative_double();
      if (!(f < 1)) {
        throw v.error(fmt::format("expected a share of HBM in [0, 1), found {}", f),
                      "the share of each GPU's HBM the caching allocator loses to "
                      "fragmentation, e.g. 0.05");
      }
      p.reserved.allocator_fragmentation_fraction = f;
    });
    p.reserved.decomposed = true;
  }
}

// Reads the keys of a preset map into `p`. With `required`, every key of the schema except the
// optional ones must be present (a preset file); otherwise any subset (overrides).
void read_preset(HardwarePreset& p, const YamlValue& root, bool required) {
  root.expect_keys({"name", "description", "gpu", "gpus_per_node", "scale_up_kind", "scale_up",
                    "scale_up_domain_nodes", "nics_per_node", "nic", "scale_out_layout", "tiers",
                    "reserved_memory_GiB", "reserved_memory", "host", "nccl_protocol"});
  field(root, "name", required, [&](const YamlValue& v) { p.name = v.as_string(); });
  field(root, "description", false, [&](const YamlValue& v) { p.description = v.as_string(); });
  field(root, "gpu", required, [&](const YamlValue& v) { read_gpu(p.gpu, v, required); });
  field(root, "gpus_per_node", required,
        [&](const YamlValue& v) { p.gpus_per_node = read_count(v, kMaxGpusPerNode); });
  field(root, "scale_up_kind", required, [&](const YamlValue& v) {
    p.scale_up_kind = v.as_choice({"nvswitch", "nvlink", "pcie"});
  });
  field(root, "scale_up", required, [&](const YamlValue& v) {
    v.expect_keys({"bandwidth_GBps", "latency_us"});
    read_link(p.scale_up, v, required, "bandwidth_GBps", units::GB);
  });
  field(root, "scale_up_domain_nodes", false,
        [&](const YamlValue& v) { p.scale_up_domain_nodes = read_count(v, kMaxDomainNodes); });
  field(root, "nics_per_node", required,
        [&](const YamlValue& v) { p.nics_per_node = read_count(v, kMaxNicsPerNode); });
  field(root, "scale_out_layout", false, [&](const YamlValue& v) {
    p.rail_optimized = v.as_choice({"top_of_rack", "rail_optimized"}) == "rail_optimized";
  });
  field(root, "nic", required, [&](const YamlValue& v) {
    v.expect_keys({"bandwidth_Gbitps", "latency_us", "efficiency"});
    read_link(p.nic, v, required, "bandwidth_Gbitps", units::gbit_per_s_to_Bps(1.0));
    field(v, "efficiency", false,
          [&](const YamlValue& e) { p.nic_efficiency = e.as_positive_double(); });
  });
  field(root, "tiers", required, [&](const YamlValue& v) { p.tiers = read_tiers(v); });
  read_reserved_memory(p, root, required);
  // Optional in a preset file: a preset without it keeps every table in HBM.
  field(root, "host", false, [&](const YamlValue& v) { read_host(p.host, v, required); });
  // Optional: what the cluster's network plugin forces on NCCL (docs/hardware.md).
  field(root, "nccl_protocol", false, [&](const YamlValue& v) {
    p.network_forces_simple_protocol = v.as_choice({"auto", "simple"}) == "simple";
  });
  // The parts' total, after any override of the HBM the fragmentation share is taken of.
  if (p.reserved.decomposed)
    p.reserved_memory_bytes = p.reserved.total_bytes(p.gpu.hbm_capacity_bytes);
}

// Locates `key` (relative, dotted, with [i] indices) under `root` as far as it exists, for the
// line and column of a cross-field error. (YamlValue is re-emplaced, never assigned: assigning
// one would rebind its node inside the document.)
YamlValue locate(const YamlValue& root, const std::string& key) {
  std::optional<YamlValue> cur(root);
  std::size_t pos = 0;
  while (pos < key.size()) {
    std::size_t end = key.find_first_of(".[", pos);
    if (end == std::string::npos) end = key.size();
    const std::string part = key.substr(pos, end - pos);
    if (!part.empty()) {
      if (!cur->is_map() || !cur->has(part)) return *cur;
      YamlValue next = *cur->find(part);
      cur.emplace(next);
    }
    if (end < key.size() && key[end] == '[') {
      const std::size_t close = key.find(']', end);
      const std::size_t index = std::stoul(key.substr(end + 1, close - end - 1));
      if (!cur->is_sequence() || index >= cur->size()) return *cur;
      YamlValue next = cur->at(index);
      cur.emplace(next);
      end = close + 1;
    }
    pos = end < key.size() && key[end] == '.' ? end + 1 : end;
  }
  return *cur;
}

PresetFail yaml_fail(const YamlValue& root) {
  return [root](const std::string& key, std::string problem, std::string hint) {
    const YamlValue at = locate(root, key);
    const std::string full = root.path().empty() ? key : root.path() + "." + key;
    return InputError(at.location(), full, std::move(problem), std::move(hint));
  };
}

std::string builtin_file_name(const std::string& name) {
  return fmt::format("configs/hardware/{}.yaml", name);
}

}  // namespace

HardwarePreset parse_hardware_preset(const YamlValue& root) {
  root.expect_map();
  HardwarePreset p;
  read_preset(p, root, /*required=*/true);
  p.source_file = root.file();
  check_preset(p, yaml_fail(root));
  return p;
}

HardwarePreset apply_preset_overrides(HardwarePreset preset, const YamlValue& overrides) {
  if (overrides.is_null()) return preset;
  overrides.expect_map();
  read_preset(preset, overrides, /*required=*/false);
  check_preset(preset, yaml_fail(overrides));
  return preset;
}

HardwarePreset load_hardware_preset_file(const std::string& path) {
  return parse_hardware_preset(YamlValue(load_yaml_file(path), path, ""));
}

void validate_hardware_preset(const HardwarePreset& preset) {
  check_preset(preset, [&](const std::string& key, std::string problem, std::string hint) {
    return InputError(SourceLocation{preset.source_file, 0, 0}, key, std::move(problem),
                      std::move(hint));
  });
}

std::vector<std::string> builtin_preset_names() {
  std::vector<std::string> names;
  for (const EmbeddedConfig& c : embedded_configs()) {
    const std::string_view path = c.path;
    if (!path.starts_with(kPresetPrefix) || !path.ends_with(kPresetSuffix)) continue;
    const std::string_view stem = path.substr(
        kPresetPrefix.size(), path.size() - kPresetPrefix.size() - kPresetSuffix.size());
    if (stem.empty() || stem.find('/') != std::string_view::npos) continue;
    names.emplace_back(stem);
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

struct ParsedBuiltin {
  HardwarePreset preset;
  std::string content_hash;  // of the preset's YAML (InputHashes)
};

// A built-in preset, parsed once a process: every scenario point, `size` probe and MPI run loads
// its preset by name, and parsing the YAML (for the preset, then again for its hash) cost more
// than the rest of a small scenario's loading.
const ParsedBuiltin& parsed_builtin(const std::string& name, const SourceLocation& where,
                                    const std::string& key) {
  static std::mutex mutex;
  static std::map<std::string, ParsedBuiltin, std::less<>> parsed;  // entries never move
  {
    std::lock_guard lock(mutex);
    if (const auto it = parsed.find(name); it != parsed.end()) return it->second;
  }
  const auto text =
      find_embedded_config(std::string(kPresetPrefix) + name + std::string(kPresetSuffix));
  if (!text) {
    const std::vector<std::string> names = builtin_preset_names();
    const std::string list = fmt::format("{}", fmt::join(names, ", "));
    const auto best = did_you_mean(name, names);
    throw InputError(where, key, fmt::format("unknown hardware preset '{}'", name),
                     best ? fmt::format("did you mean '{}'? built-in presets: {}", *best, list)
                          : fmt::format("built-in presets: {}", list));
  }
  const std::string file = builtin_file_name(name);
  const YamlValue doc(parse_yaml(*text, file), file, "");
  ParsedBuiltin p{parse_hardware_preset(doc), yaml_content_hash(doc)};
  std::lock_guard lock(mutex);
  return parsed.try_emplace(name, std::move(p)).first->second;
}

}  // namespace

HardwarePreset builtin_preset(const std::string& name, const SourceLocation& where,
                              const std::string& key) {
  return parsed_builtin(name, where, key).preset;
}

std::string builtin_preset_content_hash(const std::string& name, const SourceLocation& where,
                                        const std::string& key) {
  return parsed_builtin(name, where, key).content_hash;
}

}  // namespace shardsim
