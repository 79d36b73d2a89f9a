#include "io/field_distribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardsim {

namespace {

std::string range_text(const FieldRange& r) {
  const std::string lo = fmt::format("{}{}", r.min_exclusive ? "> " : ">= ", r.min);
  if (std::isinf(r.max)) return lo;
  return fmt::format("{} and <= {}", lo, r.max);
}

bool in_range(double x, const FieldRange& r) {
  const bool lo_ok = r.min_exclusive ? x > r.min : x >= r.min;
  return lo_ok && x <= r.max;
}

double read_in_range(const YamlValue& v, const FieldRange& r) {
  const double x = v.as_double();
  if (!in_range(x, r)) {
    throw v.error(
        fmt::format("{} {} is out of range: expected a value {}", r.unit, x, range_text(r)));
  }
  return x;
}

// For integer fields, [lo, hi] must hold at least one whole number.
void check_has_integer(const YamlValue& v, double lo, double hi, const FieldRange& r) {
  if (r.integer && std::ceil(lo) > std::floor(hi)) {
    throw v.error(fmt::format("no whole number of {} lies in [{}, {}]", r.unit, lo, hi),
                  "widen min and max");
  }
}

}  // namespace

double FieldDistribution::sample(Rng& rng) const {
  double x = 0;
  switch (kind) {
    case Kind::constant:
      return value;
    case Kind::uniform:
      x = rng.uniform(min, max);
      break;
    case Kind::lognormal:
      x = rng.lognormal(std::log(median), sigma);
      break;
    case Kind::loguniform:
      x = std::exp(rng.uniform(std::log(min), std::log(max)));
      break;
  }
  if (integer) {
    // Round, then keep inside the integers of [min, max] (parse checked there is one).
    x = std::clamp(std::nearbyint(x), std::ceil(min), std::floor(max));
  } else {
    x = std::clamp(x, min, max);
  }
  return x;
}

FieldDistribution parse_field_distribution(const YamlValue& v, const FieldRange& range) {
  FieldDistribution d;
  d.integer = range.integer;
  if (v.is_scalar()) {
    d.kind = FieldDistribution::Kind::constant;
    d.value = read_in_range(v, range);
    if (range.integer && d.value != std::floor(d.value)) {
      throw v.error(fmt::format("expected a whole number of {}, found {}", range.unit, d.value));
    }
    d.min = d.max = d.value;
    return d;
  }
  if (!v.is_map()) {
    throw v.error("expected a number or a distribution",
                  "write a number, or e.g. {dist: uniform, min: 1, max: 40}");
  }
  const std::string dist = v.get("dist").as_choice({"uniform", "lognormal", "loguniform"});
  if (dist == "uniform" || dist == "loguniform") {
    v.expect_keys({"dist", "min", "max"});
    d.kind =
        dist == "uniform" ? FieldDistribution::Kind::uniform : FieldDistribution::Kind::loguniform;
    const YamlValue lo = v.get("min");
    const YamlValue hi = v.get("max");
    d.min = read_in_range(lo, range);
    d.max = read_in_range(hi, range);
    if (dist == "loguniform" && !(d.min > 0)) {
      throw lo.error(fmt::format("a loguniform distribution needs min > 0, found {}", d.min),
                     "use dist: uniform to include 0");
    }
    if (std::isinf(d.max)) throw hi.error("max must be finite");
  } else {
    v.expect_keys({"dist", "median", "sigma", "min", "max"});
    d.kind = FieldDistribution::Kind::lognormal;
    const YamlValue med = v.get("median");
    d.median = med.as_positive_double();
    d.sigma = v.get("sigma").as_nonnegative_double();
    d.min = range.min;
    d.max = range.max;
    if (auto lo = v.find("min")) d.min = read_in_range(*lo, range);
    if (auto hi = v.find("max")) d.max = read_in_range(*hi, range);
    if (!in_range(d.median, range)) {
      throw med.error(fmt::format("median {} of {} is out of range: expected a value {}", d.median,
                                  range.unit, range_text(range)));
    }
  }
  if (d.min > d.max) {
    throw v.error(fmt::format("min {} is greater than max {}", d.min, d.max),
                  "swap them, or fix the typo");
  }
  check_has_integer(v, d.min, d.max, range);
  return d;
}

}  // namespace shardsim
