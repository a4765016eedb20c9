#pragma once
// Java name rules the JEP 520 filter grammar relies on, as JDK 25 applies them
// (jdk.internal.module.Checks): a class name is '.'-separated Java identifiers, none of them a keyword,
// 'true', 'false', 'null' or '_'.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace jfrbpf::filter {

// Where and why a name is not valid: byte offset into the checked text and a message for the user.
struct NameProblem {
  size_t offset = 0;
  std::string message;
};

// A dotted class name (`com.foo.Outer$Inner`); `what` names the thing in messages ("class name").
std::optional<NameProblem> checkClassName(std::string_view text, std::string_view what);

// A method name: a Java identifier, `<init>` or `<clinit>`.
std::optional<NameProblem> checkMethodName(std::string_view text);

// One UTF-8 code point decoded from `text` at `offset`; malformed bytes decode as U+FFFD of length 1.
struct CodePoint {
  char32_t value = 0;
  size_t length = 1;
};
CodePoint decodeUtf8(std::string_view text, size_t offset);

// Number of code points in text[0, offset): the column a user sees, minus one.
size_t codePointsBefore(std::string_view text, size_t offset);

}  // namespace jfrbpf::filter
