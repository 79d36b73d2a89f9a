#pragma once
// The distribution of one numeric table field in `model.generate` (rows, pooling, alpha, q):
// a number, or {dist: uniform, min, max}, {dist: lognormal, median, sigma[, min, max]} or
// {dist: loguniform, min, max}.
#include <string>

#include "shardsim/core/rng.hpp"
#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

// What values a field accepts; a distribution reaching outside them is an InputError.
struct FieldRange {
  double min = 0;
  bool min_exclusive = false;  // (min, ...] instead of [min, ...]
  double max = 0;              // may be +infinity
  bool integer = false;        // draws are rounded to the nearest integer
  std::string unit;            // for messages, e.g. "rows"
};

struct FieldDistribution {
  enum class Kind { constant, uniform, lognormal, loguniform };
  Kind kind = Kind::constant;
  double value = 0;  // constant
  double min = 0;    // uniform and loguniform: support; lognormal: clip bounds
  double max = 0;
  double median = 0;  // lognormal: median = exp(mu)
  double sigma = 0;   // lognormal: standard deviation of the log
  bool integer = false;

  // One draw in [min, max] (constant: the value). A lognormal draw outside [min, max] is
  // clipped to it; integer fields are rounded to the nearest integer inside [min, max].
  double sample(Rng& rng) const;
};

// Parses and checks a field's distribution against `range`. For lognormal, an absent min or
// max defaults to the range's bound.
FieldDistribution parse_field_distribution(const YamlValue& v, const FieldRange& range);

}  // namespace shardsim
