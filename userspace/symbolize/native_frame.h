#pragma once
// What the symbolizers return for one pc. Strings are views into storage owned by the symbolizer that
// produced them and stay valid for that symbolizer's lifetime, so the hot path hands them out without copying.
#include <cstdint>
#include <string_view>

namespace jfrbpf::symbolize {

enum class FrameKind : uint8_t {
  kSymbol,       // a symbol covers pc: offset = pc - symbol start
  kNoSymbol,     // pc is in a known file but no symbol covers it: symbol = "+0x<offset>", offset = file offset
  kAnonymous,    // anonymous executable memory (JIT code): for the Java resolver; offset = pc - mapping start
  kUnmapped,     // no executable mapping (or kernel symbol) contains pc: symbol = "[unknown]", offset = pc
  kProcessGone,  // the process exited before its pcs could be read: symbol = "[unknown]", offset = pc
};

struct NativeFrame {
  std::string_view library;  // "libc.so.6", the executable's name, "[vdso]", "kernel" or a kernel module
  std::string_view symbol;   // demangled function name, or as described by FrameKind
  uint64_t offset = 0;
  FrameKind kind = FrameKind::kUnmapped;

  bool anonymousExecutable() const { return kind == FrameKind::kAnonymous; }
};

// Placeholder names shared by both symbolizers.
inline constexpr std::string_view kUnknownName = "[unknown]";
inline constexpr std::string_view kKernelLibrary = "kernel";

}  // namespace jfrbpf::symbolize
