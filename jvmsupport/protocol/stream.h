#pragma once
// The agent -> loader channel: its framing, the record types, and the agent's options and results. Each
// family of records has its own header (session, VM layout, methods, code, threads, timing); records.h
// includes them all.
//
// Stream: an 8-byte preamble {u32 kMagic, u16 kVersion, u16 0}, then records {u32 payload length, u16 type,
// payload}. The first record is Hello. All integers little-endian, strings u16 length + bytes (JVM modified
// UTF-8), times CLOCK_MONOTONIC nanoseconds in the JVM's time namespace at the moment of the event.
// Decoders accept trailing payload bytes (room for later fields) but nothing shorter than the layout.
//
// Every record stands alone: a record the agent had to drop (its buffer was full) makes only that record's
// facts unknown, never garbles others. Lost counts arrive in LostRecords; the agent then replays its state
// (ReplayBegin/End with kResync) so the loader converges again.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jvmsupport/protocol/wire.h"

namespace jfrbpf::protocol {

inline constexpr uint32_t kMagic = 0x4741424a;  // bytes "JBAG"
inline constexpr uint16_t kVersion = 2;
inline constexpr size_t kPreambleSize = 8;
inline constexpr size_t kRecordHeaderSize = 6;
// No record is larger; the agent truncates inline tables to fit and marks the record.
inline constexpr uint32_t kMaxPayload = 1u << 20;
inline constexpr size_t kTokenSize = 16;

// Agent options (one string, as -agentpath:lib=OPTIONS or jcmd JVMTI.agent_load lib OPTIONS):
// "channel:<abstract AF_UNIX name without the leading NUL>,token:<32 hex digits>,protocol:<kVersion>".
// The agent also accepts '=' for ':', but the loader writes ':' because jcmd's argument parser would take
// "channel=..." for a named diagnostic-command option and pass only "channel" to the agent.
inline constexpr std::string_view kOptionChannel = "channel";
inline constexpr std::string_view kOptionToken = "token";
inline constexpr std::string_view kOptionProtocol = "protocol";
// Optional: the agent's record buffer in KiB (default 8192, at least 64, at most 262144).
inline constexpr std::string_view kOptionBuffer = "buffer";
inline constexpr char kOptionSeparator = ':';

// Agent_OnAttach's result, which the attach reply reports as "return code: N". Agent_OnLoad always returns
// 0 (a profiler must not stop a JVM from starting) and prints the reason on stderr instead.
inline constexpr int kAgentOk = 0;
inline constexpr int kAgentBadOptions = 1;
inline constexpr int kAgentNoChannel = 2;
inline constexpr int kAgentJvmtiUnavailable = 3;
// The attach listener can serve a load before the JVM enters the live phase, when no JVMTI environment can
// be created yet: the loader tries again shortly.
inline constexpr int kAgentVmStarting = 4;
// The agent serves kMaxAgentSessions loaders already.
inline constexpr int kAgentBusy = 5;
// How many loaders (jfrbpf recorders) one JVM's agent serves at once.
inline constexpr size_t kMaxAgentSessions = 4;

enum class RecordType : uint16_t {
  kHello = 1,
  kGoodbye = 2,
  kReplayBegin = 3,
  kReplayEnd = 4,
  kLostRecords = 5,
  kVmStructField = 6,
  kVmType = 7,
  kVmConstant = 8,
  kCodeHeap = 9,
  kClass = 10,
  kMethod = 11,
  kCompiledMethodLoad = 12,
  kCompiledMethodUnload = 13,
  kDynamicCode = 14,
  kThreadStart = 15,
  kThreadEnd = 16,
  kThreadRename = 17,
  // Method timing; layouts in timing_records.h.
  kHookSites = 18,
  kTimedMethod = 19,
  kTimingSkipped = 20,
  kTimingStatus = 21,
  kClassUnload = 22,  // method_records.h
  kAllocationStatus = 23,  // allocation_records.h
  kLockStatus = 24,        // lock_records.h
  kVirtualThreadWait = 25,  // virtual_thread_records.h
  kContinuationLayout = 26,  // vm_records.h
};
inline constexpr uint16_t kLastRecordType = 26;

// Flag of Class, Method and DynamicCode records: sent by a replay of existing state, not at the event itself.
inline constexpr uint32_t kReplayed = 1u << 0;

template <typename Sink>
void encodePreamble(WireWriter<Sink>& w) {
  w.u32(kMagic);
  w.u16(kVersion);
  w.u16(0);
}

// The record header with the payload length still unknown: encode the payload into its own buffer first.
template <typename Sink>
void encodeRecordHeader(WireWriter<Sink>& w, RecordType type, uint32_t payloadLength) {
  w.u32(payloadLength);
  w.u16(static_cast<uint16_t>(type));
}

}  // namespace jfrbpf::protocol
