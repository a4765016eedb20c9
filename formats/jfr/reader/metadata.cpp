#include "formats/jfr/reader/metadata.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>

#include "formats/jfr/reader/byte_cursor.h"
#include "formats/jfr/reader/string_encoding.h"

namespace jfrbpf::jfr::reader {
namespace {

// root → metadata → class → field → annotation is four levels; anything far deeper is hostile.
constexpr int kMaxElementDepth = 16;

// The metadata record's generic element tree: a name, string attributes, children.
struct Element {
  std::string_view name;
  std::vector<std::pair<std::string_view, std::string_view>> attributes;
  std::vector<Element> children;

  std::optional<std::string_view> attribute(std::string_view key) const {
    for (const auto& [k, v] : attributes) {
      if (k == key) return v;
    }
    return std::nullopt;
  }
};

class ElementParser {
 public:
  ElementParser(ByteCursor& in, const std::vector<std::string>& strings) : in_(in), strings_(strings) {}

  Element parse(int depth) {
    if (depth > kMaxElementDepth) {
      in_.fail("metadata elements nested deeper than " + std::to_string(kMaxElementDepth) + " levels");
    }
    Element element;
    element.name = string();
    // No reserve() from counts: memory grows with the elements actually read, not the counts claimed.
    size_t attributeCount = in_.count("metadata attribute", 2);
    for (size_t i = 0; i < attributeCount; ++i) {
      std::string_view key = string();
      element.attributes.emplace_back(key, string());
    }
    size_t childCount = in_.count("metadata child element", 3);
    for (size_t i = 0; i < childCount; ++i) element.children.push_back(parse(depth + 1));
    return element;
  }

 private:
  std::string_view string() {
    uint64_t at = in_.fileOffset();
    uint64_t index = in_.varint();
    if (index >= strings_.size()) {
      in_.failAt(at, "metadata string index " + std::to_string(index) + " is outside the table of " +
                         std::to_string(strings_.size()) + " strings");
    }
    return strings_[index];
  }

  ByteCursor& in_;
  const std::vector<std::string>& strings_;
};

std::optional<int64_t> parseTypeId(std::string_view text) {
  int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

[[noreturn]] void failMetadata(uint64_t recordOffset, const std::string& what) {
  throw FormatError(recordOffset, "metadata: " + what);
}

}  // namespace

std::string_view AnnotationInfo::typeName() const { return type ? std::string_view(type->name) : std::string_view(); }

std::optional<std::string_view> AnnotationInfo::value(std::string_view element) const {
  for (const auto& [name, value] : values) {
    if (name == element) return value;
  }
  return std::nullopt;
}

std::vector<std::string_view> AnnotationInfo::arrayValue(std::string_view element) const {
  // Elements "<element>-0", "<element>-1", … in any order; the array ends at the first missing index.
  std::vector<std::pair<size_t, std::string_view>> indexed;
  for (const auto& [name, value] : values) {
    if (name.size() <= element.size() + 1 || !name.starts_with(element) || name[element.size()] != '-') continue;
    size_t index = 0;
    const char* digits = name.data() + element.size() + 1;
    auto [end, ec] = std::from_chars(digits, name.data() + name.size(), index);
    if (ec == std::errc() && end == name.data() + name.size()) indexed.emplace_back(index, value);
  }
  std::sort(indexed.begin(), indexed.end());
  std::vector<std::string_view> out;
  for (const auto& [index, value] : indexed) {
    if (index != out.size()) break;
    out.push_back(value);
  }
  return out;
}

namespace {
const AnnotationInfo* findAnnotation(const std::vector<AnnotationInfo>& annotations, std::string_view typeName) {
  for (const auto& a : annotations) {
    if (a.typeName() == typeName) return &a;
  }
  return nullptr;
}
}  // namespace

const AnnotationInfo* FieldInfo::annotation(std::string_view typeName) const {
  return findAnnotation(annotations, typeName);
}

const AnnotationInfo* TypeInfo::annotation(std::string_view typeName) const {
  return findAnnotation(annotations, typeName);
}

bool TypeInfo::isPrimitive() const {
  static constexpr std::array<std::string_view, 9> kPrimitives = {
      "boolean", "byte", "char", "short", "int", "long", "float", "double", "java.lang.String"};
  return fields.empty() && superType.empty() &&
         std::find(kPrimitives.begin(), kPrimitives.end(), name) != kPrimitives.end();
}

std::optional<size_t> TypeInfo::fieldIndex(std::string_view fieldName) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == fieldName) return i;
  }
  return std::nullopt;
}

const TypeInfo* Metadata::byId(int64_t id) const {
  auto it = std::lower_bound(byId_.begin(), byId_.end(), id, [](const auto& entry, int64_t v) { return entry.first < v; });
  return it != byId_.end() && it->first == id ? it->second : nullptr;
}

const TypeInfo* Metadata::byName(std::string_view name) const {
  auto it = std::lower_bound(byName_.begin(), byName_.end(), name,
                             [](const auto& entry, std::string_view v) { return entry.first < v; });
  return it != byName_.end() && it->first == name ? it->second : nullptr;
}

