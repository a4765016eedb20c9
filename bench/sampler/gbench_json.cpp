#include "bench/sampler/gbench_json.h"

#include <cctype>
#include <charconv>
#include <set>

#include "base/error.h"

namespace jfrbpf::bench {
namespace {

// Just enough JSON for Google Benchmark's report: objects, arrays, strings, numbers, literals.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  char peek() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  std::string string() {
    expect('"');
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ >= text_.size()) break;
        char e = text_[pos_++];
        if (e == 'u') {
          pos_ += 4;  // benchmark names are ASCII; an escaped code point is kept as '?'
          out += '?';
          continue;
        }
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        continue;
      }
      out += c;
    }
    expect('"');
    return out;
  }
  double number() {
    skipSpace();
    double value = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
    if (ec != std::errc()) fail("expected a number");
    pos_ = static_cast<size_t>(end - text_.data());
    return value;
  }
  void skipValue() {
    char c = peek();
    if (c == '"') {
      string();
    } else if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      expect(c);
      if (consume(close)) return;
      do {
        if (c == '{') {
          string();
          expect(':');
        }
        skipValue();
      } while (consume(','));
      expect(close);
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    } else {
      number();
    }
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("Google Benchmark output: " + what + " at offset " + std::to_string(pos_));
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

BenchmarkRow parseRow(Cursor& in) {
  BenchmarkRow row;
  in.expect('{');
  if (in.consume('}')) return row;
  do {
    std::string key = in.string();
    in.expect(':');
    char c = in.peek();
    if (c == '"') {
      row.text[key] = in.string();
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      row.numbers[key] = in.number();
    } else {
      in.skipValue();
    }
  } while (in.consume(','));
  in.expect('}');
  return row;
}

}  // namespace

std::vector<BenchmarkRow> parseBenchmarkJson(std::string_view json) {
  Cursor in(json);
  std::vector<BenchmarkRow> rows;
  bool found = false;
  in.expect('{');
  if (in.consume('}')) in.fail("no \"benchmarks\" array");
  do {
    std::string key = in.string();
    in.expect(':');
    if (key != "benchmarks") {
      in.skipValue();
      continue;
    }
    found = true;
    in.expect('[');
    if (in.consume(']')) continue;
    do {
      rows.push_back(parseRow(in));
    } while (in.consume(','));
    in.expect(']');
  } while (in.consume(','));
  in.expect('}');
  if (!found) in.fail("no \"benchmarks\" array");
  return rows;
}

bool isStandardField(const std::string& key) {
  static const std::set<std::string> standard = {"family_index", "per_family_instance_index",
                                                 "repetitions",  "repetition_index",
                                                 "threads",      "iterations",
                                                 "real_time",    "cpu_time"};
  return standard.count(key) != 0;
}

}  // namespace jfrbpf::bench
