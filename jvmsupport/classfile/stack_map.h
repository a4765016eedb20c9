#pragma once
// StackMapTable (JVMS 4.7.4) decoded into explicit frames and encoded back, choosing the compact frame
// forms (same, same_locals_1_stack_item, chop, append, their extended forms, full) from scratch, so frames
// can be moved, added and re-based freely.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jvmsupport/classfile/constant_pool.h"

namespace jfrbpf::classfile {

// A verification type. Frames list long/double as one entry (as the class file does); the frame
// simulator also uses kLongHigh/kDoubleHigh for the second slot, which never reaches a class file.
struct VType {
  enum Kind : uint8_t {
    kTop = 0,
    kInteger = 1,
    kFloat = 2,
    kDouble = 3,
    kLong = 4,
    kNull = 5,
    kUninitializedThis = 6,
    kObject = 7,
    kUninitialized = 8,
    kLongHigh = 9,
    kDoubleHigh = 10,
  };
  Kind kind = kTop;
  std::string name;     // kObject: internal class name or array descriptor
  uint32_t offset = 0;  // kUninitialized: bci of the `new` instruction

  static VType of(Kind kind) { return VType{kind, {}, 0}; }
  static VType object(std::string_view name) { return VType{kObject, std::string(name), 0}; }
  static VType uninitialized(uint32_t offset) { return VType{kUninitialized, {}, offset}; }
  bool isTwoSlot() const { return kind == kLong || kind == kDouble; }
  bool operator==(const VType&) const = default;
};

struct Frame {
  uint32_t offset = 0;
  std::vector<VType> locals;  // frame form: long/double are one entry
  std::vector<VType> stack;
  bool operator==(const Frame&) const = default;
};

// The implicit first frame of a method (JVMS 4.10.1.6): `this` (uninitializedThis in a constructor other
// than Object's) and the parameters. Throws ClassFileError on a malformed descriptor.
std::vector<VType> initialLocals(std::string_view thisClass, std::string_view methodName,
                                 std::string_view descriptor, bool isStatic);

// Frames with absolute offsets, in table order. Throws ClassFileError on malformed data.
std::vector<Frame> decodeStackMapTable(std::span<const uint8_t> info, const ConstantPool& pool,
                                       const std::vector<VType>& initial);

// The attribute payload for `frames`, which must have strictly increasing offsets. Adds Class entries to
// the pool for object types it does not hold yet.
std::vector<uint8_t> encodeStackMapTable(const std::vector<Frame>& frames, ConstantPool& pool,
                                         const std::vector<VType>& initial);

}  // namespace jfrbpf::classfile
