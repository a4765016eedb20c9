// libFuzzer target: any bytes through the whole reader, touching every decoded value the way consumers
// (view, convert) do. Only jfrbpf::Error may come out; crashes, hangs and sanitizer reports are bugs.
#include <cstddef>
#include <cstdint>

#include "formats/jfr/reader/recording.h"

namespace {

using namespace jfrbpf::jfr::reader;

// Visits values depth-first within a budget: constants may refer to each other in loops, and a DAG of
// shared constants can be exponentially large when unfolded.
struct Walker {
  size_t budget = 20000;
  uint64_t checksum = 0;

  void walk(const Value& value, int depth) {
    if (budget == 0 || depth > 12) return;
    --budget;
    switch (value.kind()) {
      case Value::Kind::kString:
        for (char c : value.asString()) checksum += static_cast<uint8_t>(c);
        break;
      case Value::Kind::kLong: checksum += static_cast<uint64_t>(value.asLong()); break;
      case Value::Kind::kArray:
        for (const Value& item : value.asArray()) walk(item, depth + 1);
        break;
      case Value::Kind::kObject: {
        const RecordedObject& object = *value.asObject();
        checksum += object.type().name.size();
        for (size_t i = 0; i < object.fieldCount(); ++i) walk(object.field(i), depth + 1);
        break;
      }
      default: break;
    }
  }
};

void readEvent(const RecordedEvent& event, Walker& walker) {
  walker.walk(Value::ofObject(&event), 0);
  walker.checksum += static_cast<uint64_t>(event.startTimeNanos() + event.durationNanos());
  for (const FieldInfo& field : event.type().fields) {
    walker.checksum += static_cast<uint64_t>(event.timestampNanos(field.name).value_or(0));
    walker.checksum += static_cast<uint64_t>(event.timespanNanos(field.name).value_or(0));
  }
  StackTraceView stack(event.get("stackTrace"));
  walker.checksum += stack.truncated();
  for (const Frame& frame : stack.frames()) {
    walker.checksum += frame.className.size() + frame.methodName.size() + frame.descriptor.size() + frame.type.size();
    walker.checksum += static_cast<uint64_t>(frame.lineNumber + frame.bytecodeIndex);
  }
  if (auto thread = threadOf(event)) walker.checksum += thread->osName.size() + static_cast<uint64_t>(thread->osThreadId);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto recording = Recording::fromBytes({data, size});
    Walker walker;
    recording.forEachChunk([&](const Chunk& chunk) {
      for (const TypeInfo& type : chunk.metadata().types()) {
        walker.checksum += type.label.size() + type.category.size();
        if (chunk.constant(type, 1)) ++walker.checksum;
      }
      chunk.forEachEvent([&](const RecordedEvent& event) {
        walker.budget = 20000;
        readEvent(event, walker);
      });
    });
    volatile uint64_t sink = walker.checksum;
    (void)sink;
  } catch (const jfrbpf::Error&) {
    // Malformed input is expected; any other exception escapes and is reported as a crash.
  }
  return 0;
}
