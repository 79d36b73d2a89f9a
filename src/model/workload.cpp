#include "shardsim/model/workload.hpp"

namespace shardsim {

std::string to_string(Mode m) {
  switch (m) {
    case Mode::training:
      return "training";
    case Mode::inference:
      return "inference";
  }
  return "?";
}

std::string to_string(HotRowLayout l) {
  switch (l) {
    case HotRowLayout::clustered:
      return "clustered";
    case HotRowLayout::scattered:
      return "scattered";
  }
  return "?";
}

std::string to_string(TraceMode m) {
  switch (m) {
    case TraceMode::expected:
      return "expected";
    case TraceMode::sampled:
      return "sampled";
  }
  return "?";
}

}  // namespace shardsim
