#pragma once
// How far a prediction can be trusted: the measured error of shardsim's whole-iteration
// predictions against published training throughputs, as the current build gives it
// (configs/validation/training.yaml, written by scripts/validate_training.py --write-figures and
// checked against the build by ctest validation.training). The brief's trust line and `size`'s
// default --margin read it (docs/report.md, "The brief").
#include <string>

namespace shardsim {

struct TrustFigures {
  std::string kind;             // what was predicted, e.g. "whole training iterations"
  int points = 0;               // published measurements judged
  double median_abs_error = 0;  // median |predicted / measured - 1|
  double worst_ratio = 1;       // max(predicted / measured, measured / predicted)
  std::string doc;              // where the comparison is shown, e.g. docs/validation/training.md
};

// The figures of a YAML text (keys as above); an InputError at `source` for a bad one.
TrustFigures parse_trust_figures(const std::string& text, const std::string& source);

// The build's own figures (the embedded configs/validation/training.yaml), read once.
const TrustFigures& builtin_trust_figures();

// "whole training iterations: median error 15.2% over 26 published points, worst 1.87x
// (docs/validation/training.md)".
std::string trust_text(const TrustFigures& t);

}  // namespace shardsim
