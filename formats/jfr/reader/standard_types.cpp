#include "formats/jfr/reader/standard_types.h"

#include <algorithm>

#include "formats/jfr/reader/metadata.h"

namespace jfrbpf::jfr::reader {
const Value& FieldKey::of(const RecordedObject& object) const {
  const TypeInfo& type = object.type();
  if (type.uid != typeUid_) {
    typeUid_ = type.uid;
    index_ = type.fieldIndex(name_).value_or(type.fields.size());  // out of range reads as null
  }
  return object.field(index_);
}

const Value& FieldKey::of(const RecordedObject* object) const { return object ? of(*object) : Value::null(); }

namespace {
// One cache per thread: the reader may be used from several threads at once.
struct Keys {
  FieldKey truncated{"truncated"}, frames{"frames"};
  FieldKey method{"method"}, lineNumber{"lineNumber"}, bytecodeIndex{"bytecodeIndex"}, frameType{"type"};
  FieldKey methodType{"type"}, methodName{"name"}, descriptor{"descriptor"};
  FieldKey className{"name"};
  FieldKey osName{"osName"}, osThreadId{"osThreadId"}, javaName{"javaName"}, javaThreadId{"javaThreadId"};
  FieldKey isVirtual{"virtual"}, sampledThread{"sampledThread"}, eventThread{"eventThread"};
};
Keys& keys() {
  thread_local Keys k;
  return k;
}

int32_t intOr(const Value& v, int32_t fallback) {
  return v.kind() == Value::Kind::kLong ? static_cast<int32_t>(v.asLong()) : fallback;
}
}  // namespace

StackTraceView::StackTraceView(const Value& stackTrace) : trace_(stackTrace.asObject()) {
  if (trace_) frames_ = keys().frames.of(*trace_).asArray();
}

bool StackTraceView::truncated() const { return keys().truncated.of(trace_).asBool(); }

Frame StackTraceView::frame(size_t index) const {
  Frame out;
  if (index >= frames_.size()) return out;
  const RecordedObject* frame = frames_[index].asObject();
  if (!frame) return out;
  Keys& k = keys();
  out.lineNumber = intOr(k.lineNumber.of(*frame), -1);
  out.bytecodeIndex = intOr(k.bytecodeIndex.of(*frame), -1);
  out.type = k.frameType.of(*frame).asString();
  if (auto method = methodInfo(k.method.of(*frame))) {
    out.className = method->className;
    out.methodName = method->methodName;
    out.descriptor = method->descriptor;
    out.method = method->object;
  }
  return out;
}

std::vector<Frame> StackTraceView::frames() const {
  std::vector<Frame> out;
  out.reserve(frames_.size());
  for (size_t i = 0; i < frames_.size(); ++i) out.push_back(frame(i));
  return out;
}

std::optional<MethodInfo> methodInfo(const Value& method) {
  const RecordedObject* object = method.asObject();
  if (!object) return std::nullopt;
  Keys& k = keys();
  MethodInfo info;
  info.methodName = k.methodName.of(*object).asString();
  info.descriptor = k.descriptor.of(*object).asString();
  info.className = k.className.of(k.methodType.of(*object).asObject()).asString();
  info.object = object;
  return info;
}

std::optional<ThreadInfo> threadInfo(const Value& thread) {
  const RecordedObject* object = thread.asObject();
  if (!object) return std::nullopt;
  Keys& k = keys();
  ThreadInfo info;
  info.osName = k.osName.of(*object).asString();
  info.osThreadId = k.osThreadId.of(*object).asLong();
  info.javaName = k.javaName.of(*object).asString();
  info.javaThreadId = k.javaThreadId.of(*object).asLong();
  info.virtualThread = k.isVirtual.of(*object).asBool();
  info.object = object;
  return info;
}

std::optional<ThreadInfo> threadOf(const RecordedObject& event) {
  Keys& k = keys();
  const Value& sampled = k.sampledThread.of(event);
  return threadInfo(sampled.isNull() ? k.eventThread.of(event) : sampled);
}

std::string javaClassName(std::string_view internalName) {
  std::string out(internalName);
  std::replace(out.begin(), out.end(), '/', '.');
  return out;
}

}  // namespace jfrbpf::jfr::reader
