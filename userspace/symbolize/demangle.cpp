#include "userspace/symbolize/demangle.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace jfrbpf::symbolize {
namespace {

constexpr size_t kRustHashLength = 17;  // "h" + 16 hex digits
// Real names stay far below this; a hostile object's giant name is shown mangled rather than expanded.
constexpr size_t kMaxMangledLength = 16 * 1024;

bool isHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Legacy Rust symbols demangle as C++ names whose last component is "h<16 hex digits>".
bool hasRustHash(std::string_view name) {
  if (name.size() < kRustHashLength + 2) return false;
  std::string_view tail = name.substr(name.size() - kRustHashLength - 2);
  if (!tail.starts_with("::h")) return false;
  for (char c : tail.substr(3)) {
    if (!isHex(c)) return false;
  }
  return true;
}

// Rust's legacy escapes for characters C++ identifiers cannot hold.
char rustEscape(std::string_view code) {
  if (code == "LT") return '<';
  if (code == "GT") return '>';
  if (code == "RF") return '&';
  if (code == "BP") return '*';
  if (code == "C") return ',';
  if (code == "SP") return '@';
  if (code == "LP") return '(';
  if (code == "RP") return ')';
  if (code.size() == 3 && code[0] == 'u' && isHex(code[1]) && isHex(code[2])) {
    auto digit = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    int value = digit(code[1]) * 16 + digit(code[2]);
    if (value >= 0x20 && value < 0x7f) return static_cast<char>(value);
  }
  return '\0';
}

}  // namespace

Demangler::~Demangler() { std::free(buffer_); }

std::string_view Demangler::demangle(const char* mangled) {
  if (mangled[0] != '_' || mangled[1] != 'Z' || strnlen(mangled, kMaxMangledLength + 1) > kMaxMangledLength) {
    return mangled;
  }
  int status = 0;
  size_t length = capacity_;
  char* result = abi::__cxa_demangle(mangled, buffer_, &length, &status);
  if (status != 0 || result == nullptr) return mangled;
  // __cxa_demangle may have realloc'ed the buffer; it reports the new size through `length`.
  buffer_ = result;
  capacity_ = length;
  std::string_view demangled(result);
  return hasRustHash(demangled) ? cleanRustLegacy(demangled) : demangled;
}

std::string_view Demangler::cleanRustLegacy(std::string_view demangled) {
  demangled.remove_suffix(kRustHashLength + 2);
  rust_.clear();
  for (size_t i = 0; i < demangled.size();) {
    char c = demangled[i];
    if (c == '$') {
      size_t close = demangled.find('$', i + 1);
      if (close != std::string_view::npos) {
        if (char decoded = rustEscape(demangled.substr(i + 1, close - i - 1))) {
          rust_.push_back(decoded);
          i = close + 1;
          continue;
        }
      }
    } else if (c == '_' && i + 1 < demangled.size() && demangled[i + 1] == '$' &&
               (i == 0 || demangled.substr(0, i).ends_with("::"))) {
      ++i;  // a component starting with an escape gets a '_' in front to stay an identifier
      continue;
    } else if (c == '.' && i + 1 < demangled.size() && demangled[i + 1] == '.') {
      rust_.append("::");
      i += 2;
      continue;
    }
    rust_.push_back(c);
    ++i;
  }
  return rust_;
}

}  // namespace jfrbpf::symbolize
