#include "tests/jfrreader/json.h"

#include <stdexcept>

namespace jfrbpf::jfr::testing {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Json document() {
    Json value = parseValue(0);
    skipSpace();
    if (pos_ != s_.size()) fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON at " + std::to_string(pos_) + ": " + what);
  }
  void skipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool consume(std::string_view token) {
    if (s_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  void expect(char c) {
    skipSpace();
    if (pos_ >= s_.size() || s_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  Json parseValue(int depth) {
    if (depth > 200) fail("nested too deeply");
    skipSpace();
    if (pos_ >= s_.size()) fail("unexpected end");
    Json v;
    char c = s_[pos_];
    if (c == '{') {
      v.type = Json::Type::kObject;
      ++pos_;
      skipSpace();
      if (consume("}")) return v;
      do {
        skipSpace();
        std::string key = parseString();
        expect(':');
        v.names.push_back(std::move(key));
        v.items.push_back(parseValue(depth + 1));
        skipSpace();
      } while (consume(","));
      expect('}');
    } else if (c == '[') {
      v.type = Json::Type::kArray;
      ++pos_;
      skipSpace();
      if (consume("]")) return v;
      do {
        v.items.push_back(parseValue(depth + 1));
        skipSpace();
      } while (consume(","));
      expect(']');
    } else if (c == '"') {
      v.type = Json::Type::kString;
      v.text = parseString();
    } else if (consume("null")) {
      v.type = Json::Type::kNull;
    } else if (consume("true")) {
      v.type = Json::Type::kBool;
      v.boolean = true;
    } else if (consume("false")) {
      v.type = Json::Type::kBool;
    } else {
      v.type = Json::Type::kNumber;
      size_t start = pos_;
      while (pos_ < s_.size() && std::string_view("+-0123456789.eEaNInfinity").find(s_[pos_]) != std::string_view::npos) ++pos_;
      if (pos_ == start) fail("unexpected character");
      v.text = std::string(s_.substr(start, pos_ - start));
    }
    return v;
  }

  uint32_t hex4() {
    if (pos_ + 4 > s_.size()) fail("short \\u escape");
    uint32_t v = std::stoul(std::string(s_.substr(pos_, 4)), nullptr, 16);
    pos_ += 4;
    return v;
  }

  static void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | cp >> 6);
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | cp >> 12);
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | cp >> 18);
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string parseString() {
    if (!consume("\"")) fail("expected a string");
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF && consume("\\u")) {
            uint32_t low = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          appendUtf8(out, cp);
          break;
        }
        default: out += e;  // \" \\ \/
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

const Json* Json::member(std::string_view name) const {
  if (type != Type::kObject) return nullptr;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return &items[i];
  }
  return nullptr;
}

Json parseJson(std::string_view text) { return Parser(text).document(); }

}  // namespace jfrbpf::jfr::testing
