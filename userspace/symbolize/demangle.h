#pragma once
// Readable names for C++ (Itanium ABI) and legacy Rust symbols. Reuses one output buffer across calls so
// demangling a table's worth of names does not allocate per name.
#include <cstddef>
#include <string>
#include <string_view>

namespace jfrbpf::symbolize {

class Demangler {
 public:
  Demangler() = default;
  Demangler(const Demangler&) = delete;
  Demangler& operator=(const Demangler&) = delete;
  ~Demangler();

  // `mangled` must be NUL-terminated. Returns the demangled name, or `mangled` itself when it is not a
  // mangled name. The result is valid until the next call.
  std::string_view demangle(const char* mangled);

 private:
  std::string_view cleanRustLegacy(std::string_view demangled);

  char* buffer_ = nullptr;  // malloc'ed, grown by __cxa_demangle
  size_t capacity_ = 0;
  std::string rust_;
};

}  // namespace jfrbpf::symbolize
