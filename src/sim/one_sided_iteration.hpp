#pragma once
// The durations of one iteration of a one-sided plan (Plan::lookup_comm == one_sided, OPER §5),
// for the iteration builder: each GPU's all-in-one lookup kernel (local lookups overlapped with
// the one-sided gets of remote rows, §5.2), its update kernel, and the one-sided puts of the
// gradients of fetched rows. The builder issues them with the usual tasks: the kernel as
// `embedding_lookup_fwd` (no forward AlltoAll), the puts as the `alltoall_bwd` collective (every
// holder waits for every requester's gradients before its update). Formulas:
// cost/one_sided_cost.hpp; traffic: plan/one_sided_traffic.hpp.
#include <vector>

#include "shardsim/plan/one_sided_traffic.hpp"
#include "shardsim/sim/simulation_inputs.hpp"

namespace shardsim {

struct OneSidedIteration {
  std::vector<double> lookup_fwd_s;    // per GPU: overlapped lookup kernel (with launch)
  std::vector<double> update_bwd_s;    // per GPU: fused backward + optimizer (training)
  std::vector<double> lookups_served;  // per GPU: lookups landing on its rows (OPER Eq. 2)
  double puts_s = 0;                   // the slowest GPU's puts (training)
  double puts_bytes = 0;               // all puts' bytes
};

// `traffic`: the iteration's (plan/one_sided_traffic.hpp), from its drawn lookups; `times`: its
// transfer times (one_sided_transfer_times).
OneSidedIteration one_sided_iteration(const SimulationInputs& in, const OneSidedTraffic& traffic,
                                      const OneSidedTransferTimes& times);

}  // namespace shardsim
