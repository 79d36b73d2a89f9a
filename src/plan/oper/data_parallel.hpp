#pragma once
// OPER §4.3: data parallelism within an extra-memory budget, for inference (Algorithm 1:
// communication-oriented duplication, updating every GPU's fetch path) and for training
// (frequency-aware duplication to every GPU, Eq. 4-5).
#include <span>
#include <vector>

#include "plan/oper/oper_model.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim::oper {

// Memory each GPU may spend on replicas (Algorithm 1's Ava_Mem): OPER §6.1 gives the embedding
// tables (1 + extra_memory_ratio) × their footprint in all, so a GPU may hold
// (1 + ratio) · total_bytes / n minus what model parallelism put there (Eq. 1), and at most its
// part of the extra, ratio · total_bytes / n (so no ratio means no copies, however unevenly
// model parallelism filled the GPUs); never below 0, never more than `free_bytes` (free HBM).
std::vector<double> available_memory(std::span<const double> memory_bytes, double total_bytes,
                                     double extra_memory_ratio, std::span<const double> free_bytes);

// The order of OPER's sweep over partitions ("Par"): hottest rows first (access per row,
// descending); ties by table, then rank.
std::vector<std::size_t> sweep_order(std::span<const Partition> partitions);

// One duplication of Algorithm 1 (Lines 6-12): GPU `gpu` copies `partition`, which it fetched
// from `target`, the GPU it paid the most to fetch from.
struct DuplicationStep {
  int gpu = 0;
  int target = 0;
  std::size_t partition = 0;
};

struct InferenceDataParallel {
  Placement placement;                 // owners and every GPU's fetch path (P_k)
  std::vector<DuplicationStep> steps;  // in the order made
  std::vector<double> comm_s;          // CL after the last step, row-major n × n (Eq. 3)
  std::vector<double> available;       // Ava_Mem after the last step
};

// Algorithm 1. CL starts from Eq. 3 with every GPU fetching from the owner. While some GPU is
// not stopped, each such GPU `gid` in turn takes `tid`, the GPU other than itself with the
// highest CL[gid][tid] (ties: lower id), and scans the partitions it fetches from `tid` in sweep
// order for the first whose footprint is below its available memory (strictly, as Line 7); it
// duplicates it (fetch path gid -> gid, CL and Ava_Mem updated, Lines 9-12) and redirects every
// other GPU i whose cost L[i][gid] is below that of its current source (Lines 13-20). A GPU that
// finds no partition stops. Partitions with no remote fetcher are never candidates.
InferenceDataParallel inference_data_parallel(std::span<const Partition> partitions,
                                              std::span<const int> owner, const CostMatrix& L,
                                              std::vector<double> available);

// Eq. 4-5: a row of `row_bytes` accessed A times per GPU batch costs, not duplicated,
//   T_non-dup = 2 · A · (M−1)/M · t_P2P     (t_P2P: the mean of L[i][j] over pairs i != j)
// and duplicated on every GPU, T_dup = 2 · (M−1)/M · row_bytes / BW_AR, where BW_AR is the
// AllReduce bus bandwidth 2(M−1)/M · X / allreduce_s(all GPUs, X) of the cost model for a
// buffer of X = `sync_bytes`. Duplicating pays when A > row_bytes / (BW_AR · t_P2P), i.e.
// OPER's f > BW_P2P / (Batch · BW_AR) with BW_P2P = row_bytes / t_P2P. Returns that A; +infinity
// for one GPU or no sync buffer.
double duplication_threshold(const Cluster& cluster, const CostMatrix& L, double row_bytes,
                             double sync_bytes, const CostParams& p);

struct TrainingDataParallel {
  std::vector<Partition> partitions;  // those given, the duplicated ones cut at the threshold
  Placement placement;                // duplicated partitions: every GPU serves itself
  std::vector<bool> duplicated;       // per partition
  std::vector<double> available;      // after duplication
};

// What Eq. 4-5 decides on (planner option `duplicate`, docs/planners.md "oper"):
//   partitions  OPER §4.3 and Fig. 3c: a whole partition, when its mean access per row per GPU
//               batch exceeds the threshold (its f · Batch = access / rows, S_k = its rows)
//   hot_rows    each row on its own: the prefix of a partition's ranks whose own access
//               exceeds it, cut off into a partition of its own (what shardsim did first)
enum class DuplicationUnit { partitions, hot_rows };

// Frequency-aware data parallelism for training: in sweep order, each partition (or its hot
// prefix, by `unit`) above duplication_threshold is duplicated on every other GPU, if its
// footprint is below every other GPU's available memory; else it stays model-parallel.
// `sync_bytes` sizes BW_AR (see duplication_threshold).
TrainingDataParallel training_data_parallel(const PlanningContext& ctx,
                                            std::span<const Partition> partitions,
                                            std::span<const int> owner, const CostMatrix& L,
                                            std::vector<double> available, double sync_bytes,
                                            DuplicationUnit unit = DuplicationUnit::partitions);

}  // namespace shardsim::oper
