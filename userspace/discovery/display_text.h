#pragma once
// Text that came from a target (main class, arguments, paths) made safe to print: a hostile process must
// not be able to move the cursor or rewrite a terminal with escape sequences, nor break a JSON consumer.
#include <string>
#include <string_view>

namespace jfrbpf::discovery {

// Control characters and bytes that are not valid UTF-8 become '?'; valid multi-byte characters stay.
std::string printableText(std::string_view text);

// The number of characters (code points) in printableText output: its width on a terminal, near enough.
size_t displayWidth(std::string_view printable);

// The first `width` characters of printableText output, never splitting a multi-byte character.
std::string_view truncateToWidth(std::string_view printable, size_t width);

// A JSON string literal (with quotes): '"', '\\' and control characters escaped, invalid UTF-8 as U+FFFD.
std::string jsonQuoted(std::string_view text);

}  // namespace jfrbpf::discovery
