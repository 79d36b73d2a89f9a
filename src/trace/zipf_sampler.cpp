#include "shardsim/trace/zipf_sampler.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "shardsim/model/validation.hpp"
#include "shardsim/trace/power_sum.hpp"

namespace shardsim {

namespace {

// Across a tail cell the law falls by at most this factor, so a uniform below it accepts at once
// (and the rejection loop runs at most 1/0.98 times on average). 0.95 made 3x fewer cells but
// 2.5x more slow acceptance tests (docs/traces.md §6).
constexpr double kCellFloor = 0.98;
constexpr double kTwo64 = 18446744073709551616.0;  // 2^64

// floor(2^64 · x) for x in [0, 1], saturating at 2^64 - 1.
std::uint64_t to_fixed(double x) {
  if (!(x > 0)) return 0;
  const double scaled = x * kTwo64;
  if (scaled >= kTwo64) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(scaled);
}

}  // namespace

ZipfMandelbrotSampler::ZipfMandelbrotSampler(const EmbeddingTable& table)
    : alpha_(table.alpha), q_(table.q), rows_(table.rows) {
  require_valid_table(table);
  const std::uint64_t m = table.heavy_hitters.size();
  std::vector<double> mass;
  double heavy_total = 0;
  for (std::uint64_t i = 0; i < m; ++i) {
    cells_.push_back(Cell{i, 1, ~std::uint64_t{0}, static_cast<double>(i) + 1 + q_});
    mass.push_back(table.heavy_hitters[i]);
    heavy_total += table.heavy_hitters[i];
  }
  const double tail_mass = std::max(0.0, 1.0 - heavy_total);
  if (m < rows_ && tail_mass > 0) {
    // Cells over the 1-based tail ranks k = m+1..N: [k, k + w - 1] with
    // ((k + q)/(k + w - 1 + q))^alpha >= kCellFloor, i.e. w - 1 <= (k + q)(rho - 1).
    const double rho_minus_1 = alpha_ > 0 ? std::expm1(-std::log(kCellFloor) / alpha_)
                                          : std::numeric_limits<double>::infinity();
    std::vector<double> sums;
    double z = 0;
    for (std::uint64_t k = m + 1; k <= rows_;) {
      const double y = static_cast<double>(k) + q_;
      const double span = std::floor(y * rho_minus_1);  // may be inf
      const std::uint64_t left = rows_ - k;             // ranks after k
      const std::uint64_t extra =
          span >= static_cast<double>(left) ? left : static_cast<std::uint64_t>(span);
      const std::uint64_t last = k + extra;
      Cell c{k - 1, extra + 1, 0, y};
      c.squeeze = extra == 0 ? ~std::uint64_t{0}
                             : to_fixed(std::pow(y / (static_cast<double>(last) + q_), alpha_));
      const double s = power_sum(alpha_, q_, k, last);
      cells_.push_back(c);
      sums.push_back(s);
      z += s;
      if (last == rows_) break;
      k = last + 1;
    }
    for (double s : sums) mass.push_back(tail_mass * s / z);
  }

  // Vose's alias construction over the categories' masses.
  const std::size_t n = cells_.size();
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("ZipfMandelbrotSampler: too many categories");
  double total = 0;
  for (double p : mass) total += p;
  std::vector<double> scaled(n);
  std::vector<std::uint32_t> small, large;
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = mass[i] / total * static_cast<double>(n);
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
  }
  slots_.assign(n, Slot{});
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back();
    small.pop_back();
    const std::uint32_t l = large.back();
    slots_[s] = Slot{to_fixed(scaled[s]), l};
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left has scaled mass 1 up to rounding: it keeps its own slot.
  for (std::uint32_t i : large) slots_[i] = Slot{std::numeric_limits<std::uint64_t>::max(), i};
  for (std::uint32_t i : small) slots_[i] = Slot{std::numeric_limits<std::uint64_t>::max(), i};
}

bool ZipfMandelbrotSampler::accept(const Cell& c, std::uint64_t k, std::uint64_t u) const {
  const double ratio = c.y_first / (static_cast<double>(k) + 1.0 + q_);
  return static_cast<double>(u) < std::pow(ratio, alpha_) * kTwo64;
}

void ZipfMandelbrotSampler::fill(Rng& rng, std::span<std::uint64_t> ranks) const {
  // A local copy of the generator: the output could alias its state as far as the compiler
  // knows, which would force a reload and store of the state around every draw.
  Rng local = rng;
  for (auto& r : ranks) r = (*this)(local);
  rng = local;
}

}  // namespace shardsim
