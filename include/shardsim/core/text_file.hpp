#pragma once
// Reading a user's file whole: a file that cannot be opened is an InputError naming it.
#include <string>

namespace shardsim {

// The bytes of the file at `path`. InputError ("cannot open the file") if it cannot be read;
// `key` names what the file was given as (a flag, a scenario key), for the message.
std::string read_text_file(const std::string& path, const std::string& key = "");

}  // namespace shardsim
