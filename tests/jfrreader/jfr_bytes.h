#pragma once
// Hand-built JFR bytes for the reader's tests and fuzz seeds (test support only; independent of the
// writer library on purpose, so reader and writer are checked against the format, not against each other).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jfrbpf::jfr::testing {

class Bytes {
 public:
  Bytes& u8(uint8_t v);
  Bytes& be16(uint16_t v);
  Bytes& be32(uint32_t v);
  Bytes& be64(uint64_t v);
  Bytes& varint(uint64_t v);                   // shortest LEB128 (negative values take 9 bytes)
  Bytes& paddedVarint(uint64_t v, int width);  // exactly `width` (1..9) bytes
  Bytes& f32(float v);
  Bytes& f64(double v);
  Bytes& raw(std::span<const uint8_t> bytes);
  Bytes& raw(std::initializer_list<uint8_t> bytes) { return raw(std::span<const uint8_t>(bytes.begin(), bytes.size())); }
  Bytes& append(const Bytes& other) { return raw(other.data()); }

  // Strings in each JFR encoding.
  Bytes& nullString() { return u8(0); }
  Bytes& emptyString() { return u8(1); }
  Bytes& stringRef(int64_t key) { return u8(2).varint(static_cast<uint64_t>(key)); }
  Bytes& utf8(std::string_view s);
  Bytes& charArray(std::u16string_view s);
  Bytes& latin1(std::string_view latin1Bytes);

  const std::vector<uint8_t>& data() const { return data_; }
  size_t size() const { return data_.size(); }

 private:
  std::vector<uint8_t> data_;
};

// Encoded length of the shortest varint for `v`.
int varintLength(uint64_t v);

struct AnnotationSpec {
  int64_t typeId;
  std::vector<std::pair<std::string, std::string>> values;
};

struct FieldSpec {
  std::string name;
  int64_t typeId;
  bool constantPool = false;
  bool array = false;
  std::vector<AnnotationSpec> annotations = {};
};

struct TypeSpec {
  int64_t id;
  std::string name;
  std::string superType = {};
  bool simple = false;
  std::vector<FieldSpec> fields = {};
  std::vector<AnnotationSpec> annotations = {};
};

enum class StringStyle { kUtf8, kCharArray, kLatin1 };

// The body of a metadata record (everything after its size): type id 0, times, id, strings, element tree.
Bytes metadataBody(const std::vector<TypeSpec>& types, int64_t metadataId = 1, StringStyle style = StringStyle::kUtf8);

struct PoolSpec {
  int64_t typeId;
  std::vector<std::pair<int64_t, Bytes>> entries;  // key, value
};
// A checkpoint's pool section: pool count, then each pool.
Bytes poolsBody(const std::vector<PoolSpec>& pools);

class ChunkBuilder {
 public:
  ChunkBuilder& startNanos(int64_t v) { startNanos_ = v; return *this; }
  ChunkBuilder& startTicks(int64_t v) { startTicks_ = v; return *this; }
  ChunkBuilder& ticksPerSecond(int64_t v) { ticksPerSecond_ = v; return *this; }
  // 0: shortest record sizes; 4: HotSpot's padded 4-byte sizes.
  ChunkBuilder& sizeWidth(int width) { sizeWidth_ = width; return *this; }

  ChunkBuilder& metadata(const Bytes& body) { return add(Kind::kMetadata, body); }
  ChunkBuilder& event(const Bytes& body) { return add(Kind::kEvent, body); }  // body: type id, fields
  // `pools` from poolsBody(). The delta to the previous checkpoint is computed unless overridden.
  ChunkBuilder& checkpoint(const Bytes& pools, std::optional<int64_t> delta = std::nullopt);
  ChunkBuilder& rawRecord(const Bytes& record) { return add(Kind::kRaw, record); }  // size included

  std::vector<uint8_t> build() const;

 private:
  enum class Kind { kMetadata, kEvent, kCheckpoint, kRaw };
  struct Record {
    Kind kind;
    Bytes body;
    std::optional<int64_t> delta;
  };
  ChunkBuilder& add(Kind kind, const Bytes& body) {
    records_.push_back({kind, body, std::nullopt});
    return *this;
  }

  std::vector<Record> records_;
  int64_t startNanos_ = 1'700'000'000'000'000'000;
  int64_t startTicks_ = 5'000'000'000;
  int64_t ticksPerSecond_ = 1'000'000'000;
  int sizeWidth_ = 0;
};

// A small schema in the JDK's shape: primitives, annotation types, and lean forms of java.lang.Thread,
// jdk.types.Symbol/FrameType (simple), java.lang.Class, jdk.types.Method/StackFrame/StackTrace.
namespace ids {
constexpr int64_t kBoolean = 10, kChar = 11, kFloat = 12, kDouble = 13, kByte = 14, kShort = 15, kInt = 16,
                  kLong = 17, kString = 18;
constexpr int64_t kLabel = 30, kContentType = 31, kTimestamp = 32, kTimespan = 33, kDescription = 34,
                  kCategory = 35;
constexpr int64_t kThread = 40, kSymbol = 41, kClass = 42, kMethod = 43, kFrameType = 44, kStackFrame = 45,
                  kStackTrace = 46;
constexpr int64_t kSample = 100;  // test.Sample
}  // namespace ids

std::vector<TypeSpec> standardTypes();
// test.Sample: startTime (Timestamp TICKS), duration (Timespan TICKS), eventThread, stackTrace, weight (int).
TypeSpec sampleEventType();

// Pool entry values of the standard types.
Bytes threadValue(std::string_view osName, int64_t osThreadId, std::string_view javaName, int64_t javaThreadId);
Bytes symbolValue(std::string_view text);
Bytes classValue(int64_t nameSymbol);
Bytes methodValue(int64_t classKey, int64_t nameSymbol, int64_t descriptorSymbol);
struct FrameSpec {
  int64_t method;
  int32_t line;
  int32_t bci;
  int64_t frameType;
};
Bytes stackTraceValue(bool truncated, const std::vector<FrameSpec>& frames);
Bytes sampleEvent(int64_t startTicks, int64_t durationTicks, int64_t thread, int64_t stackTrace, int32_t weight);

// A complete one-chunk recording: the standard schema, one checkpoint with two threads, three methods,
// two stack traces, and `events` test.Sample events.
std::vector<uint8_t> sampleRecording(int events = 4, int sizeWidth = 0);
// The checkpoint pools used by sampleRecording.
Bytes samplePools();

}  // namespace jfrbpf::jfr::testing
