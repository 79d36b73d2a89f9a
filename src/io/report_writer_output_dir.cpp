// `--out DIR`: every format at once, each file written to "<name>.tmp.<pid>" and renamed into
// place, so a reader never sees a half-written file. Files: docs/report.md.
#include <fmt/format.h>

#include <sstream>

#include "shardsim/core/log.hpp"
#include "shardsim/io/atomic_files.hpp"
#include "shardsim/io/report_writer.hpp"

namespace shardsim {

namespace {

std::string fwd_matrix_name(std::size_t index, std::size_t count) {
  return count == 1 ? "comm_matrix_fwd.csv" : fmt::format("comm_matrix_fwd.{}.csv", index);
}
std::string bwd_matrix_name(std::size_t index, std::size_t count) {
  return count == 1 ? "comm_matrix_bwd.csv" : fmt::format("comm_matrix_bwd.{}.csv", index);
}

std::vector<FileContent> render(std::span<const Report> reports) {
  std::vector<FileContent> files;
  const std::size_t n = reports.size();

  // report.json: each report says which files hold its communication matrices.
  std::vector<nlohmann::ordered_json> matrix_files;
  for (std::size_t i = 0; i < n; ++i) {
    nlohmann::ordered_json names;
    names["comm_matrix_files"] = {{"fwd", fwd_matrix_name(i, n)}, {"bwd", bwd_matrix_name(i, n)}};
    matrix_files.push_back(std::move(names));
  }
  std::ostringstream json;
  write_json(json, reports, matrix_files);
  files.push_back({"report.json", json.str()});

  std::ostringstream summary;
  write_csv_summary(summary, reports);
  files.push_back({"summary.csv", summary.str()});

  std::ostringstream per_gpu;
  write_per_gpu_csv(per_gpu, reports);
  files.push_back({"per_gpu.csv", per_gpu.str()});

  for (std::size_t i = 0; i < n; ++i) {
    std::ostringstream fwd;
    write_comm_matrix_csv(fwd, reports[i].comm_fwd);
    files.push_back({fwd_matrix_name(i, n), fwd.str()});
    std::ostringstream bwd;
    write_comm_matrix_csv(bwd, reports[i].comm_bwd);
    files.push_back({bwd_matrix_name(i, n), bwd.str()});
  }
  return files;
}

}  // namespace

std::vector<std::string> output_file_names(std::size_t report_count) {
  std::vector<std::string> names{"report.json", "summary.csv", "per_gpu.csv"};
  for (std::size_t i = 0; i < report_count; ++i) {
    names.push_back(fwd_matrix_name(i, report_count));
    names.push_back(bwd_matrix_name(i, report_count));
  }
  return names;
}

void write_output_dir(const std::string& dir, std::span<const Report> reports, bool force) {
  const std::vector<FileContent> files = render(reports);
  write_files_atomically(dir, files, force, "--out");
  log_info("wrote {} files to {}", files.size(), dir);
}

}  // namespace shardsim
