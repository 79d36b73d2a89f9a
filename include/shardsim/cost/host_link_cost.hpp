#pragma once
// Time on a GPU's link to host memory (PCIe; HardwarePreset::host), for shards kept in host
// memory (docs/model.md, "Memory tiers"). Pure function. The link is full duplex: reads
// (host -> GPU) and writes (GPU -> host) of one kernel overlap, and the slower direction sets
// the time, plus one link latency when anything moves. No bytes cost nothing.
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim {

double host_link_s(double h2d_bytes, double d2h_bytes, const HostSpec& host);

// UVM page faults (CostParams::uvm_fault_*; docs/notes/model-memory.md "UVM page faults").
// The expected host pages that `rows_touched` distinct rows, drawn uniformly from a shard of
// `shard_rows` rows of `row_bytes` each laid out densely in pages of `page_bytes`, touch:
//   row_bytes >= page_bytes: rows_touched x ceil(row_bytes / page_bytes) (rows share no page)
//   otherwise: P (1 - (1 - 1/P)^rows_touched), P = ceil(shard_rows / floor(page / row)) pages
double uvm_pages_touched(double rows_touched, double shard_rows, double row_bytes,
                         double page_bytes);
// The time the driver takes to service `faults` faults: faults / uvm_fault_batch_count x
// uvm_fault_batch_s (expected value: a fraction of a batch costs its share).
double uvm_fault_s(double faults, const CostParams& cost);

}  // namespace shardsim
