#pragma once
// What the cost model predicts for one collective over every GPU of a cluster, in the terms of
// NVIDIA's nccl-tests (its doc/PERFORMANCE.md), so that a user can hold the model against their
// own `all_reduce_perf` / `alltoall_perf` / ... output (`shardsim collective`, docs/model.md).
//
// `size` is nccl-tests' size column: the bytes of each rank's buffer —
//   allreduce       each rank's input and output (S)
//   allgather       each rank's output (S; each rank contributes S / n)
//   reduce_scatter  each rank's input (S; each rank keeps S / n)
//   alltoall        each rank's input (S; S / n to every rank, itself included)
//   sendrecv        what each rank sends to the next rank (and receives from the previous)
// algbw = S / time and busbw = algbw · factor, with nccl-tests' factors: 2(n−1)/n for allreduce,
// (n−1)/n for allgather, reduce_scatter and alltoall, 1 for sendrecv.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

enum class CollectiveOp { allreduce, allgather, reduce_scatter, alltoall, sendrecv };

// The names, in the order above ("allreduce", ...).
const std::vector<std::string>& collective_op_names();
std::optional<CollectiveOp> collective_op_named(std::string_view name);
std::string_view to_string(CollectiveOp op);

// nccl-tests' bus-bandwidth factor for `ranks` ranks.
double busbw_factor(CollectiveOp op, int ranks);
// The reduction nccl-tests prints ("sum" or "none").
std::string_view redop_of(CollectiveOp op);
// nccl-tests' count column for a buffer of `size_bytes` of `element_bytes` elements: per rank
// for allreduce and sendrecv, per rank and peer for the others (size / element / ranks).
double element_count(CollectiveOp op, double size_bytes, double element_bytes, int ranks);

// nccl-tests' AlltoAll of `size_bytes` per rank: size / n from every rank to every other rank
// (its own share stays local), by level.
LevelTraffic uniform_alltoall_traffic(const Cluster& cluster, double size_bytes);

struct CollectivePrediction {
  double size_bytes = 0;
  double time_s = 0;
  double algbw_Bps = 0;
  double busbw_Bps = 0;
};

// The op over all GPUs of `cluster` on an idle network (the α-β collectives of docs/model.md:
// allreduce_s, allgather_s, reduce_scatter_s, alltoallv_s of a uniform matrix, and for sendrecv
// the slowest rank's p2p_s to the next rank as one message). std::invalid_argument for a
// negative or non-finite size.
CollectivePrediction predict_collective(const Cluster& cluster, CollectiveOp op, double size_bytes,
                                        const CostParams& p);

}  // namespace shardsim
