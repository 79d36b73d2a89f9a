#pragma once
// `shardsim collective OP [--preset P --nodes N | --scenario FILE [--set k=v]...]
//   [-b MIN -e MAX (-f FACTOR | -i STEP) | --bytes S,...] [-d TYPE] [--format text|json|csv]`:
// the cost model's prediction for one collective over the whole cluster, size by size, in the
// column layout of NVIDIA's nccl-tests (cost/collective_predictor.hpp; docs/model.md,
// "Checking the model against nccl-tests").
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace shardsim {

// An nccl-tests size: an integer with an optional K, M or G (powers of 1024, as nccl-tests
// reads them); InputError naming `flag` otherwise.
std::uint64_t parse_nccl_size(const std::string& text, const std::string& flag);
// The sizes nccl-tests would run: min, then ×factor (factor > 1) or +step (step > 0), up to max.
std::vector<std::uint64_t> nccl_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                      double factor, std::uint64_t step);

class CollectiveCommand {
 public:
  explicit CollectiveCommand(CLI::App& app);
  ~CollectiveCommand();
  CollectiveCommand(const CollectiveCommand&) = delete;
  CollectiveCommand& operator=(const CollectiveCommand&) = delete;

  bool selected() const;
  int run() const;

 private:
  struct Flags;
  std::unique_ptr<Flags> flags_;
};

}  // namespace shardsim
