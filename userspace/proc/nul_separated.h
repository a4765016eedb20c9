#pragma once
// /proc/PID/cmdline and /proc/PID/environ: NUL-separated strings the process wrote itself. What the java
// launcher makes of the arguments is the attach client's and discovery's business; splitting them is here.
#include <optional>
#include <string_view>
#include <vector>

namespace jfrbpf::proc {

// The strings of a NUL-separated block (cmdline: argv[0] first); a last one without its NUL counts too.
std::vector<std::string_view> splitAtNul(std::string_view block);

// The value of the variable in a NUL-separated environment block; nullopt when it is not set.
std::optional<std::string_view> environmentValue(std::string_view environ, std::string_view name);

}  // namespace jfrbpf::proc
