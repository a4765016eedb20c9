#include "userspace/record/jvm/hotspot_layout.h"

#include <fcntl.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "base/error.h"
#include "base/unique_fd.h"
#include "jvmsupport/hotspot/code_blob_fields.h"
#include "userspace/proc/maps.h"
#include "userspace/proc/paths.h"

namespace jfrbpf::record {
namespace {

// Interpreter frame slots in words from rbp (frame_x86.hpp): not in VMStructs, unchanged since JDK 9.
constexpr int32_t kInterpreterMethodSlot = -3;
constexpr int32_t kInterpreterBcpSlotJdk9 = -8;
constexpr int32_t kInterpreterBcpSlotJdk8 = -7;
constexpr int32_t kInterpreterSenderSpSlot = -1;
constexpr int32_t kInterpreterLastSpSlot = -2;

bool offset(const jvm::VmStructsTable& vm, const char* type, const char* field, uint32_t& out, std::string& whyNot) {
  auto value = vm.fieldOffset(type, field);
  if (!value || *value >= hotspot::kMaxFieldOffset) {
    whyNot = std::string("VMStructs has no usable ") + type + "::" + field;
    return false;
  }
  out = static_cast<uint32_t>(*value);
  return true;
}

bool isJdk8(const jvm::JavaModel& model) {
  return model.agent() && model.agent()->vmVersion.starts_with("25.") && model.agent()->vmVersion.find("-b") != std::string::npos;
}

}  // namespace

std::optional<jfrbpf_hotspot> hotspotLayout(const jvm::JavaModel& model, std::string& whyNot) {
  jfrbpf_hotspot layout{};
  const auto& heaps = model.codeHeaps();
  if (heaps.empty()) {
    whyNot = "the agent reported no code heaps";
    return std::nullopt;
  }
  layout.code_low = std::numeric_limits<uint64_t>::max();
  for (const auto& heap : heaps) {
    if (layout.heap_count == JFRBPF_MAX_CODE_HEAPS) break;
    if (heap.reservedHigh <= heap.reservedLow || heap.segmapLow == 0 || heap.log2SegmentSize > 20) continue;
    jfrbpf_code_heap& h = layout.heaps[layout.heap_count++];
    h.low = heap.reservedLow;
    h.high = heap.reservedHigh;
    h.segmap = heap.segmapLow;
    h.log2_segment_size = heap.log2SegmentSize;
    layout.code_granule_shift =
        layout.heap_count == 1 ? heap.log2SegmentSize : std::min(layout.code_granule_shift, heap.log2SegmentSize);
    layout.code_low = std::min<uint64_t>(layout.code_low, heap.reservedLow);
    layout.code_high = std::max<uint64_t>(layout.code_high, heap.reservedHigh);
  }
  if (layout.heap_count == 0) {
    whyNot = "the agent's code heaps are not usable";
    return std::nullopt;
  }
  if (const jvm::StubBlob* interpreter = model.code().interpreter()) {
    layout.interpreter_low = interpreter->start;
    layout.interpreter_high = interpreter->end;
  }
  // The slow path of a compiled method's entry (taken after every code cache change on JDK 20+'s G1) runs
  // in this stub: JDK 17 names it "nmethod_entry_barrier", later JDKs "method_entry_barrier".
  model.code().forEachStub([&](const jvm::StubBlob& stub) {
    if ((stub.name == "method_entry_barrier" || stub.name == "nmethod_entry_barrier") && stub.end > stub.start) {
      layout.entry_barrier = stub.start;
      layout.entry_barrier_size = stub.end - stub.start;
    }
  });

  const jvm::VmStructsTable& vm = model.vmStructs();
  auto field = [&vm](const char* type, const char* name) -> std::optional<std::pair<uint64_t, std::string_view>> {
    const jvm::VmField* found = vm.field(type, name);
    if (found == nullptr || found->isStatic) return std::nullopt;
    return std::pair<uint64_t, std::string_view>(found->offset, found->typeString);
  };
  auto typeSize = [&vm](std::string_view type) -> uint64_t {
    const jvm::VmTypeInfo* info = vm.type(type);
    return info ? info->size : 0;
  };
  const char* missing = nullptr;
  std::optional<hotspot::CodeBlobFields> blobFields = hotspot::codeBlobFields(field, typeSize, missing);
  if (!blobFields) {
    whyNot = missing;
    return std::nullopt;
  }
  const hotspot::CodeBlobFields& fields = *blobFields;
  // The widths the walker reads each field at (hotspot_frames.bpf.h's read_blob_header).
  if (fields.heapBlockUsed.width != 1 || (fields.heapBlockLength.width != 4 && fields.heapBlockLength.width != 8) ||
      fields.frameSize.width != 4 || (fields.frameCompleteOffset.width != 2 && fields.frameCompleteOffset.width != 4) ||
      fields.codeBegin.width != (fields.codeAsOffsets ? 4 : 8)) {
    whyNot = "VMStructs declares a HeapBlock or CodeBlob field the walker reads at a width it does not read";
    return std::nullopt;
  }
  layout.heap_block_header_size = static_cast<uint32_t>(fields.heapBlockSize);
  layout.heap_block_length = static_cast<uint32_t>(fields.heapBlockLength.offset);
  layout.heap_block_length_size = fields.heapBlockLength.width;
  layout.heap_block_used = static_cast<uint32_t>(fields.heapBlockUsed.offset);
  layout.blob_frame_size = static_cast<uint32_t>(fields.frameSize.offset);
  layout.blob_frame_complete = static_cast<uint32_t>(fields.frameCompleteOffset.offset);
  layout.blob_frame_complete_size = fields.frameCompleteOffset.width;
  layout.blob_code_begin = static_cast<uint32_t>(fields.codeBegin.offset);
  layout.blob_code_begin_is_offset = fields.codeAsOffsets ? 1 : 0;
  // The walker checks a blob with one read: from its HeapBlock header up to the last CodeBlob field it uses.
  uint32_t fieldsEnd = std::max({layout.blob_frame_size + 4,
                                 layout.blob_frame_complete + layout.blob_frame_complete_size,
                                 layout.blob_code_begin + fields.codeBegin.width});
  layout.blob_header_bytes = layout.heap_block_header_size + fieldsEnd;
  // The walker tells the blobs without a frame size apart by name (those that may keep an rbp frame from those
  // that keep none): where the name does not fit in the copy, all of them may.
  auto name = field("CodeBlob", "_name");
  const uint64_t nameAt = name ? layout.heap_block_header_size + name->first : 0;
  if (name && nameAt % 8 == 0 && nameAt + 8 <= JFRBPF_BLOB_HEADER_MAX) {
    layout.blob_name = static_cast<uint32_t>(name->first);
    layout.blob_header_bytes = std::max(layout.blob_header_bytes, static_cast<uint32_t>(nameAt + 8));
  }
  if (layout.blob_header_bytes > JFRBPF_BLOB_HEADER_MAX) {
    whyNot = "the HeapBlock and CodeBlob fields the walker reads span " + std::to_string(layout.blob_header_bytes) +
             " bytes, more than the " + std::to_string(JFRBPF_BLOB_HEADER_MAX) + " it copies";
    return std::nullopt;
  }
  // The walker reads the copy a word at a time (BPF loads must be aligned): no field may span two words.
  const uint32_t blob = layout.heap_block_header_size;
  for (auto [fieldOffset, size] : {std::pair{layout.heap_block_length, layout.heap_block_length_size},
                                   std::pair{layout.heap_block_used, 1u},
                                   std::pair{blob + layout.blob_frame_size, 4u},
                                   std::pair{blob + layout.blob_frame_complete, layout.blob_frame_complete_size},
                                   std::pair{blob + layout.blob_code_begin, uint32_t{fields.codeBegin.width}}}) {
    if (fieldOffset % 8 + size > 8) {
      whyNot = "a HeapBlock or CodeBlob field the walker reads spans two words (offset " + std::to_string(fieldOffset) +
               ", " + std::to_string(size) + " bytes)";
      return std::nullopt;
    }
  }
  layout.interp_method_slot = kInterpreterMethodSlot;
  layout.interp_bcp_slot = isJdk8(model) ? kInterpreterBcpSlotJdk8 : kInterpreterBcpSlotJdk9;
  auto senderSp = vm.constant("frame::interpreter_frame_sender_sp_offset");
  layout.interp_sender_sp_slot = senderSp ? static_cast<int32_t>(*senderSp) : kInterpreterSenderSpSlot;
  auto lastSp = vm.constant("frame::interpreter_frame_last_sp_offset");
  layout.interp_last_sp_slot = lastSp ? static_cast<int32_t>(*lastSp) : kInterpreterLastSpSlot;
  // The walker reads the eight words below rbp in one go: every slot it uses must be among them.
  for (int32_t slot : {layout.interp_method_slot, layout.interp_bcp_slot, layout.interp_sender_sp_slot,
                       layout.interp_last_sp_slot}) {
    if (slot < -8 || slot > -1) {
      whyNot = "interpreter frame slot " + std::to_string(slot) + " is outside the words the walker reads";
      return std::nullopt;
    }
  }

  std::string ignored;
  uint32_t anchor = 0, sp = 0, fp = 0, pc = 0;
  if (offset(vm, "JavaThread", "_anchor", anchor, ignored) &&
      offset(vm, "JavaFrameAnchor", "_last_Java_sp", sp, ignored) &&
      offset(vm, "JavaFrameAnchor", "_last_Java_pc", pc, ignored) &&
      offset(vm, "JavaFrameAnchor", "_last_Java_fp", fp, ignored)) {
    layout.anchor_sp = anchor + sp;
    layout.anchor_fp = anchor + fp;
    layout.anchor_pc = anchor + pc;
  }
  // JDK 24+ (virtual threads that hold monitors): which Java thread is current on a carrier, and where its
  // innermost continuation begins; the walker tells samples of mounted virtual threads by them
  // (bpf/virtual_threads.bpf.h). Absent before: samples stay their platform thread's.
  uint32_t contEntry = 0, ownerId = 0;
  const jvm::VmField* owner = vm.field("JavaThread", "_monitor_owner_id");
  if (owner != nullptr && owner->typeString == "int64_t" &&
      offset(vm, "JavaThread", "_cont_entry", contEntry, ignored) &&
      offset(vm, "JavaThread", "_monitor_owner_id", ownerId, ignored)) {
    layout.cont_entry = contEntry;
    layout.monitor_owner_id = ownerId;
  }
  return layout;
}

namespace {

// The value of a static field VMStructs names, as process `pid` holds it.
template <typename T>
std::optional<T> staticValue(pid_t pid, const jvm::JavaModel& model, const char* type, const char* field) {
  std::optional<uint64_t> address = model.vmStructs().staticAddress(type, field);
  if (!address) return std::nullopt;
  T value{};
  iovec local{&value, sizeof(value)};
  iovec remote{reinterpret_cast<void*>(*address), sizeof(value)};
  if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(sizeof(value))) return std::nullopt;
  return value;
}

bool inCodeCache(const jfrbpf_hotspot& layout, uint64_t pc) { return pc >= layout.code_low && pc < layout.code_high; }

}  // namespace

