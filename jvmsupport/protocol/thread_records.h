#pragma once
// Threads: their start (with the JavaThread* the BPF walker falls back to), end and renames.
#include <cstdint>
#include <string_view>

#include "jvmsupport/protocol/stream.h"

namespace jfrbpf::protocol {

// ThreadStart flags.
inline constexpr uint32_t kThreadReplayed = 1u << 0;
inline constexpr uint32_t kThreadVirtual = 1u << 1;
inline constexpr uint32_t kThreadDaemon = 1u << 2;
// Set by the encoder when javaThread is known: the field then follows the name. Records without it (all
// of an older agent's) end at the name.
inline constexpr uint32_t kThreadHasJavaThread = 1u << 3;

struct ThreadStart {
  uint64_t time = 0;
  uint32_t tid = 0;  // OS tid in the JVM's pid namespace; 0 if it could not be learnt
  uint32_t flags = 0;  // kThread* flags
  uint64_t javaThreadId = 0;
  std::string_view name;
  uint64_t javaThread = 0;  // the JavaThread* (eetop), for the BPF walker's JavaFrameAnchor fallback; 0 if unknown
};

struct ThreadEnd {
  uint64_t time = 0;
  uint32_t tid = 0;
  uint64_t javaThreadId = 0;
};

// Thread.setName is invisible to JVMTI; the agent notices it by polling and sends the new name.
struct ThreadRename {
  uint64_t time = 0;
  uint32_t tid = 0;
  uint64_t javaThreadId = 0;
  std::string_view name;
};

// ---- encoding (agent side) --------------------------------------------------------------------------------

template <typename Sink>
void encode(WireWriter<Sink>& w, const ThreadStart& r) {
  w.u64(r.time);
  w.u32(r.tid);
  w.u32(r.javaThread != 0 ? r.flags | kThreadHasJavaThread : r.flags & ~kThreadHasJavaThread);
  w.u64(r.javaThreadId);
  w.string(r.name);
  if (r.javaThread != 0) w.u64(r.javaThread);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const ThreadEnd& r) {
  w.u64(r.time);
  w.u32(r.tid);
  w.u64(r.javaThreadId);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const ThreadRename& r) {
  w.u64(r.time);
  w.u32(r.tid);
  w.u64(r.javaThreadId);
  w.string(r.name);
}

// ---- decoding (loader side; every payload is hostile) -----------------------------------------------------

inline bool decode(std::span<const uint8_t> p, ThreadStart& r) {
  WireReader in(p);
  r.time = in.u64();
  r.tid = in.u32();
  r.flags = in.u32();
  r.javaThreadId = in.u64();
  r.name = in.string();
  r.javaThread = (r.flags & kThreadHasJavaThread) != 0 ? in.u64() : 0;
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, ThreadEnd& r) {
  WireReader in(p);
  r.time = in.u64();
  r.tid = in.u32();
  r.javaThreadId = in.u64();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, ThreadRename& r) {
  WireReader in(p);
  r.time = in.u64();
  r.tid = in.u32();
  r.javaThreadId = in.u64();
  r.name = in.string();
  return in.ok();
}

}  // namespace jfrbpf::protocol
