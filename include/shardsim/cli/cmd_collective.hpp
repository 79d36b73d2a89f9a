#pragma once
// `shardsim collective OP [--preset P --nodes N | --scenario FILE [--set k=v]...]
//   [-b MIN -e MAX (-f FACTOR | -i STEP) | --bytes S,...] [-d TYPE] [--format text|json|csv]`:
// the cost model's prediction for one collective over the whole cluster, size by size, in the
// column layout of NVIDIA's nccl-tests (cost/collective_predictor.hpp; docs/model.md,
// "Checking the model against nccl-tests").
#include <cstdint>
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

// What the command line says; filled by add_collective_command's options.
struct CollectiveFlags {
  CLI::App* cmd = nullptr;  // the subcommand, to ask whether it was given
  std::string op;
  std::string preset;
  int nodes = 1;
  std::string scenario;
  std::vector<std::string> sets;
  std::string min_bytes = "8";
  std::string max_bytes = "128M";
  double factor = 2;
  std::string step;
  std::vector<std::string> bytes;
  std::string type = "float";
  std::string format = "text";
  bool quiet = false;
};

// Registers `collective` and its options on `app`, writing into `flags` (which must outlive it).
void add_collective_command(CLI::App& app, CollectiveFlags& flags);
// Runs it after parsing: prints the table and returns 0; bad input throws InputError.
int run_collective_command(const CollectiveFlags& flags);

}  // namespace shardsim
