#include "jvmsupport/filter/filter.h"

#include <algorithm>

#include "jvmsupport/filter/java_names.h"

namespace jfrbpf::filter {
namespace {

constexpr uint16_t kAccNative = 0x0100;
constexpr uint16_t kAccAbstract = 0x0400;
constexpr uint16_t kAccSynthetic = 0x1000;

// Character.isWhitespace for ASCII, which is what String.strip() removes around a JDK filter target.
bool isFilterWhitespace(char c, Separators separators) {
  if (c == '\n') return separators == Separators::kSemicolon;
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || (c >= 0x1C && c <= 0x1F);
}

bool isSeparator(char c, Separators separators) {
  return c == ';' || (c == '\n' && separators == Separators::kSemicolonOrNewline);
}

std::string toInternal(std::string_view dotted) {
  std::string result(dotted);
  std::replace(result.begin(), result.end(), '.', '/');
  return result;
}

std::string toDotted(std::string_view internal) {
  std::string result(internal);
  std::replace(result.begin(), result.end(), '/', '.');
  return result;
}

// Compares a class name given either dotted or internal with an internal name, without allocating.
bool sameClass(std::string_view candidate, std::string_view internal) {
  if (candidate.size() != internal.size()) return false;
  for (size_t i = 0; i < candidate.size(); ++i) {
    char c = candidate[i] == '.' ? '/' : candidate[i];
    if (c != internal[i]) return false;
  }
  return true;
}

bool contains(std::span<const std::string> annotations, std::string_view descriptor) {
  return std::find(annotations.begin(), annotations.end(), descriptor) != annotations.end();
}

size_t lineStartOf(std::string_view text, size_t offset) {
  if (offset == 0) return 0;
  size_t newline = text.rfind('\n', offset - 1);
  return newline == std::string_view::npos ? 0 : newline + 1;
}

FilterError errorAt(std::string_view text, size_t offset, std::string message) {
  size_t lineStart = lineStartOf(text, offset);
  size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + lineStart, '\n'));
  size_t column = 1 + codePointsBefore(text.substr(lineStart), offset - lineStart);
  return FilterError{offset, line, column, std::move(message)};
}

// Parses one stripped, non-empty target starting at byte `base` of `text`.
std::optional<FilterError> parseTarget(std::string_view text, size_t base, std::string_view target,
                                       Target& out) {
  auto fail = [&](size_t offset, std::string message) { return errorAt(text, base + offset, std::move(message)); };
  if (target.front() == '@') {
    std::string_view name = target.substr(1);
    if (name.empty()) return fail(0, "expected an annotation class name after '@'");
    if (auto problem = checkClassName(name, "annotation name")) return fail(1 + problem->offset, problem->message);
    out = Target{Target::Kind::kAnnotation, {}, {}, "L" + toInternal(name) + ";"};
    return std::nullopt;
  }
  size_t colons = target.find("::");
  if (colons == std::string_view::npos) {
    if (auto problem = checkClassName(target, "class name")) return fail(problem->offset, problem->message);
    out = Target{Target::Kind::kClass, toInternal(target), {}, {}};
    return std::nullopt;
  }
  std::string_view className = target.substr(0, colons);
  std::string_view methodName = target.substr(colons + 2);
  if (!className.empty()) {
    if (auto problem = checkClassName(className, "class name")) return fail(problem->offset, problem->message);
  }
  if (methodName.empty()) {
    return fail(colons, className.empty() ? "expected a method name after '::'"
                                          : "expected a method name after '::' (write " + std::string(className) +
                                                " alone for every method of the class)");
  }
  if (auto problem = checkMethodName(methodName)) return fail(colons + 2 + problem->offset, problem->message);
  if (className.empty()) {
    out = Target{Target::Kind::kMethod, {}, std::string(methodName), {}};
  } else {
    out = Target{Target::Kind::kClassMethod, toInternal(className), std::string(methodName), {}};
  }
  return std::nullopt;
}

