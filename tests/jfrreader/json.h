#pragma once
// Minimal JSON parser for comparing the reader with `jfr print --json` (test support only). Numbers keep
// their text so 64-bit integers compare exactly; NaN and Infinity tokens are accepted because Java prints them.
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::jfr::testing {

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  std::string text;  // kNumber: the literal; kString: the decoded UTF-8
  std::vector<Json> items;         // kArray elements; kObject member values
  std::vector<std::string> names;  // kObject member names, parallel to items

  const Json* member(std::string_view name) const;
};

// Throws std::runtime_error on malformed input.
Json parseJson(std::string_view text);

}  // namespace jfrbpf::jfr::testing
