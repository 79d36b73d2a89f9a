#pragma once
// Pooling factor (lookups per sample, the "bag size") distributions.
//
// Every draw is a non-negative integer. expected() and variance() are the moments of that integer
// draw (not of the underlying continuous distribution), so B·expected() is the mean number of
// lookups of a batch of B samples whichever way the batch is drawn. docs/traces.md gives the
// formulas.
#include <utility>
#include <vector>

namespace shardsim {

class Rng;

struct PoolingSpec {
  enum class Kind { fixed, uniform, normal, lognormal, histogram };
  Kind kind = Kind::fixed;
  double value = 1;  // fixed (a fractional value is rounded up or down at random, keeping the mean)
  double min = 0;    // uniform (integers min..max inclusive); clip bounds for normal/lognormal
  double max = 0;    // normal/lognormal: no upper clip when max == 0
  double mean = 0;   // normal: mean; lognormal: mean of the distribution (not of its log)
  double sigma = 0;  // normal: standard deviation; lognormal: sigma of the log
  std::vector<std::pair<double, double>> histogram;  // (pooling value, weight)
  // Each drawn lookup survives independently with this probability (binomial thinning): the
  // lookups of pruned rows are dropped (docs/model.md "Pruning"). 1: no thinning.
  double keep = 1;

  static PoolingSpec fixed_at(double value) {
    PoolingSpec p;
    p.kind = Kind::fixed;
    p.value = value;
    return p;
  }
  static PoolingSpec uniform_between(double lo, double hi) {
    PoolingSpec p;
    p.kind = Kind::uniform;
    p.min = lo;
    p.max = hi;
    return p;
  }
  static PoolingSpec lognormal_with(double mean, double sigma) {
    PoolingSpec p;
    p.kind = Kind::lognormal;
    p.mean = mean;
    p.sigma = sigma;
    return p;
  }

  bool operator==(const PoolingSpec&) const = default;

  double expected() const;  // E[pooling], after thinning
  double variance() const;  // Var[pooling], after thinning
  // One draw (a non-negative integer number of lookups).
  double sample(Rng& rng) const;
};

}  // namespace shardsim
