#pragma once
// The value of a --method-timing / --method-trace option: a filter, or `@<path>` naming a file that holds
// one (one target per line, or several separated by ';'; blank lines ignored; the JDK's grammar has no
// comments, so neither do these files).
//
// `@com.foo.Ann` is also a valid target (an annotation), so a file is read only when the text after '@'
// contains a '/': write `@./targets.txt` for a file in the current directory. When `@name` could mean
// either an annotation or an existing file, the argument is refused as ambiguous rather than guessed.
#include <string>
#include <string_view>

#include "jvmsupport/filter/filter.h"

namespace jfrbpf::filter {

struct FilterArgumentResult {
  Filter filter;
  std::string error;  // a complete user-facing message (may span lines: see describeFilterError); empty on success
};

FilterArgumentResult parseFilterArgument(std::string_view optionName, std::string_view argument) noexcept;

}  // namespace jfrbpf::filter
