#include "shardsim/hw/describe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

#include "shardsim/core/units.hpp"
#include "shardsim/hw/topology.hpp"

namespace shardsim {

namespace {

// Bytes/s -> Gbit/s.
double to_Gbitps(double Bps) {
  return Bps * 8.0 / 1e9;
}

std::string tflops_or_unsupported(double flops) {
  return flops > 0 ? fmt::format("{:g} TFLOP/s", flops / units::TFLOPS) : "unsupported";
}

// The precisions MLP math runs in, each of which a preset may give its own MLP figures.
constexpr std::array<Precision, 4> kMathPrecisions = {Precision::fp32, Precision::tf32,
                                                      Precision::fp16, Precision::bf16};

}  // namespace

std::string describe_preset(const HardwarePreset& p) {
  const GpuSpec& g = p.gpu;
  std::string out;
  const auto line = [&out]<class... Args>(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
    out += '\n';
  };
  line("preset {}", p.name);
  if (!p.description.empty()) line("  {}", p.description);
  if (!p.source_file.empty()) line("  source: {}", p.source_file);
  line("GPU {}", g.name);
  line("  HBM capacity        {:g} GiB ({:.2f} GB)", g.hbm_capacity_bytes / units::GiB,
       g.hbm_capacity_bytes / units::GB);
  line("  HBM bandwidth       {:g} GB/s peak, {:g} GB/s achievable ({:.1f}% of peak)",
       g.hbm_peak_Bps / units::GB, g.hbm_achievable_Bps / units::GB,
       100.0 * g.hbm_achievable_Bps / g.hbm_peak_Bps);
  line("  peak FP32           {}", tflops_or_unsupported(g.peak_fp32_flops));
  line("  peak TF32           {}", tflops_or_unsupported(g.peak_tf32_flops));
  line("  peak FP16           {}", tflops_or_unsupported(g.peak_fp16_flops));
  line("  peak BF16           {}", tflops_or_unsupported(g.peak_bf16_flops));
  line("  MLP efficiency      {:.1f}% of peak", 100.0 * g.mlp_efficiency);
  for (Precision p : kMathPrecisions) {
    if (g.mlp_efficiency_for(p) != g.mlp_efficiency) {
      line("    {:<17} {:.1f}% of peak", to_string(p), 100.0 * g.mlp_efficiency_for(p));
    }
  }
  if (g.mlp_batch_half > 0) {
    line("  MLP batch half      {:g} samples (efficiency x b / (b + {:g}))", g.mlp_batch_half,
         g.mlp_batch_half);
  }
  for (Precision p : kMathPrecisions) {
    if (g.mlp_batch_half_for(p) != g.mlp_batch_half) {
      line("    {:<17} {:g} samples", to_string(p), g.mlp_batch_half_for(p));
    }
  }
  if (g.mlp_width_half > 0) {
    line(
        "  MLP width half      {:g} features (a layer of width w = min(in, out): x w / (w + {:g}))",
        g.mlp_width_half, g.mlp_width_half);
  }
  for (Precision p : kMathPrecisions) {
    if (g.mlp_width_half_for(p) != g.mlp_width_half) {
      line("    {:<17} {:g} features", to_string(p), g.mlp_width_half_for(p));
    }
  }
  line("  kernel launch       {:g} us", g.kernel_launch_s / units::us);
  line("  L2 cache            {:g} MiB", g.l2_bytes / units::MiB);
  line("  reserved memory     {:g} GiB (usable {:g} GiB)", p.reserved_memory_bytes / units::GiB,
       (g.hbm_capacity_bytes - p.reserved_memory_bytes) / units::GiB);
  line("node: {} GPUs", p.gpus_per_node);
  if (p.host.present()) {
    line("  host memory         {:g} GiB per node, link {:g} GB/s per GPU per direction, {:g} us",
         p.host.memory_bytes_per_node / units::GiB, p.host.link.bandwidth_Bps / units::GB,
         p.host.link.latency_s / units::us);
    if (p.host.delivers_inputs()) {
      line(
          "  frontend network    {:g} Gbit/s per node (delivers the inputs: docs/model.md, "
          "\"Data ingestion\")",
          to_Gbitps(p.host.frontend_Bps));
    }
  } else {
    line("  host memory         not described (tables stay in HBM)");
  }
  line("  scale-up            {}, {:g} GB/s per GPU per direction, {:g} us per traversal",
       p.scale_up_kind, p.scale_up.bandwidth_Bps / units::GB, p.scale_up.latency_s / units::us);
  line("  scale-up domain     {} node(s) = {} GPUs", p.scale_up_domain_nodes,
       p.scale_up_domain_nodes * p.gpus_per_node);
  line("  scale-out           {} NIC(s) x {:g} Gbit/s ({:g} GB/s) per direction, {:g} us per NIC",
       p.nics_per_node, to_Gbitps(p.nic.bandwidth_Bps), p.nic.bandwidth_Bps / units::GB,
       p.nic.latency_s / units::us);
  const double per_gpu_Bps = p.nic.bandwidth_Bps * p.nics_per_node / p.gpus_per_node;
  line("  scale-out per GPU   {:g} Gbit/s ({:g} GB/s)", to_Gbitps(per_gpu_Bps),
       per_gpu_Bps / units::GB);
  line("tiers (bottom to top):");
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
    const std::string uplink =
        k == top ? "top tier (no uplink)"
                 : fmt::format("uplink {:g} Gbit/s ({:g} GB/s){}{}", to_Gbitps(up_Bps),
                               up_Bps / units::GB, hashing, rails);
    const double nodes = static_cast<double>(tier_capacity_nodes(p, k));
    line(
        "  {:<10} fanout {} {}, oversubscription {:g}:1, latency {:g} us, {}, {} {:.0f} nodes "
        "= {:.0f} GPUs",
        t.name, t.fanout, children, t.oversubscription, t.latency_s / units::us, uplink,
        k == top ? "capacity" : "group of", nodes, nodes * p.gpus_per_node);
  }
  return out;
}

}  // namespace shardsim
