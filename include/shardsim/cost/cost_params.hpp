#pragma once
// Parameters of the cost model that are not hardware facts: calibration constants and labelled
// guesses. Loaded from configs/cost/default.yaml (compiled in); a scenario may override any
// of them under `cost:`. Each field's source or "GUESS" label is in that file, and each formula
// that uses them is in docs/model.md. The defaults below mirror that file; the file wins.
#include <string>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

struct CostParams {
  // --- Embedding kernels (roofline over HBM bytes) ---
  // Fraction of the repeated lookups of an already-touched row in one batch (and of the repeated
  // reads of one bag's output gradient in the backward) that still go to HBM; the rest hit
  // L2/registers. 1 = no reuse benefit. GUESS.
  double repeat_lookup_hbm_fraction = 0.25;
  // Bytes of index data read per lookup in the forward (int64 indices, FBGEMM TBE).
  double index_bytes_per_lookup = 8;
  // Bytes of offset data read per pooled output (one int64 offset per bag).
  double offset_bytes_per_output = 8;
  // Bytes of index traffic per lookup in the backward: linearise, sort by row (radix passes over
  // key + position) and segment, before the fused backward-optimizer kernel. GUESS.
  double backward_index_bytes_per_lookup = 32;
  // Kernel launches of one embedding forward (fused TBE: one for all tables of a GPU, Neo §5.1).
  int kernels_per_embedding_op = 1;
  // Kernel launches of one fused embedding backward + optimizer (sort, segment, update). GUESS.
  int kernels_per_embedding_backward = 4;

  // --- Dense kernels ---
  // The dot interaction runs at this fraction of the achievable HBM bandwidth. GUESS.
  double interaction_hbm_efficiency = 0.5;

  // --- Collectives (α-β) ---
  // Fraction of link bandwidth a collective achieves (protocol overheads). GUESS.
  double collective_bandwidth_efficiency = 0.85;
  // Base latency of launching one collective (software), on top of the route latency. GUESS.
  double collective_launch_s = 10e-6;
  // Message size at which a point-to-point transfer or one-sided get reaches half the link
  // bandwidth (Hockney's n½), inside a scale-up domain and across NICs. GUESS.
  double small_message_half_bytes_scale_up = 512;
  double small_message_half_bytes_scale_out = 4096;
};

// The CostParams field names, in configs/cost/default.yaml order (the keys of a `cost:` map).
std::vector<std::string> cost_param_names();

// configs/cost/default.yaml, compiled in; every field must be present. Parsed once.
CostParams default_cost_params();
// Applies the keys present in `node` (a map with CostParams field names, any subset) over
// `base`. An unknown key (with a "did you mean"), a non-numeric or out-of-range value is an
// InputError naming the key. A null node (`cost:` with nothing under it) changes nothing.
CostParams apply_cost_overrides(CostParams base, const YamlValue& node);

}  // namespace shardsim
