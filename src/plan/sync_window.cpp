// The measured window against the 2D replica sync's interval (plan/sync_window.hpp).
#include "shardsim/plan/sync_window.hpp"

#include <fmt/format.h>

namespace shardsim {

void check_sync_window(const PeerSync& sync, std::size_t groups, const Workload& workload,
                       const SourceLocation& where, const std::string& key) {
  if (groups < 2 || workload.mode != Mode::training) return;
  // Longer than the window, no measured iteration pays a sync; a window of part intervals holds
  // more or fewer syncs than its share (6 iterations of an interval of 4 hold 1 sync, or 2, for
  // a share of 1.5).
  const int interval = sync.interval;
  const int measured = workload.iterations;
  if (interval <= 0 || measured % interval == 0) return;
  int syncing = 0;
  for (int k = workload.warmup; k < workload.warmup + measured; ++k) {
    syncing += sync.syncs_after(k) ? 1 : 0;
  }
  const std::string problem =
      syncing == 0 ? fmt::format(
                         "sync_interval {} is longer than the {} measured iterations (iterations "
                         "{}, warm-up {}): no measured iteration pays the replica sync, so the "
                         "QPS would omit its cost",
                         interval, measured, workload.iterations, workload.warmup)
                   : fmt::format(
                         "the {} measured iterations (iterations {}, warm-up {}) are not whole "
                         "sync intervals of {}: they hold {} sync(s) where their share is {:.4g}, "
                         "so the QPS would misstate the sync's cost",
                         measured, workload.iterations, workload.warmup, interval, syncing,
                         static_cast<double>(measured) / interval);
  const int whole = (measured + interval - 1) / interval * interval;
  throw InputError(where, key, problem,
                   fmt::format("measure whole intervals: --iterations {} (a multiple of {}), or "
                               "a sync_interval that divides the iterations",
                               whole, interval));
}

void check_sync_window(const Plan& plan, const Workload& workload, const std::string& source) {
  check_sync_window(plan.peer_sync, plan.groups.size(), workload, SourceLocation{source},
                    "placement.options.sync_interval");
}

}  // namespace shardsim
