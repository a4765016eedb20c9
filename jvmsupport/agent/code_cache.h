#pragma once
// Reads HotSpot's CodeCache through VMStructs: the code heaps, and for a code address the CodeBlob around
// it (frame size, frame-complete offset, compile id and level) — the facts a stack walker without frame
// pointers needs, which JVMTI does not report. Every read is a safe read; results are validated against
// the address asked for.
#include <pthread.h>

#include <cstddef>
#include <cstdint>

#include "jvmsupport/agent/jvm_layout.h"
#include "jvmsupport/agent/vm_structs.h"
#include "jvmsupport/hotspot/code_blob_fields.h"
#include "jvmsupport/protocol/records.h"

namespace jfrbpf::agent {

class CodeCacheLayout {
 public:
  void init(const VmStructs& vm);
  bool enabled() const { return enabled_; }

  // The code heaps (at most `max`); 0 if unknown.
  size_t heaps(protocol::CodeHeap* out, size_t max) const;
  // The blob whose code contains `pc`; false if none is found or the layout does not check out.
  bool blobAt(uint64_t pc, protocol::BlobInfo& out) const;

 private:
  bool heapFor(uint64_t pc, protocol::CodeHeap& heap) const;
  bool cachedHeapFor(uint64_t pc, protocol::CodeHeap& heap) const;
  // From a copy of the HeapBlock and the CodeBlob after it (`header`, `size` bytes from the HeapBlock).
  bool field(const uint8_t* header, size_t size, const hotspot::IntFieldAt& at, int64_t& out) const;
  bool codeRange(const uint8_t* header, size_t size, uint64_t blob, uint64_t& begin, uint64_t& end) const;

  bool enabled_ = false;
  uint64_t heapsAddress_ = 0;
  IntField arrayLength_;
  uint64_t arrayData_ = 0;
  uint64_t heapMemory_ = 0, heapSegmap_ = 0;
  IntField heapLog2Segment_;
  uint64_t vsLowBoundary_ = 0, vsHighBoundary_ = 0, vsLow_ = 0, vsHigh_ = 0;
  hotspot::CodeBlobFields blob_;
  uint64_t blobName_ = 0;
  size_t blobHeaderBytes_ = 0;  // the HeapBlock and the CodeBlob fields read, from the HeapBlock
  IntField compileId_, compLevel_;

  // The heaps as last read: their places never change and their committed parts only grow, so they serve
  // for every pc inside them (blobAt runs on whichever thread compiled or generated the code).
  mutable pthread_mutex_t heapsLock_ = PTHREAD_MUTEX_INITIALIZER;
  static constexpr size_t kMaxHeaps = 16;
  mutable protocol::CodeHeap cachedHeaps_[kMaxHeaps];
  mutable size_t cachedHeapCount_ = 0;
};

}  // namespace jfrbpf::agent
