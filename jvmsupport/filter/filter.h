#pragma once
// JEP 520's method filter (JDK 25 jdk.MethodTiming / jdk.MethodTrace `filter` setting):
//
//   filter := target (";" target)*
//   target := ClassName                 every method of the class        com.foo.Bar, com.foo.Outer$Inner
//           | ClassName "::" Method     that method, all overloads       com.foo.Bar::run, com.foo.Bar::<init>
//           | "::" Method               that method name in every class  ::<clinit>
//           | "@" ClassName             methods annotated with it, and every method of classes annotated with it
//
// As in JDK 25 (FilterSetting/Filter): whitespace around a target is ignored, empty targets are ignored (so
// the empty filter selects nothing), duplicates collapse. Where the JDK silently drops an invalid target we
// report it, pointing at the offending character. Abstract, native and synthetic methods (bridges, lambda
// bodies) never match, as in the JDK's JfrFilter::can_instrument_method.
//
// Linked into the JVMTI agent: parsing and matching never throw (parsing reports even allocation failure
// as an error); the functions that build strings for people can only fail as any allocation can.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::filter {

struct Target {
  enum class Kind : uint8_t { kClass, kClassMethod, kMethod, kAnnotation };
  Kind kind = Kind::kClass;
  std::string className;   // internal form, "com/foo/Outer$Inner"; empty for kMethod and kAnnotation
  std::string methodName;  // for kClassMethod and kMethod
  std::string annotation;  // descriptor, "Lcom/foo/Ann;", for kAnnotation

  std::string toString() const;  // the target as a user writes it
  bool operator==(const Target&) const = default;
};

// A method the filter is asked about. Class names may be internal ("com/foo/Bar") or dotted; annotations
// are type descriptors ("Lcom/foo/Ann;"), as a class file and JVMTI spell them.
struct MethodCandidate {
  std::string_view className;
  std::string_view methodName;
  uint16_t accessFlags = 0;
  std::span<const std::string> classAnnotations;
  std::span<const std::string> methodAnnotations;
};

class Filter {
 public:
  Filter() = default;
  explicit Filter(std::vector<Target> targets);

  bool empty() const { return targets_.empty(); }
  const std::vector<Target>& targets() const { return targets_; }

  bool matches(const MethodCandidate& method) const noexcept;

  // False only when no method of this class can match, judged from its name alone: lets a class-load hook
  // skip parsing most classes. (A `::method` or `@Annotation` target makes every class a candidate.)
  bool mayMatchClass(std::string_view className) const noexcept;

  // The canonical text: targets joined with ";", in the order given.
  std::string toString() const;

 private:
  std::vector<Target> targets_;
};

// Where the text is wrong. line/column are 1-based and count characters (code points), not bytes.
struct FilterError {
  size_t offset = 0;  // byte offset into the parsed text
  size_t line = 1;
  size_t column = 1;
  std::string message;
};

struct FilterParseResult {
  Filter filter;
  std::optional<FilterError> error;
};

enum class Separators : uint8_t {
  kSemicolon,           // a command-line or .jfc value: targets separated by ';', newlines are whitespace
  kSemicolonOrNewline,  // a filter file: one target per line, or several separated by ';'
};

FilterParseResult parseFilter(std::string_view text, Separators separators = Separators::kSemicolon) noexcept;

// The user-facing message for a parse error, e.g. for optionName "--method-timing":
//   jfrbpf: invalid --method-timing filter at column 12: expected a method name after '::'
//     com.foo.Bar::
//                ^
// `source` names a filter file ("" for a command-line value) and adds the line number to the first line.
std::string describeFilterError(std::string_view optionName, std::string_view text, const FilterError& error,
                                std::string_view source = {});

}  // namespace jfrbpf::filter
