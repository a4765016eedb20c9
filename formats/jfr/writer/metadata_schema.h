#pragma once
// The writer's metadata: JDK 25's exact declarations for the jdk.* events and value types it writes, plus
// jfrbpf's own events. Built once per recording; the id is a hash of the content, so files written by a
// different schema never share a metadata id (the JDK reuses a chunk's metadata when the id repeats).
#include <cstdint>
#include <optional>
#include <string_view>

#include "formats/jfr/writer/byte_buffer.h"
#include "formats/jfr/writer/type_ids.h"

namespace jfrbpf::jfr {

struct MetadataSchema {
  ByteBuffer body;  // string table + element tree (see metadata_element.h)
  int64_t id = 0;
};

// gmtOffsetMillis goes into the metadata's region element (the JDK requires one). With `traceContext`, the
// events taken in a thread (samples, traces, allocation samples, lock events, off-CPU samples) end with the
// OpenTelemetry context fields, in this order: traceIdHi, traceIdLo, spanId (long), traceFlags (int),
// contextAttributes, contextNotRead (String), contextId (long: contextIdOf the attributes).
MetadataSchema buildMetadataSchema(int64_t gmtOffsetMillis, bool traceContext = false);

// A context's attributes ("http.route=/a, user=1") as one positive number, the same in every file and build
// (FNV-1a); 0 for none.
int64_t contextIdOf(std::string_view attributes);

// The declared event type with this name ("jdk.CPUTimeSample"), for jdk.ActiveSetting's id.
std::optional<TypeId> eventTypeByName(std::string_view eventName);

}  // namespace jfrbpf::jfr
