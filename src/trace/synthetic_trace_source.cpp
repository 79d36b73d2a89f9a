#include "shardsim/trace/synthetic_trace_source.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "shardsim/core/log.hpp"
#include "trace/row_blocks.hpp"
#include "trace/shared_profiles.hpp"
#include "trace/touched_rows.hpp"

namespace shardsim {

namespace {

// Sampled mode warns when its set of touched rows needs more memory than this.
constexpr double kSampledWarnBytes = 1e9;

// nu with Σ_k 1 - (1 - p_k)^nu = bag (the expected distinct rows of nu independent lookups):
// bisection in log(nu) from [bag, 2·bag], doubling the upper end until it covers.
double solve_draws_per_bag(const AccessProfile& profile, double bag) {
  const std::uint64_t rows = profile.num_rows();
  if (!(bag > 0)) return 0;
  const auto distinct = [&](double n) {
    return profile.expected_distinct({0, rows}, RowSpace::rank, n);
  };
  // A bag of (nearly) every row: every row is in it.
  if (bag >= static_cast<double>(rows) * (1 - 1e-12)) return std::numeric_limits<double>::max();
  double lo = bag;
  double hi = 2 * bag;
  for (int i = 0; i < 200 && distinct(hi) < bag; ++i) lo = hi, hi *= 2;
  for (int i = 0; i < 60 && hi / lo > 1 + 1e-12; ++i) {
    const double mid = std::sqrt(lo * hi);
    (distinct(mid) < bag ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}

}  // namespace

struct SyntheticTraceSource::Table {
  Table(const EmbeddingTable& t, std::size_t index, const Workload& workload,
        PowerLawOptions options)
      : spec(t),
        profile(detail::shared_power_law_profile(t, workload.trace.layout,
                                                 layout_seed(workload.seed, index), options)),
        generator(t, index, workload),
        pooling_mean(t.pooling.expected()) {
    draws_per_bag = pooling_mean;
    if (workload.trace.unique_in_bag)
      draws_per_bag =
          solve_draws_per_bag(*profile, std::min(pooling_mean, static_cast<double>(t.rows)));
  }
  EmbeddingTable spec;
  std::shared_ptr<const PowerLawProfile> profile;  // shared with other sources of the process
  BagGenerator generator;
  double pooling_mean;
  double draws_per_bag;  // nu of the mean bag (unique_in_bag), else the mean pooling factor
};

SyntheticTraceSource::SyntheticTraceSource(const DlrmModel& model, const Workload& workload,
                                           SyntheticTraceOptions options)
    : workload_(workload), options_(options) {
  detail::begin_shared_profile_user();  // profiles no recent source took are no longer kept
  tables_.reserve(model.tables.size());
  for (std::size_t i = 0; i < model.tables.size(); ++i)
    tables_.push_back(std::make_unique<Table>(model.tables[i], i, workload, options.profile));
}

SyntheticTraceSource::~SyntheticTraceSource() = default;

const SyntheticTraceSource::Table& SyntheticTraceSource::table_at(std::size_t table) const {
  if (table >= tables_.size())
    throw std::out_of_range("trace source: table " + std::to_string(table) + " of " +
                            std::to_string(tables_.size()));
  return *tables_[table];
}

const AccessProfile& SyntheticTraceSource::profile(std::size_t table) const {
  return *table_at(table).profile;
}

const BagGenerator& SyntheticTraceSource::bags(std::size_t table) const {
  return table_at(table).generator;
}

double SyntheticTraceSource::draws_per_bag(std::size_t table) const {
  return table_at(table).draws_per_bag;
}

TableIterationDraw SyntheticTraceSource::draw(std::size_t table, int iteration, int num_gpus,
                                              std::uint32_t samples_per_gpu,
                                              std::span<const RowBlock> blocks) const {
  const Table& t = table_at(table);
  if (num_gpus < 1) throw std::invalid_argument("trace source: num_gpus must be >= 1");
  TableIterationDraw out;
  out.lookups_by_block_gpu.assign(blocks.size() * static_cast<std::size_t>(num_gpus), 0.0);
  out.distinct_by_block.assign(blocks.size(), 0.0);
  if (workload_.trace.mode == TraceMode::sampled) {
    split_sampled(t, iteration, num_gpus, samples_per_gpu, blocks, out);
  } else {
    split_expected(t, num_gpus, samples_per_gpu, blocks, false, out);
  }
  return out;
}

TableIterationDraw SyntheticTraceSource::compact_draw(std::size_t table, int iteration,
                                                      int num_gpus, std::uint32_t samples_per_gpu,
                                                      std::span<const RowBlock> blocks) const {
  if (workload_.trace.mode != TraceMode::expected) {
    return draw(table, iteration, num_gpus, samples_per_gpu, blocks);
  }
  const Table& t = table_at(table);
  if (num_gpus < 1) throw std::invalid_argument("trace source: num_gpus must be >= 1");
  TableIterationDraw out;
  out.distinct_by_block.assign(blocks.size(), 0.0);
  split_expected(t, num_gpus, samples_per_gpu, blocks, true, out);
  return out;
}

std::vector<double> SyntheticTraceSource::expected_block_lookups(const Table& t,
                                                                 std::uint32_t samples_per_gpu,
                                                                 std::span<const RowBlock> blocks,
                                                                 const BlockIndex& index) const {
  const std::size_t num_blocks = blocks.size();
  // Every GPU's local batch looks up its expectation, B·E[pooling] (docs/traces.md §7).
  const double local = static_cast<double>(samples_per_gpu) * t.pooling_mean;
  // One block holds every lookup whatever its computed mass (a sum of rounded terms).
  if (blocks.size() == 1) return {local};
  // Share of a bag's lookups in each block: the block's mass, or under unique_in_bag the expected
  // rows of the block among nu independent draws (which sum to the bag size over the blocks).
  const bool unique = workload_.trace.unique_in_bag;
  std::vector<double> weight(num_blocks, 0.0);
  double weights = 0;
  for (std::size_t b = 0; b < num_blocks; ++b) {
    if (blocks[b].rows.size() > 0) {
      weight[b] = unique
                      ? t.profile->expected_distinct(blocks[b].rows, index.space(), t.draws_per_bag)
                      : t.profile->mass(blocks[b].rows, index.space());
    }
    weights += weight[b];
  }
  for (std::size_t b = 0; b < num_blocks; ++b) {
    const double share = weights > 0 ? weight[b] / weights : 0.0;
    weight[b] = local * share;
  }
  return weight;
}

std::vector<double> SyntheticTraceSource::uniform_lookups_by_block(
    std::size_t table, int iteration, int num_gpus, std::uint32_t samples_per_gpu,
    std::span<const RowBlock> blocks) const {
  const Table& t = table_at(table);
  if (workload_.trace.mode != TraceMode::expected) {
    return TraceSource::uniform_lookups_by_block(table, iteration, num_gpus, samples_per_gpu,
                                                 blocks);
  }
  const BlockIndex index(blocks, t.profile->num_rows());  // validates the partition
  return expected_block_lookups(t, samples_per_gpu, blocks, index);
}

void SyntheticTraceSource::split_expected(const Table& t, int num_gpus,
                                          std::uint32_t samples_per_gpu,
                                          std::span<const RowBlock> blocks, bool uniform,
                                          TableIterationDraw& out) const {
  const BlockIndex index(blocks, t.profile->num_rows());  // validates the partition
  const std::size_t num_blocks = blocks.size();
  const auto gpus = static_cast<std::size_t>(num_gpus);
  std::vector<double> per_gpu = expected_block_lookups(t, samples_per_gpu, blocks, index);
  if (uniform) {
    out.uniform = true;
    out.uniform_lookups_by_block = std::move(per_gpu);
  } else {
    for (std::size_t b = 0; b < num_blocks; ++b) {
      std::fill_n(out.lookups_by_block_gpu.begin() + static_cast<std::ptrdiff_t>(b * gpus), gpus,
                  per_gpu[b]);
    }
  }
  // Under unique_in_bag a bag of L rows counts as nu(L) independent draws: L_total · nu / L̄.
  const bool unique = workload_.trace.unique_in_bag;
  const double local = static_cast<double>(samples_per_gpu) * t.pooling_mean;
  const double total = local * static_cast<double>(gpus);
  const double draws =
      unique && t.pooling_mean > 0
          ? total * (t.draws_per_bag / std::min(t.pooling_mean, static_cast<double>(t.spec.rows)))
          : total;
  for (std::size_t b = 0; b < num_blocks; ++b)
    if (blocks[b].rows.size() > 0)
      out.distinct_by_block[b] = t.profile->expected_distinct(blocks[b].rows, index.space(), draws);
}

void SyntheticTraceSource::split_sampled(const Table& t, int iteration, int num_gpus,
                                         std::uint32_t samples_per_gpu,
                                         std::span<const RowBlock> blocks,
                                         TableIterationDraw& out) const {
  const BlockIndex index(blocks, t.profile->num_rows());
  const auto gpus = static_cast<std::size_t>(num_gpus);
  std::uint64_t total = 0;
  for (int g = 0; g < num_gpus; ++g)
    for (std::uint32_t l : t.generator.lengths(iteration, g, samples_per_gpu)) total += l;
  detail::TouchedRows touched(std::min(total, t.profile->num_rows()));
  if (8.0 * static_cast<double>(touched.capacity()) > kSampledWarnBytes)
    log_warn(
        "sampled trace of table '{}': {} lookups need {:.1f} GB to count distinct rows; "
        "use `trace: {{mode: expected}}` for runs this large",
        t.spec.name, total, 8.0 * static_cast<double>(touched.capacity()) / 1e9);
  Bags bags;
  for (std::size_t g = 0; g < gpus; ++g) {
    bags.clear();
    t.generator.append(iteration, static_cast<int>(g), samples_per_gpu, index.space(), bags);
    for (const std::uint64_t row : bags.rows) {
      const std::size_t b = index.block_of(row);
      out.lookups_by_block_gpu[b * gpus + g] += 1.0;
      if (touched.insert(row)) out.distinct_by_block[b] += 1.0;
    }
  }
}

std::unique_ptr<TraceSource> make_synthetic_trace_source(const DlrmModel& model,
                                                         const Workload& workload,
                                                         SyntheticTraceOptions options) {
  return std::make_unique<SyntheticTraceSource>(model, workload, options);
}

std::unique_ptr<TraceSource> make_synthetic_trace_source(const DlrmModel& model,
                                                         const Workload& workload) {
  return std::make_unique<SyntheticTraceSource>(model, workload);
}

}  // namespace shardsim
