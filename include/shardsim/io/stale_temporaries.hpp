#pragma once
// The temporaries a killed writer leaves behind (docs/robustness.md "Outputs"): every
// temporary shardsim writes is named "<name>.tmp.<pid>" (io/atomic_files.hpp), a file or a
// staging directory. One whose process is gone is garbage; one whose process still runs is
// another writer's and is kept.
#include <cstddef>
#include <filesystem>
#include <string>

namespace shardsim {

// True when `name` ends in ".tmp.<pid>" and no process `pid` runs (on this machine).
bool is_dead_temporary(const std::string& name);

// Removes the dead temporaries at every level of `out_dir` (not following links) and those
// beside it ("<out_dir>.tmp.<pid>", a staging directory); returns how many it removed.
std::size_t remove_dead_temporaries(const std::filesystem::path& out_dir);

}  // namespace shardsim
