#pragma once
// What a stack walker reads of a HotSpot code blob, and where, as VMStructs describes it on JDK 8 to 26:
// the HeapBlock header before each blob (its length, and whether it is in use) and the CodeBlob's frame
// size, frame-complete offset and code range. Two readers take the layout from here, so that they cannot
// disagree: the agent, which reads blobs in its own process (agent/code_cache.cpp), and the loader, which
// hands it to the BPF walker (record/hotspot_layout.cpp). Header-only: the agent builds it without
// exceptions or RTTI.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

namespace jfrbpf::hotspot {

// An integer field: its offset in its object and its width and signedness by its declared type.
struct IntFieldAt {
  uint64_t offset = 0;
  uint8_t width = 0;  // 0: not present in this JVM
  bool isSigned = false;
  bool present() const { return width != 0; }
};

// The width of an integer type as VMStructs spells it; 0 if it is not one of these (for enums, ask the type's
// size). Fields change width across JDKs (CodeBlob::_frame_complete_offset: int, int16_t since JDK 23;
// HeapBlock::Header::_length: size_t, uint32_t since JDK 24): read each at its declared width.
inline IntFieldAt integerOfType(std::string_view typeString) {
  struct Known {
    std::string_view type;
    uint8_t width;
    bool isSigned;
  };
  static constexpr Known kKnown[] = {
      {"int", 4, true},          {"jint", 4, true},          {"int32_t", 4, true},  {"uint32_t", 4, false},
      {"u4", 4, false},          {"unsigned int", 4, false}, {"uint", 4, false},    {"pid_t", 4, true},
      {"u2", 2, false},          {"uint16_t", 2, false},     {"int16_t", 2, true},  {"short", 2, true},
      {"jshort", 2, true},       {"u1", 1, false},           {"bool", 1, false},    {"int8_t", 1, true},
      {"uint8_t", 1, false},     {"signed char", 1, true},   {"char", 1, true},     {"volatile signed char", 1, true},
      {"intx", 8, true},         {"uintx", 8, false},        {"size_t", 8, false},  {"uint64_t", 8, false},
      {"int64_t", 8, true},      {"jlong", 8, true},
  };
  for (const Known& known : kKnown) {
    if (known.type == typeString) return {0, known.width, known.isSigned};
  }
  return {};
}

struct CodeBlobFields {
  uint64_t heapBlockSize = 0;  // the HeapBlock header that precedes each blob in its code heap
  IntFieldAt heapBlockLength;  // in segments; offsets from the HeapBlock
  IntFieldAt heapBlockUsed;
  IntFieldAt frameSize;        // offsets from the CodeBlob
  IntFieldAt frameCompleteOffset;
  // Before JDK 23 the code range is two pointers (_code_begin, _code_end); since, two int offsets from the
  // blob (_code_offset, _data_offset): codeBegin and codeEnd are then those ints.
  bool codeAsOffsets = false;
  IntFieldAt codeBegin;
  IntFieldAt codeEnd;
};

// Offsets come from the target and are only as trustworthy as it is: bound them by sane object sizes.
inline constexpr uint64_t kMaxFieldOffset = 1u << 16;
inline constexpr uint64_t kMaxHeapBlockSize = 256;

// The layout from VMStructs, or nullopt with `whyNot` naming the first thing missing. `field(type, name)`
// gives a non-static field's offset and declared type (std::optional<std::pair<uint64_t,
// std::string_view>>); `typeSize(type)` a type's size (0 if unknown).
template <class FieldLookup, class TypeSize>
std::optional<CodeBlobFields> codeBlobFields(const FieldLookup& field, const TypeSize& typeSize, const char*& whyNot) {
  auto intField = [&](const char* type, const char* name, IntFieldAt& out) {
    std::optional<std::pair<uint64_t, std::string_view>> found = field(type, name);
    if (!found || found->first >= kMaxFieldOffset) return false;
    out = integerOfType(found->second);
    if (!out.present()) {
      const uint64_t size = typeSize(found->second);  // an enum, or a typedef VMStructs declares
      if (size != 1 && size != 2 && size != 4 && size != 8) return false;
      out = {0, static_cast<uint8_t>(size), true};
    }
    out.offset = found->first;
    return true;
  };
  CodeBlobFields blob;
  blob.heapBlockSize = typeSize("HeapBlock");
  if (blob.heapBlockSize == 0 || blob.heapBlockSize > kMaxHeapBlockSize) {
    whyNot = "VMStructs has no HeapBlock size";
    return std::nullopt;
  }
  std::optional<std::pair<uint64_t, std::string_view>> header = field("HeapBlock", "_header");
  if (!header || header->first >= kMaxFieldOffset) {
    whyNot = "VMStructs has no usable HeapBlock::_header";
    return std::nullopt;
  }
  if (!intField("HeapBlock::Header", "_length", blob.heapBlockLength)) {
    whyNot = "VMStructs has no usable HeapBlock::Header::_length";
    return std::nullopt;
  }
  if (!intField("HeapBlock::Header", "_used", blob.heapBlockUsed)) {
    whyNot = "VMStructs has no usable HeapBlock::Header::_used";
    return std::nullopt;
  }
  blob.heapBlockLength.offset += header->first;
  blob.heapBlockUsed.offset += header->first;
  if (blob.heapBlockLength.offset + blob.heapBlockLength.width > blob.heapBlockSize ||
      blob.heapBlockUsed.offset + blob.heapBlockUsed.width > blob.heapBlockSize) {
    whyNot = "VMStructs puts HeapBlock::Header fields outside the HeapBlock";
    return std::nullopt;
  }
  if (!intField("CodeBlob", "_frame_size", blob.frameSize)) {
    whyNot = "VMStructs has no usable CodeBlob::_frame_size";
    return std::nullopt;
  }
  if (!intField("CodeBlob", "_frame_complete_offset", blob.frameCompleteOffset)) {
    whyNot = "VMStructs has no usable CodeBlob::_frame_complete_offset";
    return std::nullopt;
  }
  std::optional<std::pair<uint64_t, std::string_view>> begin = field("CodeBlob", "_code_begin");
  std::optional<std::pair<uint64_t, std::string_view>> end = field("CodeBlob", "_code_end");
  if (begin && end && begin->first < kMaxFieldOffset && end->first < kMaxFieldOffset) {
    blob.codeBegin = {begin->first, 8, false};
    blob.codeEnd = {end->first, 8, false};
    return blob;
  }
  if (!intField("CodeBlob", "_code_offset", blob.codeBegin) || !intField("CodeBlob", "_data_offset", blob.codeEnd)) {
    whyNot = "VMStructs has neither CodeBlob::_code_begin nor _code_offset";
    return std::nullopt;
  }
  blob.codeAsOffsets = true;
  return blob;
}

}  // namespace jfrbpf::hotspot
