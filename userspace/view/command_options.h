#pragma once
// Command-line parsing for `jfrbpf view` and `jfrbpf convert`, on the cursor of cli::Arguments (peek/next)
// rather than its option(): a missing value's error names the command ("see jfrbpf view --help"). The
// syntax is the same: "-o x", "-ox", "--output x", "--output=x".
#include <cstdint>
#include <string>
#include <string_view>

#include "formats/convert/sample_collector.h"
#include "userspace/command_line/arguments.h"
#include "userspace/command_line/whole_number.h"

namespace jfrbpf::cli {

// If the current argument is `shortName` or `longName` (either may be empty), consumes it and its value.
// Throws a usage error naming `command` when the value is missing.
bool takeOption(Arguments& args, std::string_view shortName, std::string_view longName, std::string& value,
                std::string_view command);
// A flag without value.
bool takeFlag(Arguments& args, std::string_view shortName, std::string_view longName);

// Consumes --thread, --method, --event, --context or --by into `options`; false if the current argument is none
// of them.
bool sampleOption(Arguments& args, convert::SampleOptions& options, std::string_view command);

// Throws a usage error for an argument the command does not know.
[[noreturn]] void unknownArgument(const std::string& argument, std::string_view command);

}  // namespace jfrbpf::cli
