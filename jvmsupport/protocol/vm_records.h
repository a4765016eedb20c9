#pragma once
// The JVM's own layout tables (VMStructs), verbatim, and its code heaps: what the loader and the BPF walker
// read HotSpot's data structures and frames with.
#include <cstdint>
#include <span>
#include <string_view>

#include "jvmsupport/protocol/stream.h"

namespace jfrbpf::protocol {

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

// Where the Java objects behind a virtual thread's frozen frames keep what the walker reads (JDK 21+): the
// fields' offsets, which VMStructs does not list (the agent takes them from JNI field ids and checks its
// reading against JNI's own), and where a StackChunk's frames begin (its class's instance size). Sent with
// the VM tables when the agent could establish all of it, never in part. With it, where the loader reads a
// virtual thread's id and name from its Thread object: all 0 where the agent could not check that reading.
struct ContinuationLayout {
  uint32_t virtualThreadCont = 0;  // VirtualThread.cont (Continuation)
  uint32_t continuationTail = 0;   // Continuation.tail (StackChunk): the chunk with the youngest frozen frames
  uint32_t chunkParent = 0;        // StackChunk.parent (StackChunk): older frames
  uint32_t chunkSize = 0;          // StackChunk.size, sp, bottom (int, in words from the chunk's stack)
  uint32_t chunkSp = 0;
  uint32_t chunkBottom = 0;
  uint32_t chunkStack = 0;       // the chunk's stack, in bytes from the object's start
  uint8_t compressedOops = 0;    // reference fields are narrow oops (CompressedOops::_base and _shift)
  uint32_t threadTid = 0;        // Thread.tid (long)
  uint32_t threadName = 0;       // Thread.name (String)
  uint32_t stringValue = 0;      // String.value (byte[])
  uint32_t stringCoder = 0;      // String.coder (byte): 0 Latin-1, 1 UTF-16 (the JVM's byte order)
  uint32_t byteArrayLength = 0;  // a byte[]'s length (int), and its first element, from the object's start
  uint32_t byteArrayBase = 0;
  uint64_t narrowOopBase = 0;    // with compressedOops: an object's address is base + (narrow << shift)
  uint8_t narrowOopShift = 0;
};

// ---- encoding (agent side) --------------------------------------------------------------------------------

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
void encode(WireWriter<Sink>& w, const ContinuationLayout& r) {
  w.u32(r.virtualThreadCont);
  w.u32(r.continuationTail);
  w.u32(r.chunkParent);
  w.u32(r.chunkSize);
  w.u32(r.chunkSp);
  w.u32(r.chunkBottom);
  w.u32(r.chunkStack);
  w.u8(r.compressedOops);
  w.u32(r.threadTid);
  w.u32(r.threadName);
  w.u32(r.stringValue);
  w.u32(r.stringCoder);
  w.u32(r.byteArrayLength);
  w.u32(r.byteArrayBase);
  w.u64(r.narrowOopBase);
  w.u8(r.narrowOopShift);
}

// ---- decoding (loader side; every payload is hostile) -----------------------------------------------------

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

inline bool decode(std::span<const uint8_t> p, ContinuationLayout& r) {
  WireReader in(p);
  r.virtualThreadCont = in.u32();
  r.continuationTail = in.u32();
  r.chunkParent = in.u32();
  r.chunkSize = in.u32();
  r.chunkSp = in.u32();
  r.chunkBottom = in.u32();
  r.chunkStack = in.u32();
  r.compressedOops = in.u8();
  r.threadTid = in.u32();
  r.threadName = in.u32();
  r.stringValue = in.u32();
  r.stringCoder = in.u32();
  r.byteArrayLength = in.u32();
  r.byteArrayBase = in.u32();
  r.narrowOopBase = in.u64();
  r.narrowOopShift = in.u8();
  return in.ok();
}

}  // namespace jfrbpf::protocol
