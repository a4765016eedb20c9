#pragma once
// A small JSON reader for asserting on `jfr print --json` output. Throws std::runtime_error on malformed
// input or on a lookup of the wrong kind, so a test fails with a message instead of crashing.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jfrbpf::test {

class Json {
 public:
  enum class Kind { Null, Boolean, Number, String, Array, Object };

  static Json parse(std::string_view text);
  // As parse(), except that the array reached through the object members `path` (e.g. {"recording",
  // "events"}) is not kept: each of its elements goes to `each` as soon as it is parsed, and the document
  // returned holds an empty array there. `jfr print --json` of a few seconds at 1 ms is hundreds of MB, whose
  // whole tree took 8 s and 1.6 GB to build; one event at a time, a fraction of that.
  static Json parseEach(std::string_view text, const std::vector<std::string_view>& path,
                        const std::function<void(const Json&)>& each);

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool has(std::string_view key) const;

  const Json& operator[](std::string_view key) const;
  const Json& operator[](size_t index) const;
  size_t size() const;  // elements of an array or members of an object

  bool boolean() const;
  int64_t integer() const;  // a number without fraction or exponent
  double number() const;
  const std::string& string() const;
  const std::vector<Json>& items() const;

 private:
  friend class JsonParser;
  void expect(Kind kind, const char* what) const;

  Kind kind_ = Kind::Null;
  bool boolean_ = false;
  bool isInteger_ = false;
  int64_t integer_ = 0;
  double number_ = 0;
  std::string string_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
};

}  // namespace jfrbpf::test
