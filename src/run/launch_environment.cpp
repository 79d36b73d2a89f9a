// Whether an MPI launcher started this process (run/launch_environment.hpp).
#include "shardsim/run/launch_environment.hpp"

#include <cstdlib>

namespace shardsim {

namespace {
std::optional<int> int_variable(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > 1 << 30) return std::nullopt;
  return static_cast<int>(n);
}
}  // namespace

std::optional<LaunchedRank> launched_rank_from_environment() {
  struct Pair {
    const char* rank;
    const char* size;
  };
  for (const Pair p : {Pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                       Pair{"PMI_RANK", "PMI_SIZE"}, Pair{"PMIX_RANK", "SLURM_NTASKS"}}) {
    const std::optional<int> rank = int_variable(p.rank);
    if (!rank) continue;
    return LaunchedRank{*rank, int_variable(p.size).value_or(0), p.rank};
  }
  return std::nullopt;
}

}  // namespace shardsim
