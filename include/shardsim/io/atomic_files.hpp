#pragma once
// Every file shardsim writes goes through here (docs/robustness.md "Outputs"), so that
//  - a reader never sees a half-written file: each file is written to "<name>.tmp.<pid>" and
//    renamed into place (rename is atomic within a file system);
//  - a run that fails while writing, or is interrupted by SIGINT, SIGTERM or SIGHUP, leaves no
//    temporary behind: failures remove them, and a signal handler unlinks the ones still pending
//    before the process dies of the signal;
//  - nothing that exists is overwritten without `force`, and every check comes before the first
//    byte is written, so a refused call changes nothing.
// Errors are InputErrors at the output path naming `key` (the flag, e.g. "--out").
#include <functional>
#include <span>
#include <string>

namespace shardsim {

struct FileContent {
  std::string name;  // relative to the directory
  std::string content;
};

// Writes `files` under `dir`, creating it and its parents. Refused: a `dir` that exists and is
// not a directory, a target that is a directory (even with `force`), an existing target without
// `force`. When `dir` does not exist yet, the files are written into a sibling staging directory
// "<dir>.tmp.<pid>" that is renamed to `dir` at the end, so the set appears all at once; when it
// exists, its dead processes' temporaries are removed (io/stale_temporaries.hpp) and the new
// directory, built beside it with everything else it holds, is exchanged with it in one step
// (src/io/output_set_swap.hpp). Where no exchange can be made, each file is renamed into place
// in turn (a failed rename removes the temporaries not yet renamed; files already renamed stay).
void write_files_atomically(const std::string& dir, std::span<const FileContent> files, bool force,
                            const std::string& key);

// The checks write_files_atomically makes before writing, alone: a command calls it before it
// runs, so that an existing output is refused before minutes of simulation, not after.
void check_files_writable(const std::string& dir, std::span<const std::string> names, bool force,
                          const std::string& key);

// The checks write_file_atomically makes before writing, alone (see check_files_writable).
void check_file_writable(const std::string& path, bool force, const std::string& key);

// One file: `content` written to `path`. Refused: a directory at `path` (even with `force`), an
// existing file without `force`, a parent folder that does not exist.
void write_file_atomically(const std::string& path, const std::string& content, bool force,
                           const std::string& key);

// One file produced by `write(temporary_path)` (for writers that stream, e.g. trace files): the
// same checks, then `write` creates the temporary, which is renamed to `path`; if `write` throws,
// the temporary is removed and the exception passes on.
void write_file_atomically(const std::string& path, bool force, const std::string& key,
                           const std::function<void(const std::string& temporary)>& write);

// The temporary name of `path` for this process: "<path>.tmp.<pid>".
std::string temporary_path_for(const std::string& path);

// Registers a temporary file (or, with `directory`, an empty-once-its-files-are-gone staging
// directory) to be removed if the process is killed by SIGINT, SIGTERM or SIGHUP before
// `release`. Installs the signal handlers on first use. Up to 64 paths at once (more are written
// unprotected). Used by the writers above; public so that tests can check the mechanism.
class PendingTemporary {
 public:
  explicit PendingTemporary(const std::string& path, bool directory = false);
  ~PendingTemporary();
  PendingTemporary(const PendingTemporary&) = delete;
  PendingTemporary& operator=(const PendingTemporary&) = delete;
  void release();  // the path was renamed or removed: stop watching it

 private:
  int slot_ = -1;
};

}  // namespace shardsim
