#pragma once
// A hardware preset: one node type plus the network above it, loaded from
// configs/hardware/<name>.yaml (compiled in) or from a user's file.
#include <string>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/hw/gpu_spec.hpp"
#include "shardsim/hw/link_spec.hpp"

namespace shardsim {

// How a tier's switches spread flows over their equal-cost uplinks (docs/hardware.md):
//   adaptive  per packet or by load (InfiniBand adaptive routing, EFA's SRD spraying): the
//             uplinks act as one link of their summed bandwidth (max-min sharing)
//   ecmp      each flow hashed onto one uplink port (RoCE's ECMP): flows collide, and the
//             busiest port sets the pace (cost/ecmp_collisions.hpp)
enum class LoadBalancing { adaptive, ecmp };

// A switching tier above the node (rack, pod/building, ...), from the bottom up.
struct TierSpec {
  std::string name;             // "rack", "pod", ...
  int fanout = 1;               // children per switch: nodes for the first tier, groups above
  double oversubscription = 1;  // downlink bandwidth / uplink bandwidth of one switch (>= 1)
  double latency_s = 0;         // added per traversal of this tier's switch
  LoadBalancing load_balancing = LoadBalancing::adaptive;  // over this tier's uplinks
  double port_Bps = 0;  // one uplink port, per direction; 0 = the NIC's bandwidth
  // The share of this tier's uplink bandwidth that other traffic takes (other jobs, incast
  // noise): the uplinks deliver (1 - congestion_loss) of their rate to the run. 0 (an idle
  // fabric) unless the preset or an override says otherwise (docs/hardware.md, "Congestion").
  double congestion_loss = 0;
};

// The host a node's GPUs sit in, for tables kept outside HBM (FBGEMM's UVM and UVM-caching
// kernels; docs/hardware.md "host", docs/model.md "Memory tiers"). Optional in a preset: without
// it (memory_bytes_per_node == 0) no table can leave HBM.
//
// `frontend_Bps` is the node's frontend network, which delivers each batch's inputs from the
// data-ingestion service (Neo §6.2: "Data ingestion goes through the regular frontend network
// and PCIe"); 0 = not given, and then the inputs arrive for free (docs/model.md "Data
// ingestion").
struct HostSpec {
  double memory_bytes_per_node = 0;  // host DRAM usable for tables, per node
  LinkSpec link;                     // GPU <-> host (PCIe), per GPU per direction, achievable
  double frontend_Bps = 0;           // the node's frontend NICs together, per direction; 0 = none
  bool present() const { return memory_bytes_per_node > 0; }
  bool delivers_inputs() const { return frontend_Bps > 0; }
};

// The HBM a GPU keeps from tables, by part (`reserved_memory:` in a preset; docs/hardware.md,
// docs/notes/model-memory.md "Reserved memory"). A preset gives either these parts or a plain
// total (`reserved_memory_GiB`); `decomposed` says which. The total is
// HardwarePreset::reserved_memory_bytes either way.
struct ReservedMemory {
  bool decomposed = false;
  double cuda_context_bytes = 0;  // the CUDA context: driver state and loaded kernels
  double nccl_buffers_bytes = 0;  // NCCL's per-connection staging buffers
  // The PyTorch caching allocator's fragmentation (blocks cached but not reusable), as a share
  // of the GPU's HBM: [0, 1).
  double allocator_fragmentation_fraction = 0;
  double fragmentation_bytes(double hbm_capacity_bytes) const {
    return allocator_fragmentation_fraction * hbm_capacity_bytes;
  }
  double total_bytes(double hbm_capacity_bytes) const {
    return cuda_context_bytes + nccl_buffers_bytes + fragmentation_bytes(hbm_capacity_bytes);
  }
};

struct HardwarePreset {
  std::string name;
  std::string description;
  GpuSpec gpu;
  int gpus_per_node = 0;
  // Scale-up fabric (NVLink/NVSwitch, or PCIe where there is none), per GPU per direction.
  std::string scale_up_kind;  // "nvswitch", "nvlink", "pcie"
  LinkSpec scale_up;
  // Nodes sharing one scale-up domain (1 for a DGX; 18 for a GB200 NVL72 rack modelled as its
  // 4-GPU trays, which the built-in gb200-nvl72 instead makes one node of 72 GPUs). Never assume
  // "NVLink = one node".
  int scale_up_domain_nodes = 1;
  // Scale-out NICs of one node; GPUs share them evenly.
  int nics_per_node = 0;
  LinkSpec nic;  // per NIC per direction: the line rate
  // `nic.efficiency` (docs/hardware.md): the share of the line rate the NIC's links carry, where
  // a fabric was measured below the model (zionex: Neo App. B). 1 = the line rate.
  double nic_efficiency = 1;
  double nic_delivered_Bps() const { return nic.bandwidth_Bps * nic_efficiency; }
  // `scale_out_layout` (docs/hardware.md): false = top_of_rack (every NIC of a node on its
  // tier-0 switch); true = rail_optimized (NIC i of every node of a tier-0 group on that group's
  // rail switch i; traffic for another rail crosses NVLink first, NCCL's PXN).
  bool rail_optimized = false;
  std::vector<TierSpec> tiers;       // bottom (rack) to top
  double reserved_memory_bytes = 0;  // framework/runtime memory per GPU not available to tables
  ReservedMemory reserved;           // its parts, where the preset gives them (reserved_memory:)
  HostSpec host;                     // optional: host memory and the GPUs' links to it
  // `nccl_protocol: simple` (docs/hardware.md): the cluster's network plugin restricts NCCL to
  // the Simple protocol, as it would set NCCL_PROTO=simple (aws-ofi-nccl on p4d/p4de, whose EFA
  // does not deliver bytes in order, which LL and LL128 need). A run's own
  // cost.nccl_protocol still wins, as a user's NCCL_PROTO does. Default `auto`: no restriction.
  bool network_forces_simple_protocol = false;
  std::string source_file;  // where it was loaded from, for messages
};

// Loads and validates a preset from YAML (schema: configs/hardware/dgx-a100.yaml,
// docs/hardware.md). Messages name root.file() and the key path under root.path().
HardwarePreset parse_hardware_preset(const YamlValue& root);

// The built-in preset names (from configs/hardware/, compiled in), sorted.
std::vector<std::string> builtin_preset_names();
// A built-in preset by name; an unknown name is an InputError with a "did you mean".
// `where` locates the reference (e.g. the scenario's `cluster.preset`) for the message.
HardwarePreset builtin_preset(const std::string& name, const SourceLocation& where = {},
                              const std::string& key = "cluster.preset");
// The content hash of a built-in preset's YAML (yaml_content_hash; a report's InputHashes).
// Both are computed once a process.
std::string builtin_preset_content_hash(const std::string& name, const SourceLocation& where = {},
                                        const std::string& key = "cluster.preset");

// Applies `cluster.overrides` (same keys as a preset file, any subset) on top of a preset.
// Maps (`gpu`, `scale_up`, `nic`) merge key by key; a `tiers` list replaces the whole list.
// The result is re-validated as a whole (e.g. achievable <= peak HBM bandwidth).
HardwarePreset apply_preset_overrides(HardwarePreset preset, const YamlValue& overrides);

// Loads a user's preset file (same schema as configs/hardware/*.yaml).
HardwarePreset load_hardware_preset_file(const std::string& path);

// Checks the invariants every preset must satisfy (positive bandwidths, efficiencies in (0, 1],
// nics_per_node and gpus_per_node dividing one another, at least one tier, ...) on a preset
// built in code. An InputError names the preset's file and the YAML key (e.g. `gpu.l2_MiB`).
// Presets from parse_hardware_preset / apply_preset_overrides are already checked.
void validate_hardware_preset(const HardwarePreset& preset);

}  // namespace shardsim
