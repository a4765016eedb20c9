#pragma once
// A small JSON reader for asserting on `jfr print --json` output. Throws std::runtime_error on malformed
// input or on a lookup of the wrong kind, so a test fails with a message instead of crashing.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jfrbpf::test {

class Json {
 public:
  enum class Kind { Null, Boolean, Number, String, Array, Object };

  static Json parse(std::string_view text);

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
