#pragma once
// The agent -> loader channel: the one definition of every record layout, included by the agent (encode)
// and the loader (decode).
//
// Stream: an 8-byte preamble {u32 kMagic, u16 kVersion, u16 0}, then records {u32 payload length, u16 type,
// payload}. The first record is Hello. All integers little-endian, strings u16 length + bytes (JVM modified
// UTF-8), times CLOCK_MONOTONIC nanoseconds in the JVM's time namespace at the moment of the event.
// Decoders accept trailing payload bytes (room for later fields) but nothing shorter than the layout.
//
// Every record stands alone: a record the agent had to drop (its buffer was full) makes only that record's
// facts unknown, never garbles others. Lost counts arrive in LostRecords; the agent then replays its state
// (ReplayBegin/End with kResync) so the loader converges again.
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "jvmsupport/protocol/wire.h"

namespace jfrbpf::protocol {

inline constexpr uint32_t kMagic = 0x4741424a;  // bytes "JBAG"
inline constexpr uint16_t kVersion = 1;
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
};
inline constexpr uint16_t kLastRecordType = 21;

// ---- session -----------------------------------------------------------------------------------------

// Hello flags.
inline constexpr uint32_t kHelloLaunched = 1u << 0;        // -agentpath at JVM start (else: dynamic attach)
inline constexpr uint32_t kHelloMethodPointers = 1u << 1;  // MethodInfo methodPtr/codeStart filled (self-checked)
inline constexpr uint32_t kHelloThreadTids = 1u << 2;      // tids of pre-existing threads read from VMStructs
inline constexpr uint32_t kHelloCodeBlobInfo = 1u << 3;    // BlobInfo filled where the CodeCache walk succeeded
// Bit 4 meant method hooks timed by uprobes (enter and exit): such agents are not used for timing.
inline constexpr uint32_t kHelloMethodHooks = 1u << 5;     // sends HookSites, accepts StartTiming (timing_records.h)

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

// ---- VMStructs: the JVM's own tables, verbatim --------------------------------------------------------

struct VmStructField {
  std::string_view typeName;
  std::string_view fieldName;
  std::string_view typeString;
  uint8_t isStatic = 0;
  uint64_t offset = 0;   // non-static: byte offset in the type
  uint64_t address = 0;  // static: address in the JVM
};

inline constexpr uint8_t kVmTypeOop = 1;
inline constexpr uint8_t kVmTypeInteger = 2;
inline constexpr uint8_t kVmTypeUnsigned = 4;
struct VmType {
  std::string_view typeName;
  std::string_view superclassName;
  uint8_t flags = 0;  // kVmType* flags
  uint64_t size = 0;
};

struct VmConstant {
  std::string_view name;
  uint8_t isLong = 0;  // from gHotSpotVMLongConstants (else gHotSpotVMIntConstants)
  int64_t value = 0;
};

// One CodeHeap of the code cache, for walkers that map a pc to its CodeBlob through the segment map.
// Sent once per session: the reserved range never changes, the committed end grows as the heap fills.
struct CodeHeap {
  uint64_t reservedLow = 0;
  uint64_t reservedHigh = 0;
  uint64_t committedLow = 0;
  uint64_t committedHigh = 0;
  uint64_t segmapLow = 0;
  uint32_t log2SegmentSize = 0;
};

// ---- classes and methods ------------------------------------------------------------------------------

// Class, Method and DynamicCode flags.
inline constexpr uint32_t kReplayed = 1u << 0;  // sent by a replay of existing state, not at the event itself
inline constexpr uint32_t kHidden = 1u << 1;    // Class: a hidden class (lambdas, defineHiddenClass)

