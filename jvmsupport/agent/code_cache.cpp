#include "jvmsupport/agent/code_cache.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "jvmsupport/agent/safe_memory.h"

namespace jfrbpf::agent {

namespace {
// HotSpot's segment map chains are short (OTel saw at most 9 hops); a longer chain means garbage.
constexpr int kMaxSegmentHops = 64;
// Segment map bytes read at once, ending at the segment looked up: most chains end inside.
constexpr uint64_t kSegmapWindow = 32;
// A HeapBlock and its CodeBlob's fields fit in this many bytes on every JDK (CodeBlob is about 100 bytes).
constexpr size_t kMaxBlobHeaderBytes = 512;

uint64_t endOf(const hotspot::IntFieldAt& field) { return field.present() ? field.offset + field.width : 0; }
}  // namespace

void CodeCacheLayout::init(const VmStructs& vm) {
  enabled_ = false;
  if (!vm.available() || !safeMemoryAvailable()) return;
  bool ok = vm.staticAddress("CodeCache", "_heaps", heapsAddress_) &&
            vm.fieldOffset("GrowableArray<int>", "_data", arrayData_) &&
            vm.fieldOffset("CodeHeap", "_memory", heapMemory_) && vm.fieldOffset("CodeHeap", "_segmap", heapSegmap_) &&
            vm.fieldOffset("VirtualSpace", "_low_boundary", vsLowBoundary_) &&
            vm.fieldOffset("VirtualSpace", "_high_boundary", vsHighBoundary_) &&
            vm.fieldOffset("VirtualSpace", "_low", vsLow_) && vm.fieldOffset("VirtualSpace", "_high", vsHigh_) &&
            vm.fieldOffset("CodeBlob", "_name", blobName_);
  if (!ok) return;
  auto field = [&vm](const char* type, const char* name) -> std::optional<std::pair<uint64_t, std::string_view>> {
    uint64_t offset = 0;
    const char* typeString = nullptr;
    if (!vm.fieldOffset(type, name, offset, &typeString) || typeString == nullptr) return std::nullopt;
    return std::pair<uint64_t, std::string_view>(offset, typeString);
  };
  auto typeSize = [&vm](std::string_view type) -> uint64_t {
    char name[128];
    if (type.size() >= sizeof name) return 0;
    std::memcpy(name, type.data(), type.size());
    name[type.size()] = '\0';
    uint64_t size = 0;
    return vm.typeSize(name, size) ? size : 0;
  };
  const char* whyNot = nullptr;
  std::optional<hotspot::CodeBlobFields> blob = hotspot::codeBlobFields(field, typeSize, whyNot);
  if (!blob) return;
  blob_ = *blob;
  arrayLength_ = findIntField(vm, "GrowableArrayBase", "_len");
  heapLog2Segment_ = findIntField(vm, "CodeHeap", "_log2_segment_size");
  compileId_ = findIntField(vm, "nmethod", "_compile_id");
  compLevel_ = findIntField(vm, "nmethod", "_comp_level");
  if (!compLevel_.present()) compLevel_ = findIntField(vm, "CompiledMethod", "_comp_level");
  const uint64_t blobEnd = std::max({endOf(blob_.frameSize), endOf(blob_.frameCompleteOffset),
                                     blob_.codeAsOffsets ? endOf(blob_.codeBegin) : blob_.codeBegin.offset + 8,
                                     blob_.codeAsOffsets ? endOf(blob_.codeEnd) : blob_.codeEnd.offset + 8,
                                     blobName_ + 8});
  blobHeaderBytes_ = std::max<uint64_t>(blob_.heapBlockSize + blobEnd, endOf(blob_.heapBlockUsed));
  enabled_ = arrayLength_.present() && heapLog2Segment_.present() && blobHeaderBytes_ <= kMaxBlobHeaderBytes;
}

size_t CodeCacheLayout::heaps(protocol::CodeHeap* out, size_t max) const {
  if (!enabled_) return 0;
  uint64_t array = 0, data = 0;
  int64_t length = 0, log2 = 0;
  if (!safeRead(heapsAddress_, array) || array == 0) return 0;
  if (!arrayLength_.read(array, length) || length <= 0 || !safeRead(array + arrayData_, data)) return 0;
  size_t n = 0;
  for (int64_t i = 0; i < length && i < static_cast<int64_t>(kMaxHeaps) && n < max; ++i) {
    uint64_t heap = 0;
    protocol::CodeHeap h;
    if (!safeRead(data + 8 * static_cast<uint64_t>(i), heap) || heap == 0) continue;
    uint64_t memory = heap + heapMemory_;
    if (!safeRead(memory + vsLowBoundary_, h.reservedLow) || !safeRead(memory + vsHighBoundary_, h.reservedHigh) ||
        !safeRead(memory + vsLow_, h.committedLow) || !safeRead(memory + vsHigh_, h.committedHigh) ||
        !safeRead(heap + heapSegmap_ + vsLow_, h.segmapLow) || !heapLog2Segment_.read(heap, log2)) {
      continue;
    }
    if (log2 < 4 || log2 > 20 || h.committedLow > h.committedHigh) continue;
    h.log2SegmentSize = static_cast<uint32_t>(log2);
    out[n++] = h;
  }
  return n;
}

bool CodeCacheLayout::cachedHeapFor(uint64_t pc, protocol::CodeHeap& heap) const {
  for (size_t i = 0; i < cachedHeapCount_; ++i) {
    if (pc >= cachedHeaps_[i].committedLow && pc < cachedHeaps_[i].committedHigh) {
      heap = cachedHeaps_[i];
      return true;
    }
  }
  return false;
}

bool CodeCacheLayout::heapFor(uint64_t pc, protocol::CodeHeap& heap) const {
  pthread_mutex_lock(&heapsLock_);
  bool found = cachedHeapFor(pc, heap);
  if (!found) {  // a heap grew, or the pc is in none
    cachedHeapCount_ = heaps(cachedHeaps_, kMaxHeaps);
    found = cachedHeapFor(pc, heap);
  }
  pthread_mutex_unlock(&heapsLock_);
  return found;
}

bool CodeCacheLayout::field(const uint8_t* header, size_t size, const hotspot::IntFieldAt& at, int64_t& out) const {
  return at.present() && integerAt(header, size, blob_.heapBlockSize + at.offset, at.width, at.isSigned, out);
}

bool CodeCacheLayout::codeRange(const uint8_t* header, size_t size, uint64_t blob, uint64_t& begin,
                                uint64_t& end) const {
  if (!blob_.codeAsOffsets) {
    const uint64_t beginAt = blob_.heapBlockSize + blob_.codeBegin.offset;
    const uint64_t endAt = blob_.heapBlockSize + blob_.codeEnd.offset;
    if (beginAt + 8 > size || endAt + 8 > size) return false;
    std::memcpy(&begin, header + beginAt, 8);
    std::memcpy(&end, header + endAt, 8);
    return true;
  }
  int64_t codeOffset = 0, dataOffset = 0;
  if (!field(header, size, blob_.codeBegin, codeOffset) || !field(header, size, blob_.codeEnd, dataOffset)) return false;
  if (codeOffset < 0 || dataOffset < codeOffset) return false;
  begin = blob + static_cast<uint64_t>(codeOffset);
  end = blob + static_cast<uint64_t>(dataOffset);
  return true;
}

bool CodeCacheLayout::blobAt(uint64_t pc, protocol::BlobInfo& out) const {
  protocol::CodeHeap heap;
  if (!enabled_ || !heapFor(pc, heap)) return false;
  uint64_t segment = (pc - heap.committedLow) >> heap.log2SegmentSize;
  uint8_t window[kSegmapWindow];
  uint64_t windowStart = 1, windowEnd = 0;  // the segments in `window`: none yet
  for (int hops = 0;; ++hops) {
    if (hops >= kMaxSegmentHops) return false;
    if (segment < windowStart || segment >= windowEnd) {
      windowEnd = segment + 1;
      windowStart = segment >= kSegmapWindow - 1 ? segment - (kSegmapWindow - 1) : 0;
      if (!safeRead(heap.segmapLow + windowStart, window, windowEnd - windowStart)) return false;
    }
    const uint8_t tag = window[segment - windowStart];
    if (tag == 0xff) return false;
    if (tag == 0) break;
    if (tag > segment) return false;
    segment -= tag;
  }
  const uint64_t block = heap.committedLow + (segment << heap.log2SegmentSize);
  const uint64_t blob = block + blob_.heapBlockSize;
  uint8_t header[kMaxBlobHeaderBytes];
  const size_t size = blobHeaderBytes_;
  if (!safeRead(block, header, size)) return false;
  int64_t used = 0;
  if (!blob_.heapBlockUsed.present() ||
      !integerAt(header, size, blob_.heapBlockUsed.offset, blob_.heapBlockUsed.width, false, used) ||
      (used & 0xff) == 0) {
    return false;
  }
  uint64_t begin = 0, end = 0;
  if (!codeRange(header, size, blob, begin, end) || pc < begin || pc >= end) return false;

  int64_t frameSize = -1, frameComplete = -1;
  if (!field(header, size, blob_.frameSize, frameSize) || !field(header, size, blob_.frameCompleteOffset, frameComplete)) {
    return false;
  }
  out = protocol::BlobInfo{};
  out.blobAddress = blob;
  out.frameSizeWords = static_cast<int32_t>(frameSize);
  out.frameCompleteOffset = static_cast<int32_t>(frameComplete);

  uint64_t namePtr = 0;
  std::memcpy(&namePtr, header + blob_.heapBlockSize + blobName_, sizeof namePtr);
  char name[8] = {};
  if (safeRead(namePtr, name, sizeof name) && std::memcmp(name, "nmethod", 8) == 0) {
    int64_t id = -1, level = -1;
    if (compileId_.read(blob, id)) out.compileId = static_cast<int32_t>(id);
    if (compLevel_.read(blob, level)) out.compLevel = static_cast<int32_t>(level);
  }
  return true;
}

}  // namespace jfrbpf::agent
