#pragma once
// The closed forms of the 2D paper §5 for its two overheads of M table replicas over T GPUs
// (S: the bytes of all embedding tables). Pure functions. The simulator does not use them to
// time anything: the engine runs the replica sync as real AllReduces over the peers of every
// shard (plan/replica_sync.hpp); these are the paper's estimates, reported beside the simulated
// sync (docs/report.md, `replica_sync`) and checked against it in tests.
namespace shardsim {

// §5 "Table Replication Memory Overhead": M_overhead = S(M−1)/T bytes per GPU, compared with
// full model parallelism (S/T per GPU): each GPU holds S/N = S·M/T.
double replica_memory_overhead_bytes(double table_bytes, int groups, int gpus);

// §5 Eq. 1: L_sync = 2S(M−1)/(T·B_sync) = 2·M_overhead / B_sync, the per-rank time of a ring
// AllReduce of each GPU's S/N bytes over its M peers at bandwidth B_sync (bytes per second, per
// direction). Latencies and launches are not in the formula.
double replica_sync_eq1_s(double table_bytes, int groups, int gpus, double sync_Bps);

}  // namespace shardsim
