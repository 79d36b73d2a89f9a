#pragma once
// Transparent huge pages for the process's heap (docs/notes/performance-scale-59.md, "Huge pages").
// A run at 16,384 GPUs holds gigabytes in a few large arrays; on 4 KB pages it spends a third of
// its time in page faults and TLB misses. glibc backs its heap with huge pages when its tunable
// glibc.malloc.hugetlb is 1, but reads tunables only as a process starts: the command-line tool
// and the benchmarks restart themselves once with it (app/main.cpp, bench/main.cpp).

#include <optional>
#include <string>
#include <string_view>

namespace shardsim {

// The GLIBC_TUNABLES value to restart with, or nothing when a restart would not help:
// `thp_enabled` is the text of /sys/kernel/mm/transparent_hugepage/enabled (the bracketed word is
// the mode; only "madvise" needs the tunable: "always" already backs the heap, "never" cannot),
// `tunables` the current GLIBC_TUNABLES (null when unset). A tunables string that already names
// glibc.malloc.hugetlb, whatever its value, is the user's choice and is kept (0 opts out).
std::optional<std::string> huge_page_tunables(std::string_view thp_enabled, const char* tunables);

// Restarts the process (execv of /proc/self/exe with `argv`) once with the tunable above, first
// thing in main(), before anything is read or written. Returns, doing nothing, when no restart
// would help, when it fails (the run goes on as it is), or in sanitizer builds, whose allocator
// is their own.
void restart_with_huge_pages(char** argv);

}  // namespace shardsim
