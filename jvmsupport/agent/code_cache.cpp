#include "jvmsupport/agent/code_cache.h"

#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "jvmsupport/agent/safe_memory.h"

namespace jfrbpf::agent {

namespace {
constexpr size_t kMaxHeaps = 16;
// HotSpot's segment map chains are short (OTel saw at most 9 hops); a longer chain means garbage.
constexpr int kMaxSegmentHops = 64;
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
  enabled_ = arrayLength_.present() && heapLog2Segment_.present();
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

bool CodeCacheLayout::heapFor(uint64_t pc, protocol::CodeHeap& heap) const {
  protocol::CodeHeap all[kMaxHeaps];
  size_t n = heaps(all, kMaxHeaps);
  for (size_t i = 0; i < n; ++i) {
    if (pc >= all[i].committedLow && pc < all[i].committedHigh) {
      heap = all[i];
      return true;
    }
  }
  return false;
}

bool CodeCacheLayout::codeRange(uint64_t blob, uint64_t& begin, uint64_t& end) const {
  if (!blob_.codeAsOffsets) return safeRead(blob + blob_.codeBegin.offset, begin) && safeRead(blob + blob_.codeEnd.offset, end);
  int64_t codeOffset = 0, dataOffset = 0;
  if (!IntField(blob_.codeBegin).read(blob, codeOffset) || !IntField(blob_.codeEnd).read(blob, dataOffset)) return false;
  if (codeOffset < 0 || dataOffset < codeOffset) return false;
  begin = blob + static_cast<uint64_t>(codeOffset);
  end = blob + static_cast<uint64_t>(dataOffset);
  return true;
}

bool CodeCacheLayout::blobAt(uint64_t pc, protocol::BlobInfo& out) const {
  protocol::CodeHeap heap;
  if (!enabled_ || !heapFor(pc, heap)) return false;
  uint64_t segment = (pc - heap.committedLow) >> heap.log2SegmentSize;
  for (int hops = 0;; ++hops) {
    uint8_t tag = 0xff;
    if (hops >= kMaxSegmentHops || !safeRead(heap.segmapLow + segment, tag) || tag == 0xff) return false;
    if (tag == 0) break;
    if (tag > segment) return false;
    segment -= tag;
  }
  uint64_t block = heap.committedLow + (segment << heap.log2SegmentSize);
  uint8_t used = 0;
  if (!safeRead(block + blob_.heapBlockUsed.offset, used) || used == 0) return false;
  uint64_t blob = block + blob_.heapBlockSize;
  uint64_t begin = 0, end = 0;
  if (!codeRange(blob, begin, end) || pc < begin || pc >= end) return false;

  int64_t frameSize = -1, frameComplete = -1;
  if (!IntField(blob_.frameSize).read(blob, frameSize) || !IntField(blob_.frameCompleteOffset).read(blob, frameComplete)) {
    return false;
  }
  out = protocol::BlobInfo{};
  out.blobAddress = blob;
  out.frameSizeWords = static_cast<int32_t>(frameSize);
  out.frameCompleteOffset = static_cast<int32_t>(frameComplete);

  uint64_t namePtr = 0;
  char name[8] = {};
  if (safeRead(blob + blobName_, namePtr) && safeRead(namePtr, name, sizeof name) &&
      std::memcmp(name, "nmethod", 8) == 0) {
    int64_t id = -1, level = -1;
    if (compileId_.read(blob, id)) out.compileId = static_cast<int32_t>(id);
    if (compLevel_.read(blob, level)) out.compLevel = static_cast<int32_t>(level);
  }
  return true;
}

}  // namespace jfrbpf::agent