struct ClassInfo {
  uint64_t classId = 0;  // agent-assigned, unique within a session
  uint64_t time = 0;
  uint32_t modifiers = 0;
  uint32_t flags = 0;          // kReplayed, kHidden
  std::string_view name;       // internal form "com/foo/Bar"; hidden: "com/foo/Bar$$Lambda/0x0000..."
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

// ---- code ---------------------------------------------------------------------------------------------

// The CodeBlob around a code range, read from the JVM's CodeCache (0 / -1 when unknown).
struct BlobInfo {
  uint64_t blobAddress = 0;
  int32_t frameSizeWords = -1;  // CodeBlob::_frame_size: return address and saved rbp included
  int32_t frameCompleteOffset = -1;
  int32_t compileId = -1;
  int32_t compLevel = -1;
};
inline constexpr size_t kBlobInfoSize = 24;

// CompiledMethodLoad flags.
inline constexpr uint32_t kCompiledReplayed = 1u << 0;
inline constexpr uint32_t kCompiledInlineTruncated = 1u << 1;  // only the first pcs fit into kMaxPayload

struct InlineFrame {
  uint16_t methodIndex = 0;  // into the record's method table
  int32_t bci = 0;           // -1: method entry
};
inline constexpr size_t kInlineFrameSize = 6;
inline constexpr size_t kInlinePcHeaderSize = 6;

// pc -> inline chain: one entry per JVMTI PCStackInfo, frames innermost first (frames[0] = the method whose
// code the pc executes, last = the compiled root method).
struct CompiledMethodLoad {
  uint64_t time = 0;
  uint64_t methodId = 0;
  uint64_t codeStart = 0;
  uint32_t codeSize = 0;
  uint32_t flags = 0;  // kCompiled* flags
  BlobInfo blob;
  uint16_t methodCount = 0;
  std::span<const uint8_t> methodIdBytes;  // methodCount u64 jmethodIDs
  uint32_t pcCount = 0;
  std::span<const uint8_t> pcTable;  // pcCount x {u32 pcOffset, u16 frameCount, frameCount x InlineFrame}

  uint64_t methodIdAt(size_t i) const { return loadLittleEndian<uint64_t>(methodIdBytes, i * 8); }
};

// Walks a CompiledMethodLoad's pc table; valid only after decode() accepted the record.
class InlinePcCursor {
 public:
  explicit InlinePcCursor(const CompiledMethodLoad& record) : table_(record.pcTable), left_(record.pcCount) {}
  // Moves to the next pc; false at the end.
  bool next(uint32_t& pcOffset, uint16_t& frameCount) {
    if (left_ == 0) return false;
    --left_;
    pos_ = nextPos_;
    pcOffset = loadLittleEndian<uint32_t>(table_, pos_);
    frameCount = loadLittleEndian<uint16_t>(table_, pos_ + 4);
    nextPos_ = pos_ + kInlinePcHeaderSize + size_t{frameCount} * kInlineFrameSize;
    return true;
  }
  InlineFrame frame(size_t i) const {
    size_t at = pos_ + kInlinePcHeaderSize + i * kInlineFrameSize;
    return {loadLittleEndian<uint16_t>(table_, at), loadLittleEndian<int32_t>(table_, at + 2)};
  }

