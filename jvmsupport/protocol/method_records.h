#pragma once
// Classes and methods: names, signatures and line tables, keyed by the ids the code records refer to.
#include <cstdint>
#include <span>
#include <string_view>

#include "jvmsupport/protocol/stream.h"

namespace jfrbpf::protocol {

// Class flags, besides kReplayed.
inline constexpr uint32_t kHidden = 1u << 1;  // a hidden class (lambdas, defineHiddenClass)

struct ClassInfo {
  uint64_t classId = 0;  // agent-assigned, unique within a session
  uint64_t time = 0;
  uint32_t modifiers = 0;
  uint32_t flags = 0;          // kReplayed, kHidden
  std::string_view name;       // internal form "com/foo/Bar"; hidden: "com/foo/Bar$$Lambda/0x0000..."
};

// The JVM unloaded a class (its mirror was freed): its methods will not run again.
struct ClassUnload {
  uint64_t classId = 0;
  uint64_t time = 0;
};

struct LineEntry {
  uint32_t startBci = 0;
  uint32_t line = 0;
};
inline constexpr size_t kLineEntrySize = 8;

struct MethodInfo {
  uint64_t time = 0;
  uint64_t methodId = 0;   // the jmethodID value: stable for the method's life
  uint64_t classId = 0;
  uint64_t methodPtr = 0;  // Method*, 0 if unknown
  uint64_t codeStart = 0;  // address of bytecode 0 (bci = bcp - codeStart), 0 if unknown
  uint32_t codeSize = 0;   // bytecode length, 0 if unknown
  uint32_t modifiers = 0;
  uint32_t flags = 0;  // kReplayed
  std::string_view name;
  std::string_view signature;
  uint32_t lineCount = 0;
  std::span<const uint8_t> lineBytes;  // lineCount LineEntry, in the order the JVM gave them

  LineEntry line(size_t i) const {
    return {loadLittleEndian<uint32_t>(lineBytes, i * kLineEntrySize),
            loadLittleEndian<uint32_t>(lineBytes, i * kLineEntrySize + 4)};
  }
};

// ---- encoding (agent side) --------------------------------------------------------------------------------

template <typename Sink>
void encode(WireWriter<Sink>& w, const ClassInfo& r) {
  w.u64(r.classId);
  w.u64(r.time);
  w.u32(r.modifiers);
  w.u32(r.flags);
  w.string(r.name);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const ClassUnload& r) {
  w.u64(r.classId);
  w.u64(r.time);
}

// Method: the fixed part and strings; then exactly lineCount encodeLine() calls.
template <typename Sink>
void encodeMethodHead(WireWriter<Sink>& w, const MethodInfo& r) {
  w.u64(r.time);
  w.u64(r.methodId);
  w.u64(r.classId);
  w.u64(r.methodPtr);
  w.u64(r.codeStart);
  w.u32(r.codeSize);
  w.u32(r.modifiers);
  w.u32(r.flags);
  w.string(r.name);
  w.string(r.signature);
  w.u32(r.lineCount);
}
template <typename Sink>
void encodeLine(WireWriter<Sink>& w, LineEntry e) {
  w.u32(e.startBci);
  w.u32(e.line);
}

// ---- decoding (loader side; every payload is hostile) -----------------------------------------------------

inline bool decode(std::span<const uint8_t> p, ClassInfo& r) {
  WireReader in(p);
  r.classId = in.u64();
  r.time = in.u64();
  r.modifiers = in.u32();
  r.flags = in.u32();
  r.name = in.string();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, ClassUnload& r) {
  WireReader in(p);
  r.classId = in.u64();
  r.time = in.u64();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, MethodInfo& r) {
  WireReader in(p);
  r.time = in.u64();
  r.methodId = in.u64();
  r.classId = in.u64();
  r.methodPtr = in.u64();
  r.codeStart = in.u64();
  r.codeSize = in.u32();
  r.modifiers = in.u32();
  r.flags = in.u32();
  r.name = in.string();
  r.signature = in.string();
  r.lineCount = in.u32();
  r.lineBytes = in.array(r.lineCount, kLineEntrySize);
  return in.ok();
}

}  // namespace jfrbpf::protocol
