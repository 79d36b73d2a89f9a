// The MPI job this process is a rank of (cli/launched_job.hpp).
#include "cli/launched_job.hpp"

#include <fmt/format.h>

#include "shardsim/core/error.hpp"
#include "shardsim/run/launch_environment.hpp"
#if SHARDSIM_MPI
#include "shardsim/mpi/mpi_transport.hpp"
#endif

namespace shardsim {

std::unique_ptr<DistributedRuns> join_launched_job(std::string_view command, bool distributes) {
  const std::optional<LaunchedRank> launched = launched_rank_from_environment();
  if (!launched) return nullptr;
  const bool alone = launched->size == 1;
  if (!distributes) {
    if (alone) return nullptr;
    throw InputError(
        SourceLocation{}, "",
        fmt::format("`shardsim {}` was started as rank {} of an MPI job ({} is set), "
                    "but it runs as one process: every rank would do the whole work",
                    command, launched->rank, launched->variable),
        "run it without mpirun/srun; `sweep`, `size` and `baseline` spread over MPI ranks");
  }
#if SHARDSIM_MPI
  return std::make_unique<DistributedRuns>(join_mpi_job());
#else
  if (alone) return nullptr;
  throw InputError(SourceLocation{}, "",
                   fmt::format("started as rank {} of an MPI job ({} is set), but this shardsim "
                               "was built without MPI",
                               launched->rank, launched->variable),
                   "install Open MPI (libopenmpi-dev openmpi-bin) and build again: CMake finds "
                   "it (README, \"MPI\"); or run without mpirun/srun");
#endif
}

}  // namespace shardsim
