#pragma once
// The MPI job this process is a rank of, when a launcher (mpirun, srun) started it
// (docs/distributed.md). `sweep`, `size` and `baseline` spread their runs over the ranks; any other
// command launched on more than one rank is refused (each rank would do the whole work), as is a
// launch on several ranks of a shardsim built without MPI.
#include <memory>
#include <string_view>

#include "shardsim/run/distributed_runs.hpp"

namespace shardsim {

// Null when no launcher started this process, or when one started it alone (-n 1) and the
// command does not distribute or this build has no MPI: it then runs as one process.
std::unique_ptr<DistributedRuns> join_launched_job(std::string_view command, bool distributes);

}  // namespace shardsim
