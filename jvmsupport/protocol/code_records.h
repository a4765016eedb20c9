#pragma once
// Code: compiled methods with the inline chain of every pc, their unloading, and the code the JVM generates
// for itself (interpreter, stubs, adapters), each with the CodeBlob around it.
#include <cstdint>
#include <span>
#include <string_view>

#include "jvmsupport/protocol/stream.h"

namespace jfrbpf::protocol {

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

// ---- encoding (agent side) --------------------------------------------------------------------------------

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

// ---- decoding (loader side; every payload is hostile) -----------------------------------------------------

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

}  // namespace jfrbpf::protocol
