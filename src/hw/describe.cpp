#include "shardsim/hw/describe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>

#include "shardsim/core/units.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {

namespace {

// Where a value's key starts in `hw show`'s lines, and the prefix that makes a preset key a
// scenario key (`--set cluster.overrides.nic.bandwidth_Gbitps=400`).
constexpr int kKeyColumn = 62;
constexpr const char* kOverridePrefix = "cluster.overrides.";

// Bytes/s -> Gbit/s.
double to_Gbitps(double Bps) {
  return Bps * 8.0 / 1e9;
}

std::string tflops_or_unsupported(double flops) {
  return flops > 0 ? fmt::format("{:g} TFLOP/s", flops / units::TFLOPS) : "unsupported";
}

// A number as an override takes it: enough digits to give back the preset's own value (the
// loader multiplies it by the key's unit again), none of the unit conversion's rounding noise.
std::string number(double v) {
  return fmt::format("{:.15g}", v);
}

// A string as a YAML scalar that stays a string when `--set` parses it.
std::string yaml_string(const std::string& s) {
  const bool plain = !s.empty() && std::isalpha(static_cast<unsigned char>(s.front())) &&
                     std::all_of(s.begin(), s.end(),
                                 [](char c) {
                                   return std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
                                          c == '_' || c == '.';
                                 }) &&
                     s != "true" && s != "false" && s != "null" && s != "yes" && s != "no" &&
                     s != "on" && s != "off";
  if (plain) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The precisions MLP math runs in, each with the keys a preset may give it its own figures by.
struct PrecisionKeys {
  Precision precision;
  const char* suffix;
  double GpuSpec::*efficiency;
  double GpuSpec::*batch_half;
  double GpuSpec::*width_half;
};
constexpr std::array<PrecisionKeys, 4> kMathPrecisions{{
    {Precision::fp32, "fp32", &GpuSpec::mlp_efficiency_fp32, &GpuSpec::mlp_batch_half_fp32,
     &GpuSpec::mlp_width_half_fp32},
    {Precision::tf32, "tf32", &GpuSpec::mlp_efficiency_tf32, &GpuSpec::mlp_batch_half_tf32,
     &GpuSpec::mlp_width_half_tf32},
    {Precision::fp16, "fp16", &GpuSpec::mlp_efficiency_fp16, &GpuSpec::mlp_batch_half_fp16,
     &GpuSpec::mlp_width_half_fp16},
    {Precision::bf16, "bf16", &GpuSpec::mlp_efficiency_bf16, &GpuSpec::mlp_batch_half_bf16,
     &GpuSpec::mlp_width_half_bf16},
}};

// The lines of the description; a value's line ends in its override `key=value`.
class Lines {
 public:
  void text(const std::string& line) { out_ += line + '\n'; }
  // `label` and `shown` on the left, `cluster.overrides.<key>=<value>` from kKeyColumn on.
  void value(const std::string& label, const std::string& shown, const std::string& key,
             const std::string& value) {
    std::string left = label.empty() ? shown : fmt::format("{:<21} {}", label, shown);
    const auto width = static_cast<std::size_t>(kKeyColumn - 1);
    left.resize(std::max(left.size(), width), ' ');
    out_ += fmt::format("{} {}{}={}\n", left, kOverridePrefix, key, value);
  }
  std::string str() && { return std::move(out_); }

 private:
  std::string out_;
};

void describe_mlp(const GpuSpec& g, Lines& out) {
  out.value("  MLP efficiency", fmt::format("{:.1f}% of peak", 100.0 * g.mlp_efficiency),
            "gpu.mlp_efficiency", number(g.mlp_efficiency));
  for (const PrecisionKeys& k : kMathPrecisions) {
    if (g.*k.efficiency > 0) {
      out.value(fmt::format("    {}", k.suffix),
                fmt::format("{:.1f}% of peak", 100.0 * g.mlp_efficiency_for(k.precision)),
                fmt::format("gpu.mlp_efficiency_{}", k.suffix), number(g.*k.efficiency));
    }
  }
  if (g.mlp_batch_half > 0) {
    out.value("  MLP batch half",
              fmt::format("{:g} samples (efficiency x b / (b + {:g}))", g.mlp_batch_half,
                          g.mlp_batch_half),
              "gpu.mlp_batch_half", number(g.mlp_batch_half));
  }
  for (const PrecisionKeys& k : kMathPrecisions) {
    if (g.*k.batch_half > 0) {
      out.value(fmt::format("    {}", k.suffix), fmt::format("{:g} samples", g.*k.batch_half),
                fmt::format("gpu.mlp_batch_half_{}", k.suffix), number(g.*k.batch_half));
    }
  }
  if (g.mlp_width_half > 0) {
    out.value("  MLP width half",
              fmt::format("{:g} features (a layer of width w = min(in, out): x w / (w + {:g}))",
                          g.mlp_width_half, g.mlp_width_half),
              "gpu.mlp_width_half", number(g.mlp_width_half));
  }
  for (const PrecisionKeys& k : kMathPrecisions) {
    if (g.*k.width_half > 0) {
      out.value(fmt::format("    {}", k.suffix), fmt::format("{:g} features", g.*k.width_half),
                fmt::format("gpu.mlp_width_half_{}", k.suffix), number(g.*k.width_half));
    }
  }
}

void describe_gpu(const HardwarePreset& p, Lines& out) {
  const GpuSpec& g = p.gpu;
  out.value("", fmt::format("GPU {}", g.name), "gpu.name", yaml_string(g.name));
  out.value("  HBM capacity",
            fmt::format("{:g} GiB ({:.2f} GB)", g.hbm_capacity_bytes / units::GiB,
                        g.hbm_capacity_bytes / units::GB),
            "gpu.hbm_capacity_GiB", number(g.hbm_capacity_bytes / units::GiB));
  out.value("  HBM bandwidth", fmt::format("{:g} GB/s peak", g.hbm_peak_Bps / units::GB),
            "gpu.hbm_peak_GBps", number(g.hbm_peak_Bps / units::GB));
  out.value(
      "",
      fmt::format("{:<21} {:g} GB/s achievable ({:.1f}% of peak)", "",
                  g.hbm_achievable_Bps / units::GB, 100.0 * g.hbm_achievable_Bps / g.hbm_peak_Bps),
      "gpu.hbm_achievable_GBps", number(g.hbm_achievable_Bps / units::GB));
  struct Peak {
    const char* label;
    const char* key;
    double flops;
  };
  const std::array<Peak, 4> peaks{{{"  peak FP32", "gpu.peak_fp32_TFLOPps", g.peak_fp32_flops},
                                   {"  peak TF32", "gpu.peak_tf32_TFLOPps", g.peak_tf32_flops},
                                   {"  peak FP16", "gpu.peak_fp16_TFLOPps", g.peak_fp16_flops},
                                   {"  peak BF16", "gpu.peak_bf16_TFLOPps", g.peak_bf16_flops}}};
  for (const Peak& peak : peaks) {
    out.value(peak.label, tflops_or_unsupported(peak.flops), peak.key,
              number(peak.flops / units::TFLOPS));
  }
  describe_mlp(g, out);
  out.value("  kernel launch", fmt::format("{:g} us", g.kernel_launch_s / units::us),
            "gpu.kernel_launch_us", number(g.kernel_launch_s / units::us));
  out.value("  L2 cache", fmt::format("{:g} MiB", g.l2_bytes / units::MiB), "gpu.l2_MiB",
            number(g.l2_bytes / units::MiB));
  const ReservedMemory& r = p.reserved;
  if (!r.decomposed) {
    out.value("  reserved memory",
              fmt::format("{:g} GiB (usable {:g} GiB)", p.reserved_memory_bytes / units::GiB,
                          (g.hbm_capacity_bytes - p.reserved_memory_bytes) / units::GiB),
              "reserved_memory_GiB", number(p.reserved_memory_bytes / units::GiB));
    return;
  }
  out.text(fmt::format("  {:<19} {:g} GiB (usable {:g} GiB), of which:", "reserved memory",
                       p.reserved_memory_bytes / units::GiB,
                       (g.hbm_capacity_bytes - p.reserved_memory_bytes) / units::GiB));
  out.value("    CUDA context", fmt::format("{:g} GiB", r.cuda_context_bytes / units::GiB),
            "reserved_memory.cuda_context_GiB", number(r.cuda_context_bytes / units::GiB));
  out.value("    NCCL buffers", fmt::format("{:g} GiB", r.nccl_buffers_bytes / units::GiB),
            "reserved_memory.nccl_buffers_GiB", number(r.nccl_buffers_bytes / units::GiB));
  out.value("    fragmentation",
            fmt::format("{:g} GiB ({:g} of HBM)",
                        r.fragmentation_bytes(g.hbm_capacity_bytes) / units::GiB,
                        r.allocator_fragmentation_fraction),
            "reserved_memory.allocator_fragmentation_fraction",
            number(r.allocator_fragmentation_fraction));
}

void describe_host(const HostSpec& host, Lines& out) {
  if (!host.present()) {
    out.text("  host memory         not described (tables stay in HBM)");
    return;
  }
  out.value("  host memory",
            fmt::format("{:g} GiB per node", host.memory_bytes_per_node / units::GiB),
            "host.memory_GiB", number(host.memory_bytes_per_node / units::GiB));
  out.value("  host link",
            fmt::format("{:g} GB/s per GPU per direction", host.link.bandwidth_Bps / units::GB),
            "host.link_GBps", number(host.link.bandwidth_Bps / units::GB));
  out.value("", fmt::format("{:<21} {:g} us per kernel", "", host.link.latency_s / units::us),
            "host.link_latency_us", number(host.link.latency_s / units::us));
  if (host.delivers_inputs()) {
    out.value("  frontend network",
              fmt::format("{:g} Gbit/s per node (delivers the inputs: docs/model.md, \"Data "
                          "ingestion\")",
                          to_Gbitps(host.frontend_Bps)),
              "host.frontend_Gbitps", number(to_Gbitps(host.frontend_Bps)));
  }
}

void describe_node(const HardwarePreset& p, Lines& out) {
  out.value("", fmt::format("node: {} GPUs", p.gpus_per_node), "gpus_per_node",
            number(p.gpus_per_node));
  describe_host(p.host, out);
  out.value("  scale-up", p.scale_up_kind, "scale_up_kind", p.scale_up_kind);
  out.value("",
            fmt::format("{:<21} {:g} GB/s per GPU per direction", "",
                        p.scale_up.bandwidth_Bps / units::GB),
            "scale_up.bandwidth_GBps", number(p.scale_up.bandwidth_Bps / units::GB));
  out.value("", fmt::format("{:<21} {:g} us per traversal", "", p.scale_up.latency_s / units::us),
            "scale_up.latency_us", number(p.scale_up.latency_s / units::us));
  out.value("  scale-up domain",
            fmt::format("{} node(s) = {} GPUs", p.scale_up_domain_nodes,
                        p.scale_up_domain_nodes * p.gpus_per_node),
            "scale_up_domain_nodes", number(p.scale_up_domain_nodes));
  out.value("  scale-out", fmt::format("{} NIC(s)", p.nics_per_node), "nics_per_node",
            number(p.nics_per_node));
  out.value("",
            fmt::format("{:<21} {:g} Gbit/s ({:g} GB/s) per NIC per direction", "",
                        to_Gbitps(p.nic.bandwidth_Bps), p.nic.bandwidth_Bps / units::GB),
            "nic.bandwidth_Gbitps", number(to_Gbitps(p.nic.bandwidth_Bps)));
  out.value("", fmt::format("{:<21} {:g} us per NIC", "", p.nic.latency_s / units::us),
            "nic.latency_us", number(p.nic.latency_s / units::us));
  if (p.nic_efficiency != 1) {
    out.value("", fmt::format("{:<21} {:g} of the line rate carried", "", p.nic_efficiency),
              "nic.efficiency", number(p.nic_efficiency));
  }
  const double per_gpu_Bps = p.nic_delivered_Bps() * p.nics_per_node / p.gpus_per_node;
  out.text(fmt::format("  scale-out per GPU   {:g} Gbit/s ({:g} GB/s)", to_Gbitps(per_gpu_Bps),
                       per_gpu_Bps / units::GB));
  const char* layout = p.rail_optimized ? "rail_optimized" : "top_of_rack";
  out.value("  scale-out layout", layout, "scale_out_layout", layout);
  const char* protocol = p.network_forces_simple_protocol ? "simple" : "auto";
  out.value("  NCCL protocol",
            p.network_forces_simple_protocol ? "simple (forced by the network plugin)" : "auto",
            "nccl_protocol", protocol);
}

// The tiers as one `cluster.overrides.tiers` value (a list replaces the preset's whole list).
std::string tiers_value(const HardwarePreset& p) {
  std::string out = "[";
  for (std::size_t k = 0; k < p.tiers.size(); ++k) {
    const TierSpec& t = p.tiers[k];
    out += fmt::format(
        "{}{{name: {}, fanout: {}, oversubscription: {}, latency_us: {}, load_balancing: {}",
        k == 0 ? "" : ", ", yaml_string(t.name), t.fanout, number(t.oversubscription),
        number(t.latency_s / units::us),
        t.load_balancing == LoadBalancing::ecmp ? "ecmp" : "adaptive");
    if (t.port_Bps > 0) out += fmt::format(", port_Gbitps: {}", number(to_Gbitps(t.port_Bps)));
    if (t.congestion_loss > 0)
      out += fmt::format(", congestion_loss: {}", number(t.congestion_loss));
    out += "}";
  }
  return out + "]";
}

void describe_tiers(const HardwarePreset& p, Lines& out) {
  out.text("tiers (bottom to top):");
  const int top = static_cast<int>(p.tiers.size()) - 1;
  for (int k = 0; k <= top; ++k) {
    const TierSpec& t = p.tiers[static_cast<std::size_t>(k)];
    const double up_Bps = tier_uplink_Bps(p, k);
    const std::string children =
        k == 0 ? "nodes" : p.tiers[static_cast<std::size_t>(k - 1)].name + "s";
    const std::string hashing = t.load_balancing == LoadBalancing::ecmp
                                    ? fmt::format(", ECMP over {} ports", tier_uplink_ports(p, k))
                                    : std::string(", adaptive");
    const std::string rails = k == 0 && p.rail_optimized
                                  ? fmt::format(", rail-optimised ({} rail switches a group)",
                                                std::min(p.nics_per_node, p.gpus_per_node))
                                  : std::string();
    const std::string congestion =
        t.congestion_loss > 0
            ? fmt::format(" after {:g}% lost to congestion", 100 * t.congestion_loss)
            : std::string();
    const std::string uplink =
        k == top ? "top tier (no uplink)"
                 : fmt::format("uplink {:g} Gbit/s ({:g} GB/s){}{}{}", to_Gbitps(up_Bps),
                               up_Bps / units::GB, congestion, hashing, rails);
    const double nodes = static_cast<double>(tier_capacity_nodes(p, k));
    out.text(fmt::format(
        "  {:<10} fanout {} {}, oversubscription {:g}:1, latency {:g} us, {}, {} {:.0f} nodes "
        "= {:.0f} GPUs",
        t.name, t.fanout, children, t.oversubscription, t.latency_s / units::us, uplink,
        k == top ? "capacity" : "group of", nodes, nodes * p.gpus_per_node));
  }
  out.value("  as one override", "(a list replaces the whole list)", "tiers", tiers_value(p));
}

}  // namespace

std::string describe_preset(const HardwarePreset& p) {
  Lines out;
  out.text(fmt::format("preset {}", p.name));
  if (!p.description.empty()) out.text(fmt::format("  {}", p.description));
  if (!p.source_file.empty()) out.text(fmt::format("  source: {}", p.source_file));
  out.text(
      fmt::format("  each value's override key is on its right (`--set KEY=VALUE`, or "
                  "under `cluster.overrides:`)"));
  describe_gpu(p, out);
  describe_node(p, out);
  describe_tiers(p, out);
  return std::move(out).str();
}

}  // namespace shardsim
