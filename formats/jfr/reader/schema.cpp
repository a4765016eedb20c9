#include "formats/jfr/reader/schema.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "formats/jfr/reader/byte_cursor.h"
#include "formats/jfr/reader/metadata.h"

namespace jfrbpf::jfr::reader {
namespace {

std::optional<WireOp> primitiveOp(const TypeInfo& type) {
  static constexpr std::pair<std::string_view, WireOp> kOps[] = {
      {"boolean", WireOp::kBool}, {"byte", WireOp::kByte},     {"char", WireOp::kChar},
      {"short", WireOp::kShort},  {"int", WireOp::kInt},       {"long", WireOp::kLong},
      {"float", WireOp::kFloat},  {"double", WireOp::kDouble}, {"java.lang.String", WireOp::kString}};
  if (!type.isPrimitive()) return std::nullopt;
  for (const auto& [name, op] : kOps) {
    if (type.name == name) return op;
  }
  return std::nullopt;
}

size_t primitiveSize(WireOp op) {
  switch (op) {
    case WireOp::kFloat: return 4;
    case WireOp::kDouble: return 8;
    default: return 1;  // a byte, a varint, or a string's encoding byte
  }
}

// Walks the inline (non-pool) structure of each type once: its nesting depth, bounded so that a type
// containing itself shows up as too deep, and the fewest bytes its values occupy.
class InlineCheck {
 public:
  InlineCheck(const Metadata& metadata, uint64_t offset)
      : depth_(metadata.types().size(), -1), minSize_(metadata.types().size(), 0), offset_(offset) {}

  void visit(const TypeInfo& type, int level) {
    if (level > Schema::kMaxInlineDepth) {
      fail("type '" + type.name + "' nests inline values deeper than " + std::to_string(Schema::kMaxInlineDepth) +
           " levels (or contains itself)");
    }
    if (depth_[type.index] >= 0) return;
    int deepest = 0;
    size_t size = 0;
    for (const FieldInfo& field : type.fields) {
      size_t fieldSize = 1;  // a pool key or an array count
      if (!field.constantPool) {
        if (auto op = primitiveOp(*field.type)) {
          fieldSize = field.array ? 1 : primitiveSize(*op);
        } else {
          visit(*field.type, level + 1);
          deepest = std::max(deepest, depth_[field.type->index]);
          if (minSize_[field.type->index] == 0) {
            fail("field '" + type.name + "." + field.name + "' stores type '" + field.type->name +
                 "' inline, which occupies no bytes");
          }
          if (!field.array) fieldSize = minSize_[field.type->index];
        }
      }
      size += fieldSize;
    }
    depth_[type.index] = deepest + 1;
    minSize_[type.index] = size;
  }

  size_t minSize(const TypeInfo& type) const { return minSize_[type.index]; }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw FormatError(offset_, "metadata: " + what); }

  std::vector<int> depth_;
  std::vector<size_t> minSize_;
  uint64_t offset_;
};

}  // namespace

const TypePlan& Schema::plan(const TypeInfo& type) const { return plans_[type.index]; }

Schema::Schema(const Metadata& metadata, uint64_t metadataOffset) {
  auto types = metadata.types();
  InlineCheck check(metadata, metadataOffset);
  for (const TypeInfo& type : types) check.visit(type, 0);

  plans_.resize(types.size());
  for (const TypeInfo& type : types) {
    TypePlan& plan = plans_[type.index];
    plan.type = &type;
    if (auto op = primitiveOp(type)) {
      plan.primitive = true;
      plan.primitiveOp = *op;
      plan.minSize = primitiveSize(*op);
      continue;
    }
    plan.minSize = check.minSize(type);
    plan.collapse = type.simple;
    for (const FieldInfo& field : type.fields) {
      FieldPlan fieldPlan{WireOp::kStruct, field.array, 0, nullptr, 1};
      if (field.constantPool) {
        fieldPlan.op = WireOp::kPoolReference;
        fieldPlan.poolIndex = static_cast<uint32_t>(field.type->index);
      } else if (auto op = primitiveOp(*field.type)) {
        fieldPlan.op = *op;
        fieldPlan.elementSize = primitiveSize(*op);
      } else {
        fieldPlan.type = &plans_[field.type->index];
        fieldPlan.elementSize = check.minSize(*field.type);
      }
      plan.fields.push_back(fieldPlan);
    }
  }
}

}  // namespace jfrbpf::jfr::reader
