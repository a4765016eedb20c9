#pragma once
// OpenTelemetry's process context (OTEP 4719), as a process publishes it for readers outside it: a mapping
// named OTEL_CTX whose 32-byte header (host-endian) is
//
//   0  "OTEL_CTX"                 signature, 8 bytes
//   8  version          u32      2
//   12 payload_size     u32
//   16 published_at_ns  u64      CLOCK_BOOTTIME of the last update; 0 while one is under way
//   24 payload          u64      address, in the process, of a ProcessContext protobuf message:
//                                { Resource resource = 1; repeated KeyValue attributes = 2; }
//
// The resource names the service (service.name, service.instance.id, deployment.environment.name, ...); the
// extra attributes say whether threads publish their own context (threadlocal.schema_version) and the names
// of its attribute keys (threadlocal.attribute_key_map, append-only, at most 256). Every byte is the
// target's: reads are bounded, the payload is decoded defensively, and text is made printable.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "userspace/proc/maps.h"
#include "userspace/unwind/memory_reader.h"

namespace jfrbpf::otel {

inline constexpr size_t kProcessContextHeaderBytes = 32;
inline constexpr uint32_t kProcessContextVersion = 2;
// The largest payload read: the resource and the key map of a real service take a few KiB.
inline constexpr uint32_t kMaxProcessContextPayload = 64 * 1024;
// Key indexes are one byte.
inline constexpr size_t kMaxThreadContextKeys = 256;

struct Attribute {
  std::string key;
  std::string value;  // strings as they are; other values as text ("42", "true", "[a, b]")

  bool operator==(const Attribute&) const = default;
};

struct ProcessContext {
  uint64_t publishedAtNs = 0;
  std::vector<Attribute> resource;
  std::vector<Attribute> attributes;   // the extra attributes but threadlocal.*
  std::string threadSchema;            // threadlocal.schema_version, "" when threads publish none
  std::vector<std::string> threadKeys; // threadlocal.attribute_key_map: index -> name
  std::string threadKeysProblem;       // why threadKeys was refused (too many), else ""

  // The resource attribute `key`, or null.
  const std::string* resourceValue(std::string_view key) const;
  // Whether threads publish their context in a schema jfrbpf reads (OTEP 4947's TLS record).
  bool publishesThreadContext() const;
};

// Decodes a ProcessContext message. Throws jfrbpf::Error (naming what is wrong) when it is malformed.
ProcessContext decodeProcessContext(std::span<const uint8_t> payload);

// The mapping of a process's context among its mappings, or null when it publishes none.
const proc::Mapping* findProcessContextMapping(const std::vector<proc::Mapping>& maps);

// Reads the context whose header is at `header` by OTEP 4719's protocol: the payload is taken only between
// two reads of the same non-zero published_at_ns, a few times at most. Throws jfrbpf::Error, saying why,
// when there is none to read (a bad signature or version, an update that never settles, unreadable memory,
// a payload over kMaxProcessContextPayload, a malformed message).
ProcessContext readProcessContext(const unwind::MemoryReader& memory, uint64_t header);
// Just its published_at_ns (0 while an update is under way), to tell whether it changed; nullopt when the
// header cannot be read.
std::optional<uint64_t> readPublishedAt(const unwind::MemoryReader& memory, uint64_t header);

}  // namespace jfrbpf::otel
