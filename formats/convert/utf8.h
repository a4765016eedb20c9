#pragma once
// Names from a recording are bytes: the JFR reader passes strings through as stored, and a hostile or
// damaged file may hold any. Formats that promise UTF-8 (protobuf strings, the HTML page) get them repaired.
#include <string>
#include <string_view>

namespace jfrbpf::convert {

// `text` with every byte that does not start or continue a well-formed UTF-8 sequence replaced by U+FFFD
// (overlong forms, surrogates and code points above U+10FFFF count as malformed).
std::string validUtf8(std::string_view text);

}  // namespace jfrbpf::convert
