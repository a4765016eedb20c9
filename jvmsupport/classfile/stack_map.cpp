#include "jvmsupport/classfile/stack_map.h"

#include <algorithm>

#include "jvmsupport/classfile/bytes.h"
#include "jvmsupport/classfile/descriptors.h"

namespace jfrbpf::classfile {
namespace {

constexpr uint8_t kSameFrameMax = 63;
constexpr uint8_t kSameLocals1StackItem = 64;
constexpr uint8_t kSameLocals1StackItemMax = 127;
constexpr uint8_t kSameLocals1StackItemExtended = 247;
constexpr uint8_t kSameFrameExtended = 251;
constexpr uint8_t kAppendMax = 254;
constexpr uint8_t kFullFrame = 255;

VType readType(Reader& reader, const ConstantPool& pool) {
  uint8_t kind = reader.u1();
  switch (kind) {
    case VType::kTop:
    case VType::kInteger:
    case VType::kFloat:
    case VType::kDouble:
    case VType::kLong:
    case VType::kNull:
    case VType::kUninitializedThis:
      return VType::of(static_cast<VType::Kind>(kind));
    case VType::kObject:
      return VType::object(pool.className(reader.u2()));
    case VType::kUninitialized:
      return VType::uninitialized(reader.u2());
    default:
      throw ClassFileError("invalid verification type tag " + std::to_string(kind));
  }
}

std::vector<VType> readTypes(Reader& reader, const ConstantPool& pool, size_t count) {
  std::vector<VType> types;
  types.reserve(count);
  for (size_t i = 0; i < count; ++i) types.push_back(readType(reader, pool));
  return types;
}

void writeType(Writer& out, const VType& type, ConstantPool& pool) {
  switch (type.kind) {
    case VType::kObject:
      out.u1(type.kind);
      out.u2(pool.addClass(type.name));
      return;
    case VType::kUninitialized:
      if (type.offset > 0xffff) throw ClassFileError("uninitialized offset out of range");
      out.u1(type.kind);
      out.u2(type.offset);
      return;
    case VType::kLongHigh:
    case VType::kDoubleHigh:
      throw ClassFileError("internal: half of a two-slot type in a frame");
    default:
      out.u1(type.kind);
      return;
  }
}

bool startsWith(const std::vector<VType>& longer, const std::vector<VType>& prefix) {
  return longer.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), longer.begin());
}

}  // namespace

std::vector<VType> initialLocals(std::string_view thisClass, std::string_view methodName,
                                 std::string_view descriptor, bool isStatic) {
  std::vector<VType> locals;
  if (!isStatic) {
    if (methodName == "<init>" && thisClass != "java/lang/Object") {
      locals.push_back(VType::of(VType::kUninitializedThis));
    } else {
      locals.push_back(VType::object(thisClass));
    }
  }
  for (VType& parameter : parseMethodDescriptor(descriptor).parameters) locals.push_back(std::move(parameter));
  return locals;
}