uint64_t callStubReturnAddress(pid_t pid, const jvm::JavaModel& model, const jfrbpf_hotspot& layout) {
  std::optional<uint64_t> value = staticValue<uint64_t>(pid, model, "StubRoutines", "_call_stub_return_address");
  return value && inCodeCache(layout, *value) ? *value : 0;
}

void addFrozenFrameLayout(pid_t pid, const jvm::JavaModel& model, jfrbpf_hotspot& layout) {
  const std::optional<protocol::ContinuationLayout>& objects = model.continuationLayout();
  // Only where the walker tells samples of mounted virtual threads (JDK 24+): the frozen frames are theirs.
  if (!objects || layout.cont_entry == 0) return;
  uint64_t barrier = 0, barrierEnd = 0;
  model.code().forEachStub([&](const jvm::StubBlob& stub) {
    if (stub.name == "cont_returnBarrier" && stub.end > stub.start) {
      barrier = stub.start;
      barrierEnd = stub.end;
    }
  });
  std::optional<uint64_t> entryReturn = staticValue<uint64_t>(pid, model, "ContinuationEntry", "_return_pc");
  std::optional<uint32_t> vthread;
  uint32_t handleObject = 0;
  std::string ignored;
  uint32_t vthreadOffset = 0;
  if (offset(model.vmStructs(), "JavaThread", "_vthread", vthreadOffset, ignored) &&
      offset(model.vmStructs(), "OopHandle", "_obj", handleObject, ignored) && handleObject == 0) {
    vthread = vthreadOffset;
  }
  std::optional<uint64_t> base = staticValue<uint64_t>(pid, model, "CompressedOops", "_base");
  std::optional<int32_t> shift = staticValue<int32_t>(pid, model, "CompressedOops", "_shift");
  const bool narrowKnown = base && shift && *shift >= 0 && *shift < 8;
  if (barrier == 0 || !entryReturn || !inCodeCache(layout, *entryReturn) || !vthread ||
      (objects->compressedOops && !narrowKnown) || objects->chunkStack == 0) {
    return;
  }
  layout.return_barrier = barrier;
  layout.return_barrier_size = barrierEnd - barrier;
  layout.continuation_return = *entryReturn;
  layout.narrow_oops = objects->compressedOops;
  layout.narrow_oop_base = objects->compressedOops ? *base : 0;
  layout.narrow_oop_shift = objects->compressedOops ? static_cast<uint32_t>(*shift) : 0;
  layout.vthread = *vthread;
  layout.vthread_cont = objects->virtualThreadCont;
  layout.cont_tail = objects->continuationTail;
  layout.chunk_parent = objects->chunkParent;
  layout.chunk_size = objects->chunkSize;
  layout.chunk_sp = objects->chunkSp;
  layout.chunk_bottom = objects->chunkBottom;
  layout.chunk_stack = objects->chunkStack;
}

std::optional<std::string> libjvmFile(pid_t pid, std::string& whyNot) {
  try {
    for (const proc::Mapping& entry : proc::readMaps(pid)) {
      if (!entry.executable || entry.inode == 0 || entry.deleted || !entry.path.ends_with("/libjvm.so")) continue;
      std::string path = proc::mapFilesPath(pid, entry.start, entry.end);
      // libbpf opens it to find the functions: without CAP_SYS_ADMIN it may not (and would say so itself).
      if (!UniqueFd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC))) {
        whyNot = "cannot open " + path + ": " + std::strerror(errno) + " (uprobes need CAP_SYS_ADMIN)";
        return std::nullopt;
      }
      return path;
    }
    whyNot = "process " + std::to_string(pid) + " maps no libjvm.so";
  } catch (const Error& e) {
    whyNot = e.what();
  }
  return std::nullopt;
}

}  // namespace jfrbpf::record
