// Reading a user's file whole (core/text_file.hpp).
#include "shardsim/core/text_file.hpp"

#include <fstream>
#include <sstream>

#include "shardsim/core/error.hpp"

namespace shardsim {

std::string read_text_file(const std::string& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(SourceLocation{path, 0, 0}, key, "cannot open the file",
                     "check the path and that the file is readable");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace shardsim
