#pragma once
// Parameters of the cost model that are not hardware facts: calibration constants and labelled
// guesses. Loaded from configs/cost/default.yaml (compiled in); a scenario may override any
// of them under `cost:`. Each field's source or "GUESS" label is in that file, and each formula
// that uses them is in docs/model.md. The defaults below mirror that file; the file wins.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

// Which collective model prices collectives (docs/model.md, "Collective models"):
//   ideal  α-β over the topology: route latencies and one bandwidth efficiency (a lower bound)
//   nccl   NCCL's own cost model: the fastest of its protocols (LL, LL128, Simple) per
//          collective, each with a base latency, a latency per algorithm step by link class and
//          a bandwidth fraction; AlltoAll pays a cost per peer
enum class CollectiveModelKind : std::uint8_t { ideal, nccl };
// How the host launches an iteration's kernels: one by one from the framework (eager), or as
// one captured CUDA graph.
enum class HostLaunchMode : std::uint8_t { eager, cuda_graphs };
// What a run forces on NCCL, as NCCL_ALGO and NCCL_PROTO do (nccl model): `any` lets the model
// take the fastest, as NCCL's tuner does.
enum class NcclAlgorithm : std::uint8_t { any, ring, tree };
enum class NcclProtocolChoice : std::uint8_t { any, ll, ll128, simple };

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
  // Bytes of index traffic per lookup in the backward that do not depend on the key bits:
  // linearise the indices, the sort's fixed work per lookup, segment. Fitted to cub's sort on an
  // H100 (docs/validation/kernels.md, "The backward's sort").
  double backward_index_bytes_per_lookup = 36;
  // Bytes per lookup of each radix pass of the backward's sort (key + position read and
  // written); the passes are ceil(key bits / backward_sort_radix_bits), the key bits those of
  // the rows the GPU's fused kernel holds (FBGEMM's total_hash_size_bits). Fitted with the above.
  double backward_sort_pass_bytes_per_lookup = 35;
  // Key bits the sort resolves per pass (cub's onesweep digit: the measured steps).
  int backward_sort_radix_bits = 8;
  // Kernel launches of one embedding forward (fused TBE: one for all tables of a GPU, Neo §5.1).
  int kernels_per_embedding_op = 1;
  // Kernel launches of one fused embedding backward + optimizer (sort, segment, update): the
  // backward's fixed time in launches. Fitted with the bytes above.
  int kernels_per_embedding_backward = 20;
  // HBM efficiency of the embedding kernels (docs/model.md, "Embedding kernel efficiency"): the
  // kernels move their bytes at hbm_achievable_Bps · η, η = η_max · η_dim · η_pool · η_distinct
  // per shard and η_tables per fused kernel. Every default is neutral (η = 1); `shardsim
  // calibrate --kernels` fits them to FBGEMM benchmark output.
  double kernel_hbm_efficiency = 1.0;  // η_max, (0, 1]
  double kernel_dim_half_cols = 0;     // η_dim = c / (c + this); 0: off
  double kernel_pooling_half = 0;      // η_pool = P / (P + this), P = lookups per bag; 0: off
  double kernel_distinct_penalty = 0;  // η_distinct = 1 / (1 + this · D/L); 0: off
  double kernel_tables_half = 0;       // η_tables = T / (T + this), T tables fused; 0: off

  // --- Dense kernels ---
  // The dot interaction runs at this fraction of the achievable HBM bandwidth (fitted, H100).
  double interaction_hbm_efficiency = 0.14;
  // The layer width an opaque dense arch's GEMMs are priced at, for gpu.mlp_width_half. GUESS.
  double dense_arch_layer_width = 3072;

  // --- Collectives (α-β) ---
  // Fraction of link bandwidth a collective achieves (protocol overheads). GUESS.
  double collective_bandwidth_efficiency = 0.85;
  // Base latency of launching one collective (software), on top of the route latency. GUESS.
  double collective_launch_s = 10e-6;
  // Message size at which a point-to-point transfer reaches half the link bandwidth (Hockney's
  // n½), inside a scale-up domain and across NICs. GUESS.
  double small_message_half_bytes_scale_up = 512;
  double small_message_half_bytes_scale_out = 4096;

  // --- The nccl collective model (NCCL src/graph/tuning.cc's numbers; configs/cost/default.yaml)
  CollectiveModelKind collective_model = CollectiveModelKind::nccl;
  // Per protocol (LL, LL128, Simple): a base latency per collective (on top of the GPU's kernel
  // launch), a latency per algorithm step inside a scale-up domain and across it, and the
  // fraction of the bandwidth the protocol achieves.
  double nccl_ll_base_latency_s = 3.6e-6;
  double nccl_ll128_base_latency_s = 10.0e-6;
  double nccl_simple_base_latency_s = 8.4e-6;
  double nccl_ll_scale_up_step_s = 0.47e-6;
  double nccl_ll128_scale_up_step_s = 1.9e-6;
  double nccl_simple_scale_up_step_s = 3.4e-6;
  double nccl_ll_scale_out_step_s = 2.7e-6;
  double nccl_ll128_scale_out_step_s = 4.0e-6;
  double nccl_simple_scale_out_step_s = 9.6e-6;
  double nccl_ll_bandwidth_fraction = 0.25;
  double nccl_ll128_bandwidth_fraction = 0.92;
  double nccl_simple_bandwidth_fraction = 1.0;
  // LL's scale-up step latency is this many times longer when the collective spans several
  // scale-up domains (tuning.cc: intraLat *= 1.8 for LL when nNodes > 1).
  double nccl_ll_multi_domain_scale_up_factor = 1.8;
  // NCCL's tree AllReduce has latencies of its own (tuning.cc's Tree rows of baseLat and
  // hwLat), per protocol: base, step inside a scale-up domain, step across domains.
  double nccl_tree_ll_base_latency_s = 4.4e-6;
  double nccl_tree_ll128_base_latency_s = 4.4e-6;
  double nccl_tree_simple_base_latency_s = 0;
  double nccl_tree_ll_scale_up_step_s = 0.52e-6;
  double nccl_tree_ll128_scale_up_step_s = 1.2e-6;
  double nccl_tree_simple_scale_up_step_s = 28e-6;
  double nccl_tree_ll_scale_out_step_s = 5.0e-6;
  double nccl_tree_ll128_scale_out_step_s = 8.5e-6;
  double nccl_tree_simple_scale_out_step_s = 50e-6;
  // tuning.cc's per-size correction of the tree AllReduce's bandwidth (treeCorrectionFactor,
  // "trees are not perfectly sticking to the model for medium sizes"); false: none.
  bool nccl_tree_size_correction = true;
  // tuning.cc's "plateau effect of ring": a Simple ring AllReduce across nodes of at least
  // nRanks/16 * 64 KiB takes this many times its latency; 1: none.
  double nccl_simple_ring_plateau_factor = 1.9;
  // AlltoAll: the cost of each peer's send/receive pair, inside the domain and across it. GUESS.
  double alltoall_peer_scale_up_s = 0.5e-6;
  double alltoall_peer_scale_out_s = 2.7e-6;
  // AlltoAll whose participants span scale-up domains: its network messages go through NCCL's
  // proxy with the Simple protocol (p2p network connections have no LL buffers by default), once
  // per AlltoAll: Simple's base latency + one Simple network step of tuning.cc (8.4 + 9.6 us).
  double alltoall_scale_out_latency_s = 18.0e-6;
  // Each participant's lognormal finishing factor (mean 1); a collective ends with the slowest
  // (cost/collective_tail.hpp). GUESS.
  double collective_jitter_cv = 0.02;
  // Flows (queue pairs) per connection between two GPUs across the network, what an ECMP tier
  // hashes (cost/ecmp_collisions.hpp): NCCL_NCHANNELS_PER_NET_PEER (2) x
  // NCCL_IB_QPS_PER_CONNECTION (1), NCCL's defaults.
  int ecmp_flows_per_connection = 2;
  // `simulation.link_sharing: interference` only: a link that k > 1 collectives share delivers
  // 1 - interference_loss x (1 - 1/k) of its capacity (sim/fair_share_network.hpp). GUESS.
  double interference_loss = 0.3;
  // NCCL_ALGO / NCCL_PROTO of the run (AllReduce algorithm; protocol of every ring and tree
  // collective): `auto` in YAML (any) lets the model pick the fastest.
  NcclAlgorithm nccl_algorithm = NcclAlgorithm::any;
  NcclProtocolChoice nccl_protocol = NcclProtocolChoice::any;

  // --- One-sided gets and puts of single rows (OPER §5; docs/model.md) ---
  // Fraction of link bandwidth fine-grained one-sided transfers achieve. GUESS.
  double one_sided_bandwidth_efficiency = 0.85;
  // Per-row overhead of a get or put inside the scale-up domain (issue rate of the GPU's
  // load/store path), on top of bytes / bandwidth. GUESS.
  double one_sided_scale_up_overhead_s = 0.1e-9;
  // Per-row overhead of a get or put through the NIC (message rate): why fine-grained
  // inter-node traffic misses peak bandwidth (OPER §6.2). GUESS.
  double one_sided_scale_out_overhead_s = 5e-9;
  // Fraction of the shorter of (local lookups, remote gets) hidden behind the longer one in
  // OPER's all-in-one lookup kernel (§5.2 local-remote overlapping). GUESS.
  double one_sided_overlap_fraction = 0.8;

  // --- The host (docs/model.md, "Host overhead") ---
  HostLaunchMode host_launch_mode = HostLaunchMode::eager;
  // Which profile of configs/host/frameworks.yaml says what the host issues per iteration:
  // "auto" (oper for one-sided plans, torchrec otherwise) or a profile's name.
  std::string host_framework = "auto";
  // The host's time per iteration, per GPU process, eager (cost/host_step_cost.hpp):
  //   host_eager_step_s + embedding ops · host_embedding_op_s
  //   + collective calls · host_collective_call_s + their peers · host_collective_peer_s.
  // The first two are fitted to eager PyTorch steps on H100 machines (one EmbeddingBag vs 26);
  // the call cost is a GUESS; the per-peer cost is off (a mechanism without a sourced value).
  double host_eager_step_s = 2.57e-3;
  // In inference the fixed step is the forward's, fitted to NVIDIA's DLRM inference latencies
  // on a DGX A100 (tests/data/inference/points.csv, CUDA graphs off):
  // their host-bound mean, 0.435 ms, less one fused embedding op at host_embedding_op_s.
  double host_eager_inference_step_s = 0.268e-3;
  double host_embedding_op_s = 167e-6;
  double host_collective_call_s = 20e-6;
  double host_collective_peer_s = 0;
  // PyTorch DDP's gradient bucket (bucket_cap_mb = 25): one AllReduce call per bucket.
  double ddp_bucket_bytes = 26214400;
  // With CUDA graphs: the whole step replayed by one launch (GUESS).
  double host_graph_iteration_s = 50e-6;

  // --- UVM page faults (docs/model.md, "Memory tiers"; docs/notes/model-memory.md) ---
  // Where a shard in host memory is reached by demand paging rather than mapped reads, each
  // host page its fetched rows touch faults once an iteration, and the driver services the
  // faults in batches: time = faults / uvm_fault_batch_count x uvm_fault_batch_s, added to the
  // GPU's forward host-link time. uvm_fault_batch_s = 0 (the default) turns it off.
  double uvm_fault_batch_s = 0;        // one serviced batch of faults (off: no sourced value)
  double uvm_fault_batch_count = 256;  // nvidia-uvm's uvm_perf_fault_batch_count default
  double uvm_page_bytes = 4096;        // the host page a fault maps (x86-64 base page)
};

// The CostParams field names, in configs/cost/default.yaml order (the keys of a `cost:` map).
std::vector<std::string> cost_param_names();

// configs/cost/default.yaml, compiled in; every field must be present. Parsed once.
CostParams default_cost_params();
// Applies the keys present in `node` (a map with CostParams field names, any subset) over
// `base`. `file: PATH` (relative to the file that holds `node`) applies a cost file's keys
// first, e.g. one `shardsim calibrate --out` wrote; the map's other keys override them. An unknown
// key (with a "did you mean"), a non-numeric or out-of-range value is an InputError naming the key.
// A null node (`cost:` with nothing under it) changes nothing.
CostParams apply_cost_overrides(CostParams base, const YamlValue& node);

// The path a `cost: {file: PATH}` value names: relative to the file it is written in.
std::string cost_file_path(const YamlValue& file_value);

// The value of a numeric CostParams field by its name (std::invalid_argument otherwise).
double cost_param_value(const CostParams& p, std::string_view name);

}  // namespace shardsim