std::vector<Frame> decodeStackMapTable(std::span<const uint8_t> info, const ConstantPool& pool,
                                       const std::vector<VType>& initial) {
  Reader reader(info);
  uint16_t count = reader.u2();
  std::vector<Frame> frames;
  frames.reserve(count);
  std::vector<VType> locals = initial;
  int64_t previous = -1;
  for (uint16_t i = 0; i < count; ++i) {
    uint8_t type = reader.u1();
    uint32_t delta;
    std::vector<VType> stack;
    if (type <= kSameFrameMax) {
      delta = type;
    } else if (type <= kSameLocals1StackItemMax) {
      delta = type - kSameLocals1StackItem;
      stack.push_back(readType(reader, pool));
    } else if (type < kSameLocals1StackItemExtended) {
      throw ClassFileError("reserved stack map frame type " + std::to_string(type));
    } else if (type == kSameLocals1StackItemExtended) {
      delta = reader.u2();
      stack.push_back(readType(reader, pool));
    } else if (type < kSameFrameExtended) {
      delta = reader.u2();
      size_t chopped = kSameFrameExtended - type;
      if (chopped > locals.size()) throw ClassFileError("chop_frame removes more locals than exist");
      locals.resize(locals.size() - chopped);
    } else if (type == kSameFrameExtended) {
      delta = reader.u2();
    } else if (type <= kAppendMax) {
      delta = reader.u2();
      std::vector<VType> appended = readTypes(reader, pool, type - kSameFrameExtended);
      locals.insert(locals.end(), appended.begin(), appended.end());
    } else {
      delta = reader.u2();
      locals = readTypes(reader, pool, reader.u2());
      stack = readTypes(reader, pool, reader.u2());
    }
    int64_t offset = previous + delta + 1;  // the first frame's offset is its delta
    previous = offset;
    if (offset > 0xffff) throw ClassFileError("stack map frame offset beyond the code");
    frames.push_back(Frame{static_cast<uint32_t>(offset), locals, std::move(stack)});
  }
  if (reader.remaining() != 0) throw ClassFileError("extra bytes after the StackMapTable frames");
  return frames;
}

std::vector<uint8_t> encodeStackMapTable(const std::vector<Frame>& frames, ConstantPool& pool,
                                         const std::vector<VType>& initial) {
  if (frames.size() > 0xffff) throw ClassFileError("too many stack map frames");
  Writer out;
  out.u2(static_cast<uint32_t>(frames.size()));
  const std::vector<VType>* previousLocals = &initial;
  int64_t previous = -1;
  for (const Frame& frame : frames) {
    int64_t delta = static_cast<int64_t>(frame.offset) - previous - 1;
    if (delta < 0 || delta > 0xffff) throw ClassFileError("internal: stack map frames out of order");
    previous = frame.offset;
    const std::vector<VType>& before = *previousLocals;
    previousLocals = &frame.locals;
    if (frame.locals == before && frame.stack.empty()) {
      if (delta <= kSameFrameMax) {
        out.u1(static_cast<uint32_t>(delta));
      } else {
        out.u1(kSameFrameExtended);
        out.u2(static_cast<uint32_t>(delta));
      }
      continue;
    }
    if (frame.locals == before && frame.stack.size() == 1) {
      if (delta <= kSameFrameMax) {
        out.u1(kSameLocals1StackItem + static_cast<uint32_t>(delta));
      } else {
        out.u1(kSameLocals1StackItemExtended);
        out.u2(static_cast<uint32_t>(delta));
      }
      writeType(out, frame.stack[0], pool);
      continue;
    }
    if (frame.stack.empty() && frame.locals.size() < before.size() && before.size() - frame.locals.size() <= 3 &&
        startsWith(before, frame.locals)) {
      out.u1(kSameFrameExtended - static_cast<uint32_t>(before.size() - frame.locals.size()));
      out.u2(static_cast<uint32_t>(delta));
      continue;
    }
    if (frame.stack.empty() && frame.locals.size() > before.size() && frame.locals.size() - before.size() <= 3 &&
        startsWith(frame.locals, before)) {
      out.u1(kSameFrameExtended + static_cast<uint32_t>(frame.locals.size() - before.size()));
      out.u2(static_cast<uint32_t>(delta));
      for (size_t i = before.size(); i < frame.locals.size(); ++i) writeType(out, frame.locals[i], pool);
      continue;
    }
    out.u1(kFullFrame);
    out.u2(static_cast<uint32_t>(delta));
    out.u2(static_cast<uint32_t>(frame.locals.size()));
    for (const VType& type : frame.locals) writeType(out, type, pool);
    out.u2(static_cast<uint32_t>(frame.stack.size()));
    for (const VType& type : frame.stack) writeType(out, type, pool);
  }
  return out.take();
}

}  // namespace jfrbpf::classfile