FilterParseResult parseOrThrow(std::string_view text, Separators separators) {
  std::vector<Target> targets;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = begin;
    while (end < text.size() && !isSeparator(text[end], separators)) ++end;
    size_t first = begin;
    size_t last = end;
    while (first < last && isFilterWhitespace(text[first], separators)) ++first;
    while (last > first && isFilterWhitespace(text[last - 1], separators)) --last;
    if (first < last) {
      Target target;
      if (auto error = parseTarget(text, first, text.substr(first, last - first), target)) {
        return FilterParseResult{Filter{}, std::move(error)};
      }
      if (std::find(targets.begin(), targets.end(), target) == targets.end()) targets.push_back(std::move(target));
    }
    begin = end + 1;
  }
  return FilterParseResult{Filter(std::move(targets)), std::nullopt};
}

}  // namespace

std::string Target::toString() const {
  switch (kind) {
    case Kind::kClass:
      return toDotted(className);
    case Kind::kClassMethod:
      return toDotted(className) + "::" + methodName;
    case Kind::kMethod:
      return "::" + methodName;
    case Kind::kAnnotation:
      return "@" + toDotted(std::string_view(annotation).substr(1, annotation.size() - 2));
  }
  return {};
}

Filter::Filter(std::vector<Target> targets) : targets_(std::move(targets)) {}

bool Filter::matches(const MethodCandidate& method) const noexcept {
  if ((method.accessFlags & (kAccAbstract | kAccNative | kAccSynthetic)) != 0) return false;
  for (const Target& target : targets_) {
    switch (target.kind) {
      case Target::Kind::kClass:
        if (sameClass(method.className, target.className)) return true;
        break;
      case Target::Kind::kClassMethod:
        if (method.methodName == target.methodName && sameClass(method.className, target.className)) return true;
        break;
      case Target::Kind::kMethod:
        if (method.methodName == target.methodName) return true;
        break;
      case Target::Kind::kAnnotation:
        if (contains(method.classAnnotations, target.annotation) ||
            contains(method.methodAnnotations, target.annotation)) {
          return true;
        }
        break;
    }
  }
  return false;
}

bool Filter::mayMatchClass(std::string_view className) const noexcept {
  for (const Target& target : targets_) {
    switch (target.kind) {
      case Target::Kind::kClass:
      case Target::Kind::kClassMethod:
        if (sameClass(className, target.className)) return true;
        break;
      case Target::Kind::kMethod:
      case Target::Kind::kAnnotation:
        return true;  // a method name, or an annotation that may sit on any method: only the methods tell
    }
  }
  return false;
}

std::string Filter::toString() const {
  std::string result;
  for (const Target& target : targets_) {
    if (!result.empty()) result += ';';
    result += target.toString();
  }
  return result;
}

FilterParseResult parseFilter(std::string_view text, Separators separators) noexcept {
  try {
    return parseOrThrow(text, separators);
  } catch (...) {  // std::bad_alloc; the message is short enough not to allocate
    return FilterParseResult{Filter{}, FilterError{0, 1, 1, "out of memory"}};
  }
}

std::string describeFilterError(std::string_view optionName, std::string_view text, const FilterError& error,
                                std::string_view source) {
  std::string message = "jfrbpf: invalid " + std::string(optionName) + " filter";
  bool multiline = text.find('\n') != std::string_view::npos;
  if (!source.empty()) message += " in " + std::string(source);
  if (!source.empty() || multiline) {
    message += " at line " + std::to_string(error.line) + ", column " + std::to_string(error.column);
  } else {
    message += " at column " + std::to_string(error.column);
  }
  message += ": " + error.message + "\n  ";
  size_t lineStart = lineStartOf(text, std::min(error.offset, text.size()));
  size_t lineEnd = text.find('\n', lineStart);
  std::string_view line = text.substr(lineStart, lineEnd == std::string_view::npos ? text.npos : lineEnd - lineStart);
  for (char c : line) message += (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) ? ' ' : c;
  message += "\n  " + std::string(error.column - 1, ' ') + "^";
  return message;
}

}  // namespace jfrbpf::filter
