#pragma once
// `shardsim collective OP [--preset P --nodes N | --scenario FILE [--set k=v]...]
//   [-b MIN -e MAX (-f FACTOR | -i STEP) | --bytes S,...] [-d TYPE] [-o REDOP] [-g G] [-n N]
//   [-w W] [--format text|json|csv]`:
// the cost model's prediction for one collective over the whole cluster, size by size, as
// NVIDIA's nccl-tests prints it: its header lines, out-of-place and in-place columns (the same
// times: the model has no in-place difference; #wrong 0) and the `# Avg bus bandwidth` footer,
// the mean busbw of every row of both groups as nccl-tests' src/common.cu averages it
// (cost/collective_predictor.hpp; docs/validation/collectives.md, "shardsim collective").
// -o, -g, -n and -w are nccl-tests' flags, accepted so that its command lines run; they change
// no time (a model has no iterations, and the rank count is the cluster's): -o names the redop
// column of allreduce and reduce_scatter, -g, -n and -w the header line.
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
  std::string redop = "sum";  // -o: printed for allreduce and reduce_scatter, "none" otherwise
  int gpus_per_thread = 1;    // -g: printed in the header only
  int iters = 20;             // -n: printed in the header only
  int warmup_iters = 1;       // -w: printed in the header only
  std::string format = "text";
  bool quiet = false;
};

// Registers `collective` and its options on `app`, writing into `flags` (which must outlive it).
void add_collective_command(CLI::App& app, CollectiveFlags& flags);
// Runs it after parsing: prints the table and returns 0; bad input throws InputError.
int run_collective_command(const CollectiveFlags& flags);

}  // namespace shardsim