Metadata Metadata::parse(ByteCursor in) {
  uint64_t recordOffset = in.fileOffset();
  in.varint();  // size, already used to delimit `in`
  uint64_t typeOffset = in.fileOffset();
  if (in.varint() != 0) in.failAt(typeOffset, "metadata record does not have type id 0");
  in.varint();  // start ticks
  in.varint();  // duration
  Metadata metadata;
  metadata.id_ = in.varlong();

  size_t stringCount = in.count("metadata string");
  std::vector<std::string> strings;
  for (size_t i = 0; i < stringCount; ++i) strings.push_back(readLiteralString(in).value_or(std::string()));
  Element root = ElementParser(in, strings).parse(0);

  // Errors found while interpreting the tree carry the record's offset.
  auto fail = [recordOffset](const std::string& what) { failMetadata(recordOffset, what); };

  std::vector<const Element*> classes;
  for (const Element& child : root.children) {
    if (child.name != "metadata") continue;
    for (const Element& c : child.children) {
      if (c.name == "class") classes.push_back(&c);
    }
  }

  metadata.types_.resize(classes.size());  // never resized again: types point at each other
  for (size_t i = 0; i < classes.size(); ++i) {
    const Element& c = *classes[i];
    TypeInfo& type = metadata.types_[i];
    type.index = i;
    static std::atomic<uint64_t> nextUid{1};
    type.uid = nextUid.fetch_add(1, std::memory_order_relaxed);
    type.name = std::string(c.attribute("name").value_or(""));
    auto id = parseTypeId(c.attribute("id").value_or(""));
    if (!id) fail("class '" + type.name + "' has a missing or malformed id");
    type.id = *id;
    type.superType = std::string(c.attribute("superType").value_or(""));
    metadata.byId_.emplace_back(type.id, &type);
    metadata.byName_.emplace_back(type.name, &type);
  }
  std::sort(metadata.byId_.begin(), metadata.byId_.end());
  for (size_t i = 1; i < metadata.byId_.size(); ++i) {
    if (metadata.byId_[i].first == metadata.byId_[i - 1].first) {
      fail("type id " + std::to_string(metadata.byId_[i].first) + " is declared twice");
    }
  }
  // A name declared twice resolves to its first declaration.
  std::stable_sort(metadata.byName_.begin(), metadata.byName_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  auto typeOf = [&](const Element& e, const std::string& context) -> const TypeInfo* {
    auto typeId = parseTypeId(e.attribute("class").value_or(""));
    if (!typeId) fail(context + " has a missing or malformed class attribute");
    const TypeInfo* type = metadata.byId(*typeId);
    if (!type) fail(context + " refers to undeclared type id " + std::to_string(*typeId));
    return type;
  };
  auto annotationOf = [&](const Element& e, const std::string& context) {
    AnnotationInfo annotation;
    annotation.type = typeOf(e, "an annotation of " + context);
    for (const auto& [key, value] : e.attributes) {
      if (key != "class") annotation.values.emplace_back(key, value);
    }
    return annotation;
  };

  for (size_t i = 0; i < classes.size(); ++i) {
    TypeInfo& type = metadata.types_[i];
    for (const Element& child : classes[i]->children) {
      if (child.name == "annotation") {
        type.annotations.push_back(annotationOf(child, "type '" + type.name + "'"));
      } else if (child.name == "field") {
        FieldInfo field;
        field.name = std::string(child.attribute("name").value_or(""));
        std::string context = "field '" + type.name + "." + field.name + "'";
        field.type = typeOf(child, context);
        field.constantPool = child.attribute("constantPool") == std::optional<std::string_view>("true");
        auto dimension = child.attribute("dimension").value_or("0");
        if (dimension == "1") {
          field.array = true;
        } else if (dimension != "0") {
          fail(context + " has unsupported dimension " + std::string(dimension));
        }
        for (const Element& a : child.children) {
          if (a.name == "annotation") field.annotations.push_back(annotationOf(a, context));
        }
        type.fields.push_back(std::move(field));
      }
    }
    type.simple = classes[i]->attribute("simpleType") == std::optional<std::string_view>("true") &&
                  type.fields.size() == 1;
  }

  // Conveniences derived from annotations, once every annotation type is known.
  auto textOf = [](const std::vector<AnnotationInfo>& annotations, std::string_view typeName) {
    const AnnotationInfo* a = findAnnotation(annotations, typeName);
    return a ? std::string(a->value().value_or("")) : std::string();
  };
  std::vector<bool> isContentType(metadata.types_.size());  // annotation types marked @ContentType
  for (const TypeInfo& type : metadata.types_) isContentType[type.index] = findAnnotation(type.annotations, "jdk.jfr.ContentType");
  for (TypeInfo& type : metadata.types_) {
    type.label = textOf(type.annotations, "jdk.jfr.Label");
    type.description = textOf(type.annotations, "jdk.jfr.Description");
    if (const AnnotationInfo* category = findAnnotation(type.annotations, "jdk.jfr.Category")) {
      for (std::string_view v : category->arrayValue()) type.category.emplace_back(v);
    }
    for (FieldInfo& field : type.fields) {
      field.label = textOf(field.annotations, "jdk.jfr.Label");
      field.description = textOf(field.annotations, "jdk.jfr.Description");
      for (const AnnotationInfo& a : field.annotations) {
        if (a.type->name == "jdk.jfr.Unsigned") {
          field.unsignedValue = true;
        } else if (field.contentType.empty() && isContentType[a.type->index]) {
          field.contentType = a.type->name;
          field.unit = std::string(a.value().value_or(""));
        }
      }
    }
  }
  return metadata;
}

}  // namespace jfrbpf::jfr::reader
