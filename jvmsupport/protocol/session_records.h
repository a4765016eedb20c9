#pragma once
// Session records: Hello (who the agent is and what it can do), Goodbye, the replay brackets around a
// resend of the agent's state, and the agent's count of records it had to drop.
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "jvmsupport/protocol/stream.h"

namespace jfrbpf::protocol {

// Hello flags.
inline constexpr uint32_t kHelloLaunched = 1u << 0;        // -agentpath at JVM start (else: dynamic attach)
inline constexpr uint32_t kHelloMethodPointers = 1u << 1;  // MethodInfo methodPtr/codeStart filled (self-checked)
inline constexpr uint32_t kHelloThreadTids = 1u << 2;      // tids of pre-existing threads read from VMStructs
inline constexpr uint32_t kHelloCodeBlobInfo = 1u << 3;    // BlobInfo filled where the CodeCache walk succeeded
// Bit 4 meant method hooks timed by uprobes (enter and exit): such agents are not used for timing.
inline constexpr uint32_t kHelloMethodHooks = 1u << 5;     // sends HookSites, accepts StartTiming (timing_records.h)
inline constexpr uint32_t kHelloReadsIterators = 1u << 6;  // accepts ReadIterator (timing_records.h)
inline constexpr uint32_t kHelloAllocations = 1u << 7;     // accepts StartAllocations (allocation_records.h)
inline constexpr uint32_t kHelloLocks = 1u << 8;           // accepts StartLocks (lock_records.h)

struct Hello {
  std::array<uint8_t, kTokenSize> token{};  // echoes the token of the agent options
  uint32_t pid = 0;                          // getpid() in the JVM's pid namespace
  uint32_t sessionNumber = 0;                // 1, 2, ... per load of the agent library
  uint32_t jvmtiVersion = 0;                 // GetVersionNumber(); major = (v >> 16) & 0x0fff
  uint32_t flags = 0;                        // kHello* flags
  uint64_t monotonicNs = 0;
  std::string_view vmName;     // java.vm.name
  std::string_view vmVersion;  // java.vm.version
};

enum class GoodbyeReason : uint32_t { kVmDeath = 1, kReplaced = 2, kAgentError = 3 };
struct Goodbye {
  uint32_t reason = 0;  // GoodbyeReason
  uint64_t time = 0;
};

enum class ReplayReason : uint32_t { kInitial = 1, kResync = 2 };
struct ReplayBegin {
  uint32_t reason = 0;  // ReplayReason
  uint64_t time = 0;
};
struct ReplayEnd {
  uint32_t reason = 0;
  uint64_t time = 0;
  uint32_t classes = 0;
  uint32_t methods = 0;
  uint32_t compiledMethods = 0;
  uint32_t codeBlobs = 0;
  uint32_t threads = 0;
};

// Cumulative since the session began.
struct LostRecords {
  uint64_t time = 0;
  uint64_t records = 0;
  uint64_t bytes = 0;
};

// ---- encoding (agent side) --------------------------------------------------------------------------------

template <typename Sink>
void encode(WireWriter<Sink>& w, const Hello& r) {
  w.bytes(r.token.data(), r.token.size());
  w.u32(r.pid);
  w.u32(r.sessionNumber);
  w.u32(r.jvmtiVersion);
  w.u32(r.flags);
  w.u64(r.monotonicNs);
  w.string(r.vmName);
  w.string(r.vmVersion);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const Goodbye& r) {
  w.u32(r.reason);
  w.u64(r.time);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const ReplayBegin& r) {
  w.u32(r.reason);
  w.u64(r.time);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const ReplayEnd& r) {
  w.u32(r.reason);
  w.u64(r.time);
  w.u32(r.classes);
  w.u32(r.methods);
  w.u32(r.compiledMethods);
  w.u32(r.codeBlobs);
  w.u32(r.threads);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const LostRecords& r) {
  w.u64(r.time);
  w.u64(r.records);
  w.u64(r.bytes);
}

// ---- decoding (loader side; every payload is hostile) -----------------------------------------------------

inline bool decode(std::span<const uint8_t> p, Hello& r) {
  WireReader in(p);
  std::span<const uint8_t> token = in.bytes(kTokenSize);
  if (in.ok()) std::memcpy(r.token.data(), token.data(), kTokenSize);
  r.pid = in.u32();
  r.sessionNumber = in.u32();
  r.jvmtiVersion = in.u32();
  r.flags = in.u32();
  r.monotonicNs = in.u64();
  r.vmName = in.string();
  r.vmVersion = in.string();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, Goodbye& r) {
  WireReader in(p);
  r.reason = in.u32();
  r.time = in.u64();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, ReplayBegin& r) {
  WireReader in(p);
  r.reason = in.u32();
  r.time = in.u64();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, ReplayEnd& r) {
  WireReader in(p);
  r.reason = in.u32();
  r.time = in.u64();
  r.classes = in.u32();
  r.methods = in.u32();
  r.compiledMethods = in.u32();
  r.codeBlobs = in.u32();
  r.threads = in.u32();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, LostRecords& r) {
  WireReader in(p);
  r.time = in.u64();
  r.records = in.u64();
  r.bytes = in.u64();
  return in.ok();
}

}  // namespace jfrbpf::protocol
