#include "tests/jfr/json.h"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

namespace jfrbpf::test {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text, const std::vector<std::string_view>* path = nullptr,
                      const std::function<void(const Json&)>* each = nullptr)
      : text_(text), path_(path), each_(each) {}

  Json document() {
    Json value = parseValue(0, path_ != nullptr);
    skipSpace();
    if (pos_ != text_.size()) fail("trailing characters");
    return value;
  }

 private:
  static constexpr int kMaxDepth = 512;

  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(pos_));
  }
  void skipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }
  char peek() {
    skipSpace();
    if (pos_ >= text_.size()) fail("unexpected end");
    return text_[pos_];
  }
  void consume(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool consumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // `onPath`: this value is reached through the first `depth` keys of path_.
  Json parseValue(int depth, bool onPath = false) {
    if (depth > kMaxDepth) fail("nesting too deep");
    Json value;
    char c = peek();
    if (c == '{') {
      value.kind_ = Json::Kind::Object;
      ++pos_;
      if (peek() == '}') return ++pos_, value;
      for (;;) {
        std::string key = parseString();
        consume(':');
        const bool next = onPath && static_cast<size_t>(depth) < path_->size() && key == (*path_)[static_cast<size_t>(depth)];
        value.members_.emplace_back(std::move(key), parseValue(depth + 1, next));
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        consume('}');
        return value;
      }
    }
    if (c == '[') {
      value.kind_ = Json::Kind::Array;
      ++pos_;
      if (peek() == ']') return ++pos_, value;
      const bool streamed = onPath && static_cast<size_t>(depth) == path_->size();
      for (;;) {
        if (streamed) {
          (*each_)(parseValue(depth + 1));
        } else {
          value.items_.push_back(parseValue(depth + 1));
        }
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        consume(']');
        return value;
      }
    }
    if (c == '"') {
      value.kind_ = Json::Kind::String;
      value.string_ = parseString();
      return value;
    }
    if (consumeWord("true")) {
      value.kind_ = Json::Kind::Boolean;
      value.boolean_ = true;
      return value;
    }
    if (consumeWord("false")) {
      value.kind_ = Json::Kind::Boolean;
      return value;
    }
    if (consumeWord("null")) return value;
    return parseNumber();
  }

  Json parseNumber() {
    size_t start = pos_;
    bool integer = true;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '.' || c == 'e' || c == 'E') integer = false;
      if (!(c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9'))) break;
      ++pos_;
    }
    if (start == pos_) fail("unexpected character");
    std::string literal(text_.substr(start, pos_ - start));
    Json value;
    value.kind_ = Json::Kind::Number;
    char* end = nullptr;
    value.number_ = std::strtod(literal.c_str(), &end);
    if (end != literal.c_str() + literal.size()) fail("bad number '" + literal + "'");
    if (integer) {
      auto [ptr, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), value.integer_);
      value.isInteger_ = ec == std::errc() && ptr == literal.data() + literal.size();
    }
    return value;
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<unsigned>(c - 'A' + 10);
      else
        fail("bad \\u escape");
    }
    return v;
  }

  static void appendUtf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string parseString() {
    consume('"');
    std::string out;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            unsigned low = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          appendUtf8(out, cp);
          break;
        }
        default:
          fail("bad escape");
      }
    }
    fail("unterminated string");
  }

  std::string_view text_;
  const std::vector<std::string_view>* path_;
  const std::function<void(const Json&)>* each_;
  size_t pos_ = 0;
};

Json Json::parse(std::string_view text) { return JsonParser(text).document(); }

Json Json::parseEach(std::string_view text, const std::vector<std::string_view>& path,
                     const std::function<void(const Json&)>& each) {
  return JsonParser(text, &path, &each).document();
}

void Json::expect(Kind kind, const char* what) const {
  if (kind_ != kind) throw std::runtime_error(std::string("JSON value is not ") + what);
}

bool Json::has(std::string_view key) const {
  if (kind_ != Kind::Object) return false;
  for (const auto& [name, value] : members_)
    if (name == key) return true;
  return false;
}

const Json& Json::operator[](std::string_view key) const {
  expect(Kind::Object, "an object");
  for (const auto& [name, value] : members_)
    if (name == key) return value;
  throw std::runtime_error("JSON object has no member '" + std::string(key) + "'");
}

const Json& Json::operator[](size_t index) const {
  expect(Kind::Array, "an array");
  if (index >= items_.size()) throw std::runtime_error("JSON array index " + std::to_string(index) + " out of range");
  return items_[index];
}

size_t Json::size() const { return kind_ == Kind::Array ? items_.size() : kind_ == Kind::Object ? members_.size() : 0; }

bool Json::boolean() const {
  expect(Kind::Boolean, "a boolean");
  return boolean_;
}

int64_t Json::integer() const {
  expect(Kind::Number, "a number");
  if (!isInteger_) throw std::runtime_error("JSON number is not an integer");
  return integer_;
}

double Json::number() const {
  expect(Kind::Number, "a number");
  return number_;
}

const std::string& Json::string() const {
  expect(Kind::String, "a string");
  return string_;
}

const std::vector<Json>& Json::items() const {
  expect(Kind::Array, "an array");
  return items_;
}

}  // namespace jfrbpf::test
