#include "tests/jfrreader/jfr_bytes.h"

#include <bit>
#include <map>
#include <stdexcept>

namespace jfrbpf::jfr::testing {

Bytes& Bytes::u8(uint8_t v) {
  data_.push_back(v);
  return *this;
}

Bytes& Bytes::be16(uint16_t v) { return u8(uint8_t(v >> 8)).u8(uint8_t(v)); }
Bytes& Bytes::be32(uint32_t v) { return be16(uint16_t(v >> 16)).be16(uint16_t(v)); }
Bytes& Bytes::be64(uint64_t v) { return be32(uint32_t(v >> 32)).be32(uint32_t(v)); }
Bytes& Bytes::f32(float v) { return be32(std::bit_cast<uint32_t>(v)); }
Bytes& Bytes::f64(double v) { return be64(std::bit_cast<uint64_t>(v)); }

int varintLength(uint64_t v) {
  for (int n = 1; n < 9; ++n) {
    if (v < (uint64_t(1) << (7 * n))) return n;
  }
  return 9;
}

Bytes& Bytes::varint(uint64_t v) { return paddedVarint(v, varintLength(v)); }

Bytes& Bytes::paddedVarint(uint64_t v, int width) {
  if (width < 1 || width > 9 || (width < 9 && v >= (uint64_t(1) << (7 * width)))) {
    throw std::logic_error("value does not fit a varint of that width");
  }
  for (int i = 0; i < width; ++i) {
    if (i == 8) {
      u8(uint8_t(v >> 56));
    } else {
      u8(uint8_t(((v >> (7 * i)) & 0x7F) | (i + 1 < width ? 0x80 : 0)));
    }
  }
  return *this;
}

Bytes& Bytes::raw(std::span<const uint8_t> bytes) {
  data_.insert(data_.end(), bytes.begin(), bytes.end());
  return *this;
}

Bytes& Bytes::utf8(std::string_view s) {
  u8(3).varint(s.size());
  return raw(std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

Bytes& Bytes::charArray(std::u16string_view s) {
  u8(4).varint(s.size());
  for (char16_t c : s) varint(c);
  return *this;
}

Bytes& Bytes::latin1(std::string_view latin1Bytes) {
  u8(5).varint(latin1Bytes.size());
  return raw(std::span(reinterpret_cast<const uint8_t*>(latin1Bytes.data()), latin1Bytes.size()));
}

namespace {

struct Element {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<Element> children;
};

Element annotationElement(const AnnotationSpec& a) {
  Element e{"annotation", {{"class", std::to_string(a.typeId)}}, {}};
  for (const auto& v : a.values) e.attributes.push_back(v);
  return e;
}

class StringTable {
 public:
  uint64_t index(const std::string& s) {
    auto [it, inserted] = indexes_.emplace(s, strings_.size());
    if (inserted) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::map<std::string, uint64_t> indexes_;
  std::vector<std::string> strings_;
};

void collectStrings(const Element& e, StringTable& table) {
  table.index(e.name);
  for (const auto& [k, v] : e.attributes) {
    table.index(k);
    table.index(v);
  }
  for (const auto& child : e.children) collectStrings(child, table);
}

void writeElement(const Element& e, StringTable& table, Bytes& out) {
  out.varint(table.index(e.name)).varint(e.attributes.size());
  for (const auto& [k, v] : e.attributes) out.varint(table.index(k)).varint(table.index(v));
  out.varint(e.children.size());
  for (const auto& child : e.children) writeElement(child, table, out);
}

void writeString(Bytes& out, const std::string& s, StringStyle style) {
  switch (style) {
    case StringStyle::kUtf8:
      out.utf8(s);
      return;
    case StringStyle::kCharArray:
      out.charArray(std::u16string(s.begin(), s.end()));  // the schema's strings are ASCII
      return;
    case StringStyle::kLatin1:
      out.latin1(s);
      return;
  }
}

}  // namespace

Bytes metadataBody(const std::vector<TypeSpec>& types, int64_t metadataId, StringStyle style) {
  Element metadata{"metadata", {}, {}};
  for (const TypeSpec& t : types) {
    Element c{"class", {{"name", t.name}, {"id", std::to_string(t.id)}}, {}};
    if (!t.superType.empty()) c.attributes.emplace_back("superType", t.superType);
    if (t.simple) c.attributes.emplace_back("simpleType", "true");
    for (const AnnotationSpec& a : t.annotations) c.children.push_back(annotationElement(a));
    for (const FieldSpec& f : t.fields) {
      Element fe{"field", {{"name", f.name}, {"class", std::to_string(f.typeId)}}, {}};
      if (f.constantPool) fe.attributes.emplace_back("constantPool", "true");
      if (f.array) fe.attributes.emplace_back("dimension", "1");
      for (const AnnotationSpec& a : f.annotations) fe.children.push_back(annotationElement(a));
      c.children.push_back(fe);
    }
    metadata.children.push_back(c);
  }
  Element region{"region", {{"locale", "en_US"}, {"gmtOffset", "0"}}, {}};
  Element root{"root", {}, {metadata, region}};

  StringTable table;
  collectStrings(root, table);
  Bytes out;
  out.varint(0).varint(5'000'000'000).varint(0).varint(static_cast<uint64_t>(metadataId));
  out.varint(table.strings().size());
  for (const std::string& s : table.strings()) writeString(out, s, style);
  writeElement(root, table, out);
  return out;
}

Bytes poolsBody(const std::vector<PoolSpec>& pools) {
  Bytes out;
  out.varint(pools.size());
  for (const PoolSpec& pool : pools) {
    out.varint(static_cast<uint64_t>(pool.typeId)).varint(pool.entries.size());
    for (const auto& [key, value] : pool.entries) out.varint(static_cast<uint64_t>(key)).append(value);
  }
  return out;
}

ChunkBuilder& ChunkBuilder::checkpoint(const Bytes& pools, std::optional<int64_t> delta) {
  records_.push_back({Kind::kCheckpoint, pools, delta});
  return *this;
}

std::vector<uint8_t> ChunkBuilder::build() const {
  Bytes body;
  int64_t metadataOffset = 0;
  int64_t lastCheckpoint = 0;
  auto position = [&] { return static_cast<int64_t>(68 + body.size()); };
  auto withSize = [&](const Bytes& content) {
    int width = sizeWidth_;
    if (width == 0) {
      width = 1;
      while (varintLength(content.size() + width) != width) ++width;
    }
    body.paddedVarint(content.size() + width, width).append(content);
  };
  for (const Record& r : records_) {
    switch (r.kind) {
      case Kind::kMetadata:
        metadataOffset = position();
        withSize(r.body);
        break;
      case Kind::kEvent:
        withSize(r.body);
        break;
      case Kind::kRaw:
        body.append(r.body);
        break;
      case Kind::kCheckpoint: {
        int64_t here = position();
        int64_t delta = r.delta.value_or(lastCheckpoint ? lastCheckpoint - here : 0);
        Bytes content;
        content.varint(1).varint(static_cast<uint64_t>(startTicks_)).varint(0);
        content.paddedVarint(static_cast<uint64_t>(delta), 9).u8(1).append(r.body);
        withSize(content);
        lastCheckpoint = here;
        break;
      }
    }
  }
  Bytes out;
  out.raw({'F', 'L', 'R', 0}).be16(2).be16(1);
  out.be64(68 + body.size()).be64(static_cast<uint64_t>(lastCheckpoint)).be64(static_cast<uint64_t>(metadataOffset));
  out.be64(static_cast<uint64_t>(startNanos_)).be64(1'000'000'000).be64(static_cast<uint64_t>(startTicks_));
  out.be64(static_cast<uint64_t>(ticksPerSecond_)).u8(0).u8(0).be16(3);
  out.append(body);
  return out.data();
}

std::vector<TypeSpec> standardTypes() {
  using namespace ids;
  auto label = [](std::string text) { return AnnotationSpec{kLabel, {{"value", std::move(text)}}}; };
  AnnotationSpec contentType{kContentType, {}};
  return {
      {kBoolean, "boolean"},
      {kChar, "char"},
      {kFloat, "float"},
      {kDouble, "double"},
      {kByte, "byte"},
      {kShort, "short"},
      {kInt, "int"},
      {kLong, "long"},
      {kString, "java.lang.String"},
      {kLabel, "jdk.jfr.Label", "java.lang.annotation.Annotation", false, {{"value", kString}}},
      {kDescription, "jdk.jfr.Description", "java.lang.annotation.Annotation", false, {{"value", kString}}},
      {kCategory, "jdk.jfr.Category", "java.lang.annotation.Annotation", false, {{"value", kString, false, true}}},
      {kContentType, "jdk.jfr.ContentType", "java.lang.annotation.Annotation"},
      {kTimestamp, "jdk.jfr.Timestamp", "java.lang.annotation.Annotation", false, {{"value", kString}},
       {contentType, label("Timestamp")}},
      {kTimespan, "jdk.jfr.Timespan", "java.lang.annotation.Annotation", false, {{"value", kString}},
       {contentType, label("Timespan")}},
      {kThread, "java.lang.Thread", "", false,
       {{"osName", kString, false, false, {label("OS Thread Name")}},
        {"osThreadId", kLong},
        {"javaName", kString},
        {"javaThreadId", kLong}},
       {label("Thread")}},
      {kSymbol, "jdk.types.Symbol", "", true, {{"string", kString}}},
      {kClass, "java.lang.Class", "", false, {{"name", kSymbol, true}}},
      {kMethod, "jdk.types.Method", "", false,
       {{"type", kClass, true}, {"name", kSymbol, true}, {"descriptor", kSymbol, true}}},
      {kFrameType, "jdk.types.FrameType", "", true, {{"description", kString}}},
      {kStackFrame, "jdk.types.StackFrame", "", false,
       {{"method", kMethod, true}, {"lineNumber", kInt}, {"bytecodeIndex", kInt}, {"type", kFrameType, true}}},
      {kStackTrace, "jdk.types.StackTrace", "", false, {{"truncated", kBoolean}, {"frames", kStackFrame, false, true}}},
  };
}

TypeSpec sampleEventType() {
  using namespace ids;
  return {kSample,
          "test.Sample",
          "jdk.jfr.Event",
          false,
          {{"startTime", kLong, false, false, {{kTimestamp, {{"value", "TICKS"}}}, {kLabel, {{"value", "Start Time"}}}}},
           {"duration", kLong, false, false, {{kTimespan, {{"value", "TICKS"}}}}},
           {"eventThread", kThread, true},
           {"stackTrace", kStackTrace, true},
           {"weight", kInt, false, false, {{kLabel, {{"value", "Weight"}}}}}},
          {{kLabel, {{"value", "Sample"}}},
           {kDescription, {{"value", "A test sample"}}},
           {kCategory, {{"value-0", "Tests"}, {"value-1", "Reader"}}}}};
}

Bytes threadValue(std::string_view osName, int64_t osThreadId, std::string_view javaName, int64_t javaThreadId) {
  Bytes b;
  b.utf8(osName).varint(static_cast<uint64_t>(osThreadId));
  if (javaName.empty()) {
    b.nullString();
  } else {
    b.utf8(javaName);
  }
  return b.varint(static_cast<uint64_t>(javaThreadId));
}

Bytes symbolValue(std::string_view text) { return Bytes().utf8(text); }

Bytes classValue(int64_t nameSymbol) { return Bytes().varint(static_cast<uint64_t>(nameSymbol)); }

Bytes methodValue(int64_t classKey, int64_t nameSymbol, int64_t descriptorSymbol) {
  return Bytes()
      .varint(static_cast<uint64_t>(classKey))
      .varint(static_cast<uint64_t>(nameSymbol))
      .varint(static_cast<uint64_t>(descriptorSymbol));
}

Bytes stackTraceValue(bool truncated, const std::vector<FrameSpec>& frames) {
  Bytes b;
  b.u8(truncated).varint(frames.size());
  for (const FrameSpec& f : frames) {
    b.varint(static_cast<uint64_t>(f.method))
        .varint(static_cast<uint32_t>(f.line))
        .varint(static_cast<uint32_t>(f.bci))
        .varint(static_cast<uint64_t>(f.frameType));
  }
  return b;
}

Bytes sampleEvent(int64_t startTicks, int64_t durationTicks, int64_t thread, int64_t stackTrace, int32_t weight) {
  return Bytes()
      .varint(ids::kSample)
      .varint(static_cast<uint64_t>(startTicks))
      .varint(static_cast<uint64_t>(durationTicks))
      .varint(static_cast<uint64_t>(thread))
      .varint(static_cast<uint64_t>(stackTrace))
      .varint(static_cast<uint32_t>(weight));
}

Bytes samplePools() {
  using namespace ids;
  return poolsBody({
      {kThread, {{1, threadValue("main", 1001, "main", 1)}, {2, threadValue("worker-é", 1002, "", 0)}}},
      {kSymbol,
       {{1, symbolValue("com/example/Work")},
        {2, symbolValue("compute")},
        {3, symbolValue("(I)J")},
        {4, symbolValue("main")},
        {5, symbolValue("([Ljava/lang/String;)V")}}},
      {kClass, {{1, classValue(1)}}},
      {kMethod, {{1, methodValue(1, 2, 3)}, {2, methodValue(1, 4, 5)}}},
      {kFrameType, {{0, Bytes().utf8("Interpreted")}, {1, Bytes().utf8("JIT compiled")}, {2, Bytes().utf8("Inlined")}}},
      {kStackTrace,
       {{1, stackTraceValue(false, {{1, 12, 7, 1}, {2, 30, 2, 0}})}, {2, stackTraceValue(true, {{1, 13, 9, 2}})}}},
  });
}

std::vector<uint8_t> sampleRecording(int events, int sizeWidth) {
  auto types = standardTypes();
  types.push_back(sampleEventType());
  ChunkBuilder chunk;
  chunk.sizeWidth(sizeWidth).metadata(metadataBody(types));
  for (int i = 0; i < events; ++i) {
    chunk.event(sampleEvent(5'000'000'000 + 1000 * i, 10 * i, 1 + i % 2, 1 + i % 2, i));
  }
  chunk.checkpoint(samplePools());
  return chunk.build();
}

}  // namespace jfrbpf::jfr::testing