 private:
  std::span<const uint8_t> table_;
  uint32_t left_;
  size_t pos_ = 0;
  size_t nextPos_ = 0;
};

struct CompiledMethodUnload {
  uint64_t time = 0;
  uint64_t methodId = 0;
  uint64_t codeStart = 0;
};

// JVMTI DynamicCodeGenerated: the interpreter, stubs, adapters, ...
struct DynamicCode {
  uint64_t time = 0;
  uint64_t start = 0;
  uint32_t size = 0;
  uint32_t flags = 0;  // kReplayed
  BlobInfo blob;       // the enclosing CodeBlob (a stub may sit inside a larger buffer blob)
  std::string_view name;
};

// ---- threads ------------------------------------------------------------------------------------------

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

// ---- encoding -------------------------------------------------------------------------------------------

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

template <typename Sink>
void encode(WireWriter<Sink>& w, const VmStructField& r) {
  w.string(r.typeName);
  w.string(r.fieldName);
  w.string(r.typeString);
  w.u8(r.isStatic);
  w.u64(r.offset);
  w.u64(r.address);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const VmType& r) {
  w.string(r.typeName);
  w.string(r.superclassName);
  w.u8(r.flags);
  w.u64(r.size);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const VmConstant& r) {
  w.string(r.name);
  w.u8(r.isLong);
  w.i64(r.value);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const CodeHeap& r) {
  w.u64(r.reservedLow);
  w.u64(r.reservedHigh);
  w.u64(r.committedLow);
  w.u64(r.committedHigh);
  w.u64(r.segmapLow);
  w.u32(r.log2SegmentSize);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const ClassInfo& r) {
  w.u64(r.classId);
  w.u64(r.time);
  w.u32(r.modifiers);
  w.u32(r.flags);
  w.string(r.name);
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

template <typename Sink>
void encode(WireWriter<Sink>& w, const BlobInfo& b) {
  w.u64(b.blobAddress);
  w.i32(b.frameSizeWords);
  w.i32(b.frameCompleteOffset);
  w.i32(b.compileId);
  w.i32(b.compLevel);
}

// CompiledMethodLoad: the head (methodIdBytes/pcTable ignored), then methodCount encodeMethodIndexEntry(),
// then u32 pcCount via encodePcCount(), then per pc encodeInlinePc() and its frames via encodeInlineFrame().
template <typename Sink>
void encodeCompiledMethodHead(WireWriter<Sink>& w, const CompiledMethodLoad& r) {
  w.u64(r.time);
  w.u64(r.methodId);
  w.u64(r.codeStart);
  w.u32(r.codeSize);
  w.u32(r.flags);
  encode(w, r.blob);
  w.u16(r.methodCount);
}
template <typename Sink>
void encodeMethodIndexEntry(WireWriter<Sink>& w, uint64_t methodId) {
  w.u64(methodId);
}
template <typename Sink>
void encodePcCount(WireWriter<Sink>& w, uint32_t pcCount) {
  w.u32(pcCount);
}
template <typename Sink>
void encodeInlinePc(WireWriter<Sink>& w, uint32_t pcOffset, uint16_t frameCount) {
  w.u32(pcOffset);
  w.u16(frameCount);
}
template <typename Sink>
void encodeInlineFrame(WireWriter<Sink>& w, InlineFrame f) {
  w.u16(f.methodIndex);
  w.i32(f.bci);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const CompiledMethodUnload& r) {
  w.u64(r.time);
  w.u64(r.methodId);
  w.u64(r.codeStart);
}

template <typename Sink>
void encode(WireWriter<Sink>& w, const DynamicCode& r) {
  w.u64(r.time);
  w.u64(r.start);
  w.u32(r.size);
  w.u32(r.flags);
  encode(w, r.blob);
  w.string(r.name);
}

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

inline bool decode(std::span<const uint8_t> p, VmStructField& r) {
  WireReader in(p);
  r.typeName = in.string();
  r.fieldName = in.string();
  r.typeString = in.string();
  r.isStatic = in.u8();
  r.offset = in.u64();
  r.address = in.u64();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, VmType& r) {
  WireReader in(p);
  r.typeName = in.string();
  r.superclassName = in.string();
  r.flags = in.u8();
  r.size = in.u64();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, VmConstant& r) {
  WireReader in(p);
  r.name = in.string();
  r.isLong = in.u8();
  r.value = in.i64();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, CodeHeap& r) {
  WireReader in(p);
  r.reservedLow = in.u64();
  r.reservedHigh = in.u64();
  r.committedLow = in.u64();
  r.committedHigh = in.u64();
  r.segmapLow = in.u64();
  r.log2SegmentSize = in.u32();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, ClassInfo& r) {
  WireReader in(p);
  r.classId = in.u64();
  r.time = in.u64();
  r.modifiers = in.u32();
  r.flags = in.u32();
  r.name = in.string();
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

inline void decodeBlobInfo(WireReader& in, BlobInfo& b) {
  b.blobAddress = in.u64();
  b.frameSizeWords = in.i32();
  b.frameCompleteOffset = in.i32();
  b.compileId = in.i32();
  b.compLevel = in.i32();
}

inline bool decode(std::span<const uint8_t> p, CompiledMethodLoad& r) {
  WireReader in(p);
  r.time = in.u64();
  r.methodId = in.u64();
  r.codeStart = in.u64();
  r.codeSize = in.u32();
  r.flags = in.u32();
  decodeBlobInfo(in, r.blob);
  r.methodCount = in.u16();
  r.methodIdBytes = in.array(r.methodCount, 8);
  r.pcCount = in.u32();
  if (!in.ok()) return false;
  // Validate the whole pc table once, so InlinePcCursor can read it without checks.
  std::span<const uint8_t> tableStart = p.subspan(p.size() - in.remaining());
  size_t tableSize = 0;
  for (uint32_t i = 0; i < r.pcCount; ++i) {
    in.u32();
    uint16_t frames = in.u16();
    std::span<const uint8_t> frameBytes = in.array(frames, kInlineFrameSize);
    if (!in.ok()) return false;
    for (size_t f = 0; f < frames; ++f) {
      if (loadLittleEndian<uint16_t>(frameBytes, f * kInlineFrameSize) >= r.methodCount) return false;
    }
    tableSize += kInlinePcHeaderSize + frameBytes.size();
  }
  r.pcTable = tableStart.first(tableSize);
  return true;
}

inline bool decode(std::span<const uint8_t> p, CompiledMethodUnload& r) {
  WireReader in(p);
  r.time = in.u64();
  r.methodId = in.u64();
  r.codeStart = in.u64();
  return in.ok();
}

inline bool decode(std::span<const uint8_t> p, DynamicCode& r) {
  WireReader in(p);
  r.time = in.u64();
  r.start = in.u64();
  r.size = in.u32();
  r.flags = in.u32();
  decodeBlobInfo(in, r.blob);
  r.name = in.string();
  return in.ok();
}

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
