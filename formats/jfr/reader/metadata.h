#pragma once
// A chunk's metadata: the self-description every JFR chunk carries (types, their fields in wire order, and
// annotations). The reader is driven entirely by it; nothing about event layouts is hard-coded.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jfrbpf::jfr::reader {

class ByteCursor;
struct TypeInfo;

struct AnnotationInfo {
  const TypeInfo* type = nullptr;  // the annotation type, e.g. jdk.jfr.Label
  // Element values as written; array elements appear as "value-0", "value-1", …
  std::vector<std::pair<std::string, std::string>> values;

  std::string_view typeName() const;
  std::optional<std::string_view> value(std::string_view element = "value") const;
  std::vector<std::string_view> arrayValue(std::string_view element = "value") const;
};

struct FieldInfo {
  std::string name;
  const TypeInfo* type = nullptr;
  bool constantPool = false;  // written as a key into the pool of `type`
  bool array = false;         // dimension 1: a count, then the elements
  std::vector<AnnotationInfo> annotations;
  // Taken from the annotations, for convenience.
  std::string label;
  std::string description;
  // The annotation marked @ContentType that gives the value its meaning, e.g. "jdk.jfr.Timestamp",
  // "jdk.jfr.Timespan", "jdk.jfr.DataAmount"; empty if none. jdk.jfr.Unsigned, which the JDK combines with
  // the others, is reported separately as `unsignedValue`.
  std::string contentType;
  std::string unit;            // its value, e.g. "TICKS"; empty when the annotation has none
  bool unsignedValue = false;  // @Unsigned: the integer's bits are to be read as unsigned

  const AnnotationInfo* annotation(std::string_view typeName) const;
};

struct TypeInfo {
  int64_t id = 0;
  std::string name;
  std::string superType;  // "jdk.jfr.Event" for events, empty for value types
  bool simple = false;    // a one-field type whose values read as that field's value
  std::vector<FieldInfo> fields;
  std::vector<AnnotationInfo> annotations;
  std::string label;
  std::string description;
  std::vector<std::string> category;
  size_t index = 0;  // position in Metadata::types()
  // Unique among all types parsed in this process (unlike addresses, which a later chunk may reuse), so
  // per-type caches such as FieldKey can key on it.
  uint64_t uid = 0;

  bool isEvent() const { return superType == "jdk.jfr.Event"; }
  // Java primitives and java.lang.String: field-less types read directly from the wire.
  bool isPrimitive() const;
  std::optional<size_t> fieldIndex(std::string_view fieldName) const;
  const AnnotationInfo* annotation(std::string_view typeName) const;
};

class Metadata {
 public:
  // Parses a metadata record; `record` spans the whole record, starting at its size varint.
  static Metadata parse(ByteCursor record);

  Metadata() = default;
  Metadata(Metadata&&) = default;
  Metadata& operator=(Metadata&&) = default;

  int64_t id() const { return id_; }
  std::span<const TypeInfo> types() const { return types_; }
  const TypeInfo* byId(int64_t id) const;
  const TypeInfo* byName(std::string_view name) const;

 private:
  int64_t id_ = 0;
  // Filled once and never resized, so TypeInfo addresses stay valid (types point at each other).
  std::vector<TypeInfo> types_;
  // Sorted for binary search: ids and names come from the file, and unlike hash tables sorted vectors
  // cannot be driven into quadratic behaviour by chosen values.
  std::vector<std::pair<int64_t, const TypeInfo*>> byId_;
  std::vector<std::pair<std::string_view, const TypeInfo*>> byName_;
};

}  // namespace jfrbpf::jfr::reader
