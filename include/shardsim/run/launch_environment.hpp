#pragma once
// Whether an MPI launcher started this process (docs/distributed.md), read from the variables
// launchers set before MPI is initialised: Open MPI's mpirun (OMPI_COMM_WORLD_RANK/SIZE), Hydra
// and Slurm's PMI-2 (PMI_RANK/SIZE), PMIx (PMIX_RANK; the size from Slurm's SLURM_NTASKS).
// Without them shardsim runs as one process and never touches MPI.
#include <optional>
#include <string>

namespace shardsim {

struct LaunchedRank {
  int rank = 0;
  int size = 0;          // 0: the launcher does not say before MPI starts
  std::string variable;  // the variable that told (for messages)
};

std::optional<LaunchedRank> launched_rank_from_environment();

}  // namespace shardsim
