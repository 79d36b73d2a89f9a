#pragma once
// One collective's idle-network time taken apart into the terms the collective model prices
// (docs/model.md, "Collective models"), so that it can be re-priced under other cost
// parameters in microseconds instead of rebuilt: what calibration (cost/calibration.hpp) does
// thousands of times per fit. price(collective_terms(c, op, S, p), q) is predict_collective's
// time under q, for any q of the same collective model (up to rounding), except sendrecv, whose
// point-to-point time is not re-priced (its terms hold it fixed).
#include <utility>
#include <vector>

#include "shardsim/cost/collective_predictor.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

struct StageTerms {
  double route_latency_s = 0;    // the ideal model's α terms of the stage
  double steps_scale_up = 0;     // NCCL's steps inside a scale-up domain
  double steps_scale_out = 0;    // and across domains
  double scale_out_route_s = 0;  // route latency of a step across domains
  double link_s = 0;             // max over links of bytes / bandwidth (efficiency 1)
};

// Which of NCCL's algorithms a shape of a ring collective stands for: tuning.cc refines the
// AllReduce's ring and tree (their own latencies, the tree's size correction, the ring's
// plateau; docs/model.md "Collective models").
enum class ShapeAlgorithm { ring, ring_allreduce, tree_allreduce };

// One shape (algorithm variant) of a ring collective: its stages and what tuning.cc's
// refinements need (cost/collective_shape.hpp, ShapeFacts).
struct ShapeTerms {
  ShapeAlgorithm algorithm = ShapeAlgorithm::ring;
  double payload_bytes = 0;
  int ranks = 0;
  std::vector<StageTerms> stages;
};

struct CollectiveTerms {
  CollectiveModelKind model = CollectiveModelKind::nccl;
  double kernel_launch_s = 0;
  // A ring collective: its shapes (variants), each a list of stages; the time is the fastest
  // shape (under nccl: the fastest shape and protocol). Empty: nothing to move, free.
  std::vector<ShapeTerms> shapes;
  // AlltoAll: one shape, no protocol choice; under nccl, the worst participant's peers, as
  // (peers in its domain, peers outside) for each distinct domain population.
  bool per_peer = false;
  std::vector<std::pair<double, double>> peer_counts;
  // sendrecv: the time, held fixed.
  bool fixed = false;
  double fixed_s = 0;
  // Participants, for the tail factor (nccl model).
  int participants = 0;
  // The protocols the run allowed (p.nccl_protocol when taken apart; NCCL_PROTO): a point keeps
  // its own when a fit re-prices it under other parameters.
  NcclProtocolChoice protocol = NcclProtocolChoice::any;
};

// The terms of `op` over all GPUs of `cluster` for nccl-tests' size `size_bytes` under p's
// collective model, algorithm and protocol choices (the other parameters only decide
// sendrecv's fixed time).
CollectiveTerms collective_terms(const Cluster& cluster, CollectiveOp op, double size_bytes,
                                 const CostParams& p);

// The time of `terms` under `p`; std::invalid_argument if p's collective model is not the one
// the terms were taken under.
double price(const CollectiveTerms& terms, const CostParams& p);

}  // namespace shardsim
