#include "shardsim/core/huge_pages.hpp"

namespace shardsim {

std::optional<std::string> huge_page_tunables(std::string_view thp_enabled, const char* tunables) {
  if (thp_enabled.find("[madvise]") == std::string_view::npos) return std::nullopt;
  constexpr std::string_view kTunable = "glibc.malloc.hugetlb";
  const std::string_view current = tunables == nullptr ? std::string_view{} : tunables;
  if (current.find(kTunable) != std::string_view::npos) return std::nullopt;
  std::string out(current);
  if (!out.empty()) out += ':';
  out += kTunable;
  out += "=1";
  return out;
}

}  // namespace shardsim
