#include "shardsim/core/huge_pages.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SHARDSIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SHARDSIM_SANITIZED 1
#endif
#endif

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

void restart_with_huge_pages(char** argv) {
#ifdef SHARDSIM_SANITIZED
  (void)argv;
#else
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string mode((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto tunables = huge_page_tunables(mode, std::getenv("GLIBC_TUNABLES"));
  if (!tunables) return;
  if (setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
#endif
}

}  // namespace shardsim
