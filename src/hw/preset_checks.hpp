#pragma once
// The checks on a whole hardware preset (hw/hardware_preset.cpp reads it; docs/hardware.md), and
// the per-precision GpuSpec keys that the reader and the checks share.
#include <array>
#include <functional>
#include <string>
#include <utility>

#include "shardsim/core/error.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {

// The optional per-precision MLP efficiencies under `gpu:`, by key (GpuSpec::mlp_efficiency_for).
inline constexpr std::array<std::pair<const char*, double GpuSpec::*>, 4> kMlpEfficiencyKeys{{
    {"mlp_efficiency_fp32", &GpuSpec::mlp_efficiency_fp32},
    {"mlp_efficiency_tf32", &GpuSpec::mlp_efficiency_tf32},
    {"mlp_efficiency_fp16", &GpuSpec::mlp_efficiency_fp16},
    {"mlp_efficiency_bf16", &GpuSpec::mlp_efficiency_bf16},
}};

// The optional per-precision MLP batch and width halves under `gpu:`, by key
// (GpuSpec::mlp_batch_half_for, mlp_width_half_for), with what each one is for messages.
struct MlpHalfKey {
  const char* key;
  double GpuSpec::*member;
  const char* what;
};
inline constexpr std::array<MlpHalfKey, 8> kMlpHalfKeys{{
    {"mlp_batch_half_fp32", &GpuSpec::mlp_batch_half_fp32, "MLP batch half"},
    {"mlp_batch_half_tf32", &GpuSpec::mlp_batch_half_tf32, "MLP batch half"},
    {"mlp_batch_half_fp16", &GpuSpec::mlp_batch_half_fp16, "MLP batch half"},
    {"mlp_batch_half_bf16", &GpuSpec::mlp_batch_half_bf16, "MLP batch half"},
    {"mlp_width_half_fp32", &GpuSpec::mlp_width_half_fp32, "MLP width half"},
    {"mlp_width_half_tf32", &GpuSpec::mlp_width_half_tf32, "MLP width half"},
    {"mlp_width_half_fp16", &GpuSpec::mlp_width_half_fp16, "MLP width half"},
    {"mlp_width_half_bf16", &GpuSpec::mlp_width_half_bf16, "MLP width half"},
}};

// Reports a violated invariant for the preset key `key` (a path relative to the preset root,
// e.g. "gpu.hbm_achievable_GBps" or "tiers[1].fanout").
using PresetFail =
    std::function<InputError(const std::string& key, std::string problem, std::string hint)>;

// Checks on the whole preset, in SI units: throws the first violated invariant's `fail`.
// Per-value checks (positive, ...) are repeated from the YAML readers so that presets built in
// code are held to the same rules.
void check_preset(const HardwarePreset& p, const PresetFail& fail);

}  // namespace shardsim
