#include "shardsim/sim/simulation_options.hpp"

namespace shardsim {

std::string to_string(InputAlltoall m) {
  switch (m) {
    case InputAlltoall::none:
      return "none";
    case InputAlltoall::serial:
      return "serial";
    case InputAlltoall::overlapped:
      return "overlapped";
  }
  return "?";
}

std::string to_string(PooledAlltoall m) {
  switch (m) {
    case PooledAlltoall::serial:
      return "serial";
    case PooledAlltoall::overlapped:
      return "overlapped";
  }
  return "?";
}

}  // namespace shardsim
