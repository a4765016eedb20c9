#pragma once
// Reads HotSpot's CodeCache through VMStructs: the code heaps, and for a code address the CodeBlob around
// it (frame size, frame-complete offset, compile id and level) — the facts a stack walker without frame
// pointers needs, which JVMTI does not report. Every read is a safe read; results are validated against
// the address asked for.
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
  bool codeRange(uint64_t blob, uint64_t& begin, uint64_t& end) const;

  bool enabled_ = false;
  uint64_t heapsAddress_ = 0;
  IntField arrayLength_;
  uint64_t arrayData_ = 0;
  uint64_t heapMemory_ = 0, heapSegmap_ = 0;
  IntField heapLog2Segment_;
  uint64_t vsLowBoundary_ = 0, vsHighBoundary_ = 0, vsLow_ = 0, vsHigh_ = 0;
  hotspot::CodeBlobFields blob_;
  uint64_t blobName_ = 0;
  IntField compileId_, compLevel_;
};

}  // namespace jfrbpf::agent
