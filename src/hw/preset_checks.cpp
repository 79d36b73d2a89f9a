// The checks on a whole hardware preset (hw/preset_checks.hpp), one part of the preset a step.
#include "hw/preset_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <string_view>
#include <vector>

#include "shardsim/core/did_you_mean.hpp"
#include "shardsim/core/units.hpp"

namespace shardsim {
namespace {

// A direct NVLink mesh of more GPUs than this does not exist (links per GPU are limited).
constexpr int kMaxMeshGpus = 16;

// Names the loader gives to link endpoints and levels; tiers may not use them (they would make
// link names in reports ambiguous).
constexpr std::array<std::string_view, 7> kReservedTierNames = {
    "gpu", "nic", "nvswitch", "pcie", "nvlink", "self", "scale_up"};

const std::vector<std::string>& scale_up_kinds() {
  static const std::vector<std::string> kinds = {"nvswitch", "nvlink", "pcie"};
  return kinds;
}

// Throws unless `v` is a positive finite number.
void check_positive(const PresetFail& fail, double v, const std::string& key, const char* what) {
  if (!(v > 0) || !std::isfinite(v)) {
    throw fail(key, fmt::format("{} must be a positive number, found {}", what, v), "");
  }
}

// Throws unless `v` is a finite number >= 0.
void check_nonnegative(const PresetFail& fail, double v, const std::string& key, const char* what) {
  if (!(v >= 0) || !std::isfinite(v)) {
    throw fail(key, fmt::format("{} must be a number >= 0, found {}", what, v), "");
  }
}

// `gpu:`: its name, HBM, peak FLOP/s, MLP efficiencies and halves, launch overhead and L2.
void check_gpu_spec(const GpuSpec& g, const PresetFail& fail) {
  if (g.name.empty()) throw fail("gpu.name", "the GPU name is empty", "name the GPU model");
  check_positive(fail, g.hbm_capacity_bytes, "gpu.hbm_capacity_GiB", "HBM capacity");
  check_positive(fail, g.hbm_peak_Bps, "gpu.hbm_peak_GBps", "peak HBM bandwidth");
  check_positive(fail, g.hbm_achievable_Bps, "gpu.hbm_achievable_GBps", "achievable HBM bandwidth");
  if (g.hbm_achievable_Bps > g.hbm_peak_Bps) {
    throw fail("gpu.hbm_achievable_GBps",
               fmt::format("achievable HBM bandwidth {} GB/s exceeds the peak {} GB/s",
                           g.hbm_achievable_Bps / units::GB, g.hbm_peak_Bps / units::GB),
               "achievable bandwidth is a fraction of the vendor peak (Neo App. B: A100 1300 "
               "of 1555 GB/s)");
  }
  check_positive(fail, g.peak_fp32_flops, "gpu.peak_fp32_TFLOPps", "peak FP32 FLOP/s");
  check_nonnegative(fail, g.peak_tf32_flops, "gpu.peak_tf32_TFLOPps", "peak TF32 FLOP/s");
  check_nonnegative(fail, g.peak_fp16_flops, "gpu.peak_fp16_TFLOPps", "peak FP16 FLOP/s");
  check_nonnegative(fail, g.peak_bf16_flops, "gpu.peak_bf16_TFLOPps", "peak BF16 FLOP/s");
  if (!(g.mlp_efficiency > 0 && g.mlp_efficiency <= 1)) {
    throw fail("gpu.mlp_efficiency",
               fmt::format("MLP efficiency must be in (0, 1], found {}", g.mlp_efficiency),
               "a fraction of peak, e.g. 0.705 for A100 (Neo App. B)");
  }
  for (const auto& [key, member] : kMlpEfficiencyKeys) {
    const double value = g.*member;
    if (!(value >= 0 && value <= 1)) {  // 0: not given (the loader takes positive values only)
      throw fail(std::string("gpu.") + key,
                 fmt::format("MLP efficiency must be in (0, 1], found {}", value),
                 "a fraction of that precision's peak, e.g. 0.879 for H100 TF32");
    }
  }
  check_nonnegative(fail, g.mlp_batch_half, "gpu.mlp_batch_half", "MLP batch half");
  check_nonnegative(fail, g.mlp_width_half, "gpu.mlp_width_half", "MLP width half");
  for (const MlpHalfKey& k : kMlpHalfKeys) {
    check_nonnegative(fail, g.*k.member, std::string("gpu.") + k.key, k.what);  // 0: not given
  }
  check_nonnegative(fail, g.kernel_launch_s, "gpu.kernel_launch_us", "kernel launch overhead");
  check_nonnegative(fail, g.l2_bytes, "gpu.l2_MiB", "L2 size");
}

// The node's GPUs and its scale-up fabric: kind, link, domain size and mesh size.
void check_scale_up(const HardwarePreset& p, const PresetFail& fail) {
  if (p.gpus_per_node < 1) {
    throw fail("gpus_per_node", fmt::format("expected at least 1, found {}", p.gpus_per_node), "");
  }
  const auto& kinds = scale_up_kinds();
  if (std::find(kinds.begin(), kinds.end(), p.scale_up_kind) == kinds.end()) {
    auto best = did_you_mean(p.scale_up_kind, kinds);
    throw fail("scale_up_kind",
               fmt::format("'{}' is not one of: nvswitch, nvlink, pcie", p.scale_up_kind),
               best ? fmt::format("did you mean '{}'?", *best) : std::string{});
  }
  check_positive(fail, p.scale_up.bandwidth_Bps, "scale_up.bandwidth_GBps", "scale-up bandwidth");
  check_nonnegative(fail, p.scale_up.latency_s, "scale_up.latency_us", "scale-up latency");
  if (p.scale_up_domain_nodes < 1) {
    throw fail("scale_up_domain_nodes",
               fmt::format("expected at least 1, found {}", p.scale_up_domain_nodes), "");
  }
  if (p.scale_up_domain_nodes > 1 && p.scale_up_kind != "nvswitch") {
    throw fail("scale_up_domain_nodes",
               fmt::format("a scale-up domain of {} hosts needs scale_up_kind nvswitch, found {}",
                           p.scale_up_domain_nodes, p.scale_up_kind),
               "only an NVSwitch fabric spans hosts (GB200 NVL72-style); use 1 otherwise");
  }
  const std::int64_t domain_gpus =
      static_cast<std::int64_t>(p.gpus_per_node) * p.scale_up_domain_nodes;
  if (p.scale_up_kind == "nvlink" && domain_gpus > kMaxMeshGpus) {
    throw fail("scale_up_kind",
               fmt::format("a direct NVLink mesh of {} GPUs is not buildable (at most {})",
                           domain_gpus, kMaxMeshGpus),
               "use scale_up_kind: nvswitch for larger domains");
  }
}

// The node's NICs: their count (shared evenly by the GPUs) and link.
void check_nics(const HardwarePreset& p, const PresetFail& fail) {
  if (p.nics_per_node < 1) {
    throw fail("nics_per_node", fmt::format("expected at least 1, found {}", p.nics_per_node), "");
  }
  if (p.gpus_per_node % p.nics_per_node != 0 && p.nics_per_node % p.gpus_per_node != 0) {
    throw fail(
        "nics_per_node",
        fmt::format("{} NICs cannot be shared evenly by {} GPUs", p.nics_per_node, p.gpus_per_node),
        "nics_per_node must divide gpus_per_node, or be a multiple of it");
  }
  check_positive(fail, p.nic.bandwidth_Bps, "nic.bandwidth_Gbitps", "NIC bandwidth");
  if (!(p.nic_efficiency > 0 && p.nic_efficiency <= 1)) {
    throw fail("nic.efficiency", fmt::format("must be in (0, 1], found {}", p.nic_efficiency),
               "the share of the line rate the NIC carries (1 = all of it)");
  }
  check_nonnegative(fail, p.nic.latency_s, "nic.latency_us", "NIC latency");
}

// `tiers:`: at least one, each with a unique, unreserved name, a fanout, oversubscription and
// latency, and a congestion loss in [0, 1) below the top tier.
void check_tiers(const std::vector<TierSpec>& tiers, const PresetFail& fail) {
  if (tiers.empty()) {
    throw fail("tiers", "at least one tier is required",
               "add e.g. `- {name: rack, fanout: 16, oversubscription: 1, latency_us: 0.5}`");
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const TierSpec& t = tiers[i];
    const std::string at = fmt::format("tiers[{}]", i);
    if (t.name.empty()) throw fail(at + ".name", "the tier name is empty", "e.g. rack, pod");
    if (std::find(kReservedTierNames.begin(), kReservedTierNames.end(), t.name) !=
        kReservedTierNames.end()) {
      throw fail(at + ".name",
                 fmt::format("'{}' is reserved for other parts of the topology", t.name),
                 "use a name such as rack, pod or building");
    }
    if (!seen.insert(t.name).second) {
      throw fail(at + ".name", fmt::format("tier name '{}' is used twice", t.name),
                 "tier names must be unique");
    }
    if (t.fanout < 1) {
      throw fail(at + ".fanout", fmt::format("expected at least 1, found {}", t.fanout), "");
    }
    if (!(t.oversubscription >= 1) || !std::isfinite(t.oversubscription)) {
      throw fail(at + ".oversubscription",
                 fmt::format("expected a ratio >= 1, found {}", t.oversubscription),
                 "downlink / uplink bandwidth: 1 is non-blocking, 4 means 4:1");
    }
    check_nonnegative(fail, t.latency_s, at + ".latency_us", "tier latency");
    if (!(t.congestion_loss >= 0 && t.congestion_loss < 1)) {
      throw fail(at + ".congestion_loss",
                 fmt::format("expected a share in [0, 1), found {}", t.congestion_loss),
                 "the share of the uplinks' bandwidth other traffic takes: 0.5 leaves half");
    }
    if (t.congestion_loss > 0 && i + 1 == tiers.size()) {
      throw fail(at + ".congestion_loss", "the top tier has no uplinks to lose bandwidth on",
                 "give congestion_loss to the tiers below it, whose uplinks reach it");
    }
  }
}

// The reserved HBM, and `host:` (memory, link, frontend network) when given.
void check_memory(const HardwarePreset& p, const PresetFail& fail) {
  const ReservedMemory& r = p.reserved;
  if (r.decomposed) {
    check_nonnegative(fail, r.cuda_context_bytes, "reserved_memory.cuda_context_GiB",
                      "CUDA context memory");
    check_nonnegative(fail, r.nccl_buffers_bytes, "reserved_memory.nccl_buffers_GiB",
                      "NCCL buffer memory");
    if (!(r.allocator_fragmentation_fraction >= 0 && r.allocator_fragmentation_fraction < 1)) {
      throw fail("reserved_memory.allocator_fragmentation_fraction",
                 fmt::format("expected a share of HBM in [0, 1), found {}",
                             r.allocator_fragmentation_fraction),
                 "the share of each GPU's HBM the caching allocator loses to fragmentation");
    }
  }
  const std::string key = r.decomposed ? "reserved_memory" : "reserved_memory_GiB";
  check_nonnegative(fail, p.reserved_memory_bytes, key, "reserved memory");
  if (p.reserved_memory_bytes >= p.gpu.hbm_capacity_bytes) {
    throw fail(
        key,
        fmt::format("reserved memory {:.3f} GiB leaves nothing of the {:.3f} GiB HBM",
                    p.reserved_memory_bytes / units::GiB, p.gpu.hbm_capacity_bytes / units::GiB),
        r.decomposed ? "its parts (cuda_context_GiB + nccl_buffers_GiB + "
                       "allocator_fragmentation_fraction x HBM) must be smaller than "
                       "hbm_capacity_GiB"
                     : "reserved memory must be smaller than hbm_capacity_GiB");
  }
  if (p.host.present()) {
    check_positive(fail, p.host.memory_bytes_per_node, "host.memory_GiB", "host memory");
    check_positive(fail, p.host.link.bandwidth_Bps, "host.link_GBps", "host link bandwidth");
    check_nonnegative(fail, p.host.link.latency_s, "host.link_latency_us", "host link latency");
  } else if (p.host.link.bandwidth_Bps > 0) {
    throw fail("host.memory_GiB", "a host link without host memory",
               "give host.memory_GiB (the node's DRAM usable for tables)");
  }
  if (p.host.frontend_Bps < 0 || (p.host.frontend_Bps > 0 && !p.host.present())) {
    throw fail("host.frontend_Gbitps", "a frontend network without the host it delivers to",
               "give the host's memory_GiB, link_GBps and link_latency_us: the inputs cross the "
               "frontend network, then the GPU's host link (docs/model.md \"Data ingestion\")");
  }
}

}  // namespace

void check_preset(const HardwarePreset& p, const PresetFail& fail) {
  if (p.name.empty()) throw fail("name", "the preset name is empty", "give the preset a name");
  check_gpu_spec(p.gpu, fail);
  check_scale_up(p, fail);
  check_nics(p, fail);
  check_tiers(p.tiers, fail);
  check_memory(p, fail);
}

}  // namespace shardsim
