#pragma once
// "Did you mean": the closest candidate to a misspelt name.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardsim {

// The closest candidate by edit distance, if it is close enough to be a plausible typo.
std::optional<std::string> did_you_mean(std::string_view word,
                                        const std::vector<std::string>& candidates);

}  // namespace shardsim
