#pragma once
// Typed views of the JDK's standard types (jdk.types.StackTrace, jdk.types.StackFrame, jdk.types.Method,
// java.lang.Class, java.lang.Thread), which every profiling event uses. All strings are views into the
// recording with the lifetime of the values they came from (see recording.h).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/jfr/reader/value.h"

namespace jfrbpf::jfr::reader {

// A field looked up by name once per type rather than once per object: for loops over many objects of
// few types. Not thread-safe (it caches); use one per thread.
class FieldKey {
 public:
  explicit FieldKey(std::string_view name) : name_(name) {}
  const Value& of(const RecordedObject& object) const;
  const Value& of(const RecordedObject* object) const;  // the null value for a null object

 private:
  std::string name_;
  mutable uint64_t typeUid_ = 0;
  mutable size_t index_ = 0;
};

struct MethodInfo {
  std::string_view className;   // as stored: JVM internal form, e.g. "java/lang/String"; "" when unknown
  std::string_view methodName;  // "" when unknown
  std::string_view descriptor;  // e.g. "(I)J"; "" when unknown
  const RecordedObject* object = nullptr;  // the jdk.types.Method constant: identifies the method in its chunk
};

// A jdk.types.Method value (a frame's method, jdk.MethodTiming's "method"); nullopt when null.
std::optional<MethodInfo> methodInfo(const Value& method);

struct Frame {
  std::string_view className;   // as stored: JVM internal form, e.g. "java/lang/String"; "" when unknown
  std::string_view methodName;  // "" when unknown
  std::string_view descriptor;  // e.g. "(I)J"; "" when unknown
  int32_t lineNumber = -1;      // -1 when unknown
  int32_t bytecodeIndex = -1;   // -1 when unknown
  std::string_view type;        // "Interpreted", "JIT compiled", "Inlined", "Native", …; "" when unknown
  const RecordedObject* method = nullptr;  // the jdk.types.Method constant: identifies the method in its chunk
};

class StackTraceView {
 public:
  // `stackTrace` is a jdk.types.StackTrace value, typically event.get("stackTrace"); null gives an empty view.
  explicit StackTraceView(const Value& stackTrace);

  bool present() const { return trace_ != nullptr; }  // false for a null trace (e.g. a failed sample)
  bool truncated() const;
  size_t size() const { return frames_.size(); }
  Frame frame(size_t index) const;  // 0 is the top frame (the leaf); out of range gives an empty Frame
  std::vector<Frame> frames() const;
  const RecordedObject* object() const { return trace_; }  // identifies the trace within its chunk

 private:
  const RecordedObject* trace_ = nullptr;
  std::span<const Value> frames_;
};

struct ThreadInfo {
  std::string_view osName;    // "" when absent (virtual threads)
  int64_t osThreadId = 0;     // the Linux TID for platform threads
  std::string_view javaName;  // "" for threads the JVM does not expose to Java
  int64_t javaThreadId = 0;
  bool virtualThread = false;
  const RecordedObject* object = nullptr;  // the java.lang.Thread constant: identifies the thread in its chunk
};

// A java.lang.Thread value; nullopt when null.
std::optional<ThreadInfo> threadInfo(const Value& thread);
// The thread an event is about: "sampledThread" where the event has one (jdk.ExecutionSample,
// jdk.NativeMethodSample), else "eventThread".
std::optional<ThreadInfo> threadOf(const RecordedObject& event);

// "java/util/HashMap$Node" → "java.util.HashMap$Node", the form Java tools display.
std::string javaClassName(std::string_view internalName);

}  // namespace jfrbpf::jfr::reader
