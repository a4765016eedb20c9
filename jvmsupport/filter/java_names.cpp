#include "jvmsupport/filter/java_names.h"

#include <algorithm>
#include <array>

namespace jfrbpf::filter {
namespace {

// Keywords and literals that Checks.isJavaIdentifier rejects.
constexpr std::array<std::string_view, 54> kReserved = {
    "abstract", "assert",     "boolean",   "break",     "byte",      "case",     "catch",   "char",
    "class",    "const",      "continue",  "default",   "do",        "double",   "else",    "enum",
    "extends",  "final",      "finally",   "float",     "for",       "goto",     "if",      "implements",
    "import",   "instanceof", "int",       "interface", "long",      "native",   "new",     "package",
    "private",  "protected",  "public",    "return",    "short",     "static",   "strictfp", "super",
    "switch",   "synchronized", "this",    "throw",     "throws",    "transient", "try",    "void",
    "volatile", "while",      "true",      "false",     "null",      "_"};

bool isAsciiLetter(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Outside ASCII the JDK asks Character.isJavaIdentifierStart/Part; without Unicode tables we accept
// letters from Latin-1 upwards and refuse the characters a user is likely to type by mistake: the
// Latin-1 symbols and punctuation, the Unicode spaces and the replacement character of bad UTF-8.
bool isNonAsciiIdentifierChar(char32_t c) {
  if (c < 0xC0 || c == 0xD7 || c == 0xF7) return false;
  if (c == 0x1680 || (c >= 0x2000 && c <= 0x206F) || c == 0x3000 || c == 0xFEFF || c == 0xFFFD) return false;
  return c <= 0x10FFFF;
}

bool isIdentifierStart(char32_t c) {
  return isAsciiLetter(c) || c == '$' || c == '_' || isNonAsciiIdentifierChar(c);
}

bool isIdentifierPart(char32_t c) { return isIdentifierStart(c) || (c >= '0' && c <= '9'); }

std::string describe(char32_t c, std::string_view text, size_t offset, size_t length) {
  if (c == ' ' || c == '\t') return "whitespace";
  if (c < 0x20 || c == 0x7F) return "a control character";
  if (c == 0xFFFD && length == 1) return "a byte that is not UTF-8";
  return "'" + std::string(text.substr(offset, length)) + "'";
}

// One identifier occupying text[begin, end); `what` is used in messages.
std::optional<NameProblem> checkIdentifier(std::string_view text, size_t begin, size_t end,
                                           std::string_view what) {
  std::string_view word = text.substr(begin, end - begin);
  if (std::find(kReserved.begin(), kReserved.end(), word) != kReserved.end()) {
    return NameProblem{begin, "'" + std::string(word) + "' is a reserved word and cannot be part of a " +
                                  std::string(what)};
  }
  for (size_t at = begin; at < end;) {
    CodePoint cp = decodeUtf8(text, at);
    bool valid = at == begin ? isIdentifierStart(cp.value) : isIdentifierPart(cp.value);
    if (!valid) {
      std::string message = "unexpected " + describe(cp.value, text, at, cp.length) + " in " + std::string(what);
      if (at == begin && cp.value >= '0' && cp.value <= '9') message += " (a Java identifier cannot start with a digit)";
      if (cp.value == ':') message += " (a method is named with '::')";
      if (cp.value == '(') message += " (name the method without parameters: every overload matches)";
      if (cp.value == '/') message += " (write class names with '.')";
      if (cp.value == '*') message += " (wildcards are not part of the filter grammar)";
      return NameProblem{at, std::move(message)};
    }
    at += cp.length;
  }
  return std::nullopt;
}

}  // namespace

CodePoint decodeUtf8(std::string_view text, size_t offset) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(offset);
  if (lead < 0x80) return {lead, 1};
  size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || offset + length > text.size()) return {0xFFFD, 1};
  char32_t value = lead & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) {
    if ((byte(offset + i) & 0xC0) != 0x80) return {0xFFFD, 1};
    value = (value << 6) | (byte(offset + i) & 0x3F);
  }
  constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < kSmallest[length] || (value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) return {0xFFFD, 1};
  return {value, length};
}

size_t codePointsBefore(std::string_view text, size_t offset) {
  size_t count = 0;
  for (size_t at = 0; at < offset && at < text.size(); at += decodeUtf8(text, at).length) ++count;
  return count;
}

std::optional<NameProblem> checkClassName(std::string_view text, std::string_view what) {
  if (text.empty()) return NameProblem{0, "expected a " + std::string(what)};
  size_t begin = 0;
  while (true) {
    size_t dot = text.find('.', begin);
    size_t end = dot == std::string_view::npos ? text.size() : dot;
    if (end == begin) {
      if (dot == std::string_view::npos) return NameProblem{begin, "expected a name after '.'"};
      return NameProblem{begin, begin == 0 ? "a " + std::string(what) + " cannot start with '.'"
                                           : std::string("empty name between two '.'")};
    }
    if (auto problem = checkIdentifier(text, begin, end, what)) return problem;
    if (dot == std::string_view::npos) return std::nullopt;
    begin = dot + 1;
  }
}

std::optional<NameProblem> checkMethodName(std::string_view text) {
  if (text == "<init>" || text == "<clinit>") return std::nullopt;
  if (text.empty()) return NameProblem{0, "expected a method name"};
  if (text.front() == '<') {
    return NameProblem{0, "only <init> and <clinit> may be written with '<' and '>'"};
  }
  return checkIdentifier(text, 0, text.size(), "method name");
}

}  // namespace jfrbpf::filter
