#pragma once
// The shapes of the ring collectives before the collective model prices them (internal to
// src/cost/; ring_collective_cost.cpp builds them, collective_terms.cpp takes them apart).
#include <span>
#include <vector>

#include "cost/collective_shape.hpp"

namespace shardsim::cost_detail {

// `phases` passes of a ring over `gpus` (2: AllReduce, 1: ReduceScatter or AllGather), one ring
// per rail over several scale-up domains.
CollectiveShape flat_ring(const Cluster& cluster, std::span<const int> gpus, double bytes,
                          int phases, const CostParams& p, FlowGranularity granularity);

// The shapes an AllReduce can take under p.collective_model: the rail rings, and the
// hierarchical ring (ideal) or NCCL's tree (nccl) where the GPUs span several domains with two
// or more in one.
std::vector<CollectiveShape> allreduce_shapes(const Cluster& cluster, std::span<const int> gpus,
                                              double bytes, const CostParams& p,
                                              FlowGranularity granularity);

}  // namespace shardsim::cost_detail
