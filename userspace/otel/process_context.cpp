#include "userspace/otel/process_context.h"

#include <atomic>
#include <cstring>

#include "base/error.h"
#include "userspace/discovery/display_text.h"
#include "userspace/otel/protobuf_reader.h"

namespace jfrbpf::otel {
namespace {

constexpr char kSignature[8] = {'O', 'T', 'E', 'L', '_', 'C', 'T', 'X'};
constexpr int kReadAttempts = 3;  // an update is a few stores: one that is still going after 3 tries is not
constexpr size_t kMaxValueText = 1024;
constexpr size_t kMaxAttributes = 512;
constexpr int kMaxValueDepth = 4;  // arrays and key-value lists inside each other

struct Header {
  char signature[8];
  uint32_t version;
  uint32_t payloadSize;
  uint64_t publishedAtNs;
  uint64_t payload;
};
static_assert(sizeof(Header) == kProcessContextHeaderBytes);

[[noreturn]] void malformed(const std::string& what) { throw Error("malformed process context: " + what); }

std::string printable(std::string_view text) {
  std::string out = discovery::printableText(text.substr(0, kMaxValueText));
  if (text.size() > kMaxValueText) out += "...";
  return out;
}

// An AnyValue as text (strings as they are, made printable).
std::string valueText(std::span<const uint8_t> anyValue, int depth);

std::string listText(std::span<const uint8_t> message, bool keyValues, int depth) {
  std::string text = keyValues ? "{" : "[";
  ProtobufReader reader(message);
  ProtobufField field;
  const char* separator = "";
  while (reader.next(field)) {
    if (field.number != 1 || field.type != WireType::kLength) continue;
    text += separator;
    separator = ", ";
    if (!keyValues) {
      text += valueText(field.bytes, depth + 1);
      continue;
    }
    ProtobufReader pair(field.bytes);
    ProtobufField part;
    std::string key, value;
    while (pair.next(part)) {
      if (part.number == 1 && part.type == WireType::kLength) key = printable(part.text());
      if (part.number == 2 && part.type == WireType::kLength) value = valueText(part.bytes, depth + 1);
    }
    text += key + "=" + value;
    if (text.size() > kMaxValueText) break;
  }
  if (reader.malformed()) malformed("a list value");
  return text + (keyValues ? "}" : "]");
}

std::string valueText(std::span<const uint8_t> anyValue, int depth) {
  if (depth > kMaxValueDepth) return "...";
  ProtobufReader reader(anyValue);
  ProtobufField field;
  std::string text;
  while (reader.next(field)) {  // a oneof: the last one wins, as protobuf says
    switch (field.number) {
      case 1:
        if (field.type == WireType::kLength) text = printable(field.text());
        break;
      case 2:
        if (field.type == WireType::kVarint) text = field.value != 0 ? "true" : "false";
        break;
      case 3:
        if (field.type == WireType::kVarint) text = std::to_string(static_cast<int64_t>(field.value));
        break;
      case 4:
        if (field.type == WireType::kFixed64) {
          double value;
          std::memcpy(&value, &field.value, sizeof value);
          text = std::to_string(value);
        }
        break;
      case 5:
      case 6:
        if (field.type == WireType::kLength) text = listText(field.bytes, field.number == 6, depth);
        break;
      case 7:
        if (field.type == WireType::kLength) {
          static constexpr char kHex[] = "0123456789abcdef";
          text.clear();
          for (size_t i = 0; i < field.bytes.size() && i < kMaxValueText / 2; ++i) {
            text += kHex[field.bytes[i] >> 4];
            text += kHex[field.bytes[i] & 15];
          }
        }
        break;
      default:
        break;
    }
  }
  if (reader.malformed()) malformed("an attribute value");
  return text;
}

// A KeyValue's key and its value's raw AnyValue.
struct RawAttribute {
  std::string_view key;
  std::span<const uint8_t> value;
};

std::vector<RawAttribute> keyValues(std::span<const uint8_t> message, uint32_t fieldNumber) {
  std::vector<RawAttribute> attributes;
  ProtobufReader reader(message);
  ProtobufField field;
  while (reader.next(field)) {
    if (field.number != fieldNumber || field.type != WireType::kLength) continue;
    if (attributes.size() == kMaxAttributes) malformed("more than " + std::to_string(kMaxAttributes) + " attributes");
    RawAttribute attribute;
    ProtobufReader pair(field.bytes);
    ProtobufField part;
    while (pair.next(part)) {
      if (part.number == 1 && part.type == WireType::kLength) attribute.key = part.text();
      if (part.number == 2 && part.type == WireType::kLength) attribute.value = part.bytes;
    }
    if (pair.malformed()) malformed("an attribute");
    attributes.push_back(attribute);
  }
  if (reader.malformed()) malformed("the attribute list");
  return attributes;
}

// An AnyValue holding an array of strings, as a list; nullopt when it is something else.
std::optional<std::vector<std::string>> stringArray(std::span<const uint8_t> anyValue) {
  ProtobufReader reader(anyValue);
  ProtobufField field;
  std::optional<std::vector<std::string>> strings;
  while (reader.next(field)) {
    if (field.number != 5 || field.type != WireType::kLength) continue;
    strings.emplace();
    ProtobufReader array(field.bytes);
    ProtobufField element;
    while (array.next(element)) {
      if (element.number != 1 || element.type != WireType::kLength) continue;
      if (strings->size() > kMaxThreadContextKeys) return strings;  // the caller refuses it
      ProtobufReader value(element.bytes);
      ProtobufField text;
      std::string name;
      while (value.next(text)) {
        if (text.number == 1 && text.type == WireType::kLength) name = printable(text.text());
      }
      strings->push_back(std::move(name));
    }
    if (array.malformed()) malformed("threadlocal.attribute_key_map");
  }
  if (reader.malformed()) malformed("threadlocal.attribute_key_map");
  return strings;
}

bool readHeader(const unwind::MemoryReader& memory, uint64_t address, Header& header) {
  return memory.read(address, {reinterpret_cast<uint8_t*>(&header), sizeof header});
}

}  // namespace

const std::string* ProcessContext::resourceValue(std::string_view key) const {
  for (const Attribute& attribute : resource) {
    if (attribute.key == key) return &attribute.value;
  }
  return nullptr;
}

bool ProcessContext::publishesThreadContext() const {
  return (threadSchema == "tls_v1" || threadSchema == "tlsdesc_v1_dev") && threadKeysProblem.empty();
}

ProcessContext decodeProcessContext(std::span<const uint8_t> payload) {
  ProcessContext context;
  ProtobufReader reader(payload);
  ProtobufField field;
  while (reader.next(field)) {
    if (field.number != 1 || field.type != WireType::kLength) continue;  // the resource
    for (const RawAttribute& raw : keyValues(field.bytes, 1)) {
      context.resource.push_back({printable(raw.key), valueText(raw.value, 0)});
    }
  }
  if (reader.malformed()) malformed("the message");
  for (const RawAttribute& raw : keyValues(payload, 2)) {  // the extra attributes
    if (raw.key == "threadlocal.schema_version") {
      context.threadSchema = valueText(raw.value, 0);
    } else if (raw.key == "threadlocal.attribute_key_map") {
      std::optional<std::vector<std::string>> keys = stringArray(raw.value);
      if (!keys) {
        context.threadKeysProblem = "threadlocal.attribute_key_map is not an array of strings";
      } else if (keys->size() > kMaxThreadContextKeys) {
        context.threadKeysProblem = "threadlocal.attribute_key_map has more than 256 keys";
      } else {
        context.threadKeys = std::move(*keys);
      }
    } else {
      context.attributes.push_back({printable(raw.key), valueText(raw.value, 0)});
    }
  }
  return context;
}

const proc::Mapping* findProcessContextMapping(const std::vector<proc::Mapping>& maps) {
  for (const proc::Mapping& mapping : maps) {
    const std::string_view path = mapping.path;
    // The maps parser took " (deleted)" off the memfd's name already.
    const bool named = path == "/memfd:OTEL_CTX" || path.starts_with("[anon_shmem:OTEL_CTX]") ||
                       path.starts_with("[anon:OTEL_CTX]");
    if (named && !mapping.executable && mapping.readable && mapping.end - mapping.start >= kProcessContextHeaderBytes) {
      return &mapping;
    }
  }
  return nullptr;
}

ProcessContext readProcessContext(const unwind::MemoryReader& memory, uint64_t address) {
  for (int attempt = 0; attempt < kReadAttempts; ++attempt) {
    Header header;
    if (!readHeader(memory, address, header)) throw Error("process context unreadable");
    if (std::memcmp(header.signature, kSignature, sizeof kSignature) != 0) {
      throw Error("process context without its OTEL_CTX signature");
    }
    if (header.version != kProcessContextVersion) {
      throw Error("process context of version " + std::to_string(header.version) + " (jfrbpf reads version 2)");
    }
    if (header.publishedAtNs == 0) continue;  // an update is under way
    if (header.payloadSize == 0 || header.payloadSize > kMaxProcessContextPayload) {
      throw Error("process context payload of " + std::to_string(header.payloadSize) + " bytes (at most " +
                  std::to_string(kMaxProcessContextPayload) + ")");
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::vector<uint8_t> payload(header.payloadSize);
    if (!memory.read(header.payload, payload)) throw Error("process context payload unreadable");
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (readPublishedAt(memory, address) != header.publishedAtNs) continue;  // updated meanwhile
    ProcessContext context = decodeProcessContext(payload);
    context.publishedAtNs = header.publishedAtNs;
    return context;
  }
  throw Error("process context kept changing while it was read");
}

std::optional<uint64_t> readPublishedAt(const unwind::MemoryReader& memory, uint64_t address) {
  uint64_t publishedAt = 0;
  if (!memory.readU64(address + offsetof(Header, publishedAtNs), publishedAt)) return std::nullopt;
  return publishedAt;
}

}  // namespace jfrbpf::otel
