#include "jvmsupport/agent/class_reporter.h"

#include <jvmti.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/clock.h"
#include "jvmsupport/agent/jvmti_memory.h"

namespace jfrbpf::agent {

namespace {

constexpr size_t kMaxLines = (protocol::kMaxPayload - 4096) / protocol::kLineEntrySize;
constexpr size_t kMaxClassName = 4096;

// "Lcom/foo/Bar;" -> "com/foo/Bar" in `out`. JVMTI spells a hidden class "Lcom/foo/Bar$$Lambda.0x...;":
// the '.' (never part of a binary name) marks it, and becomes the '/' HotSpot itself shows.
bool internalName(const char* signature, char* out, size_t capacity, size_t& length, bool& hidden) {
  std::string_view sig(signature);
  if (sig.size() < 3 || sig.front() != 'L' || sig.back() != ';') return false;
  sig.remove_prefix(1);
  sig.remove_suffix(1);
  if (sig.size() >= capacity) sig.remove_suffix(sig.size() - (capacity - 1));
  hidden = false;
  for (size_t i = 0; i < sig.size(); ++i) {
    char c = sig[i];
    if (c == '.') {
      hidden = true;
      c = '/';
    }
    out[i] = c;
  }
  length = sig.size();
  return true;
}

// `pointers`: where the method's version is (a version retransformation replaced, previous_versions.h, is
// reported with the current one's name and lines); null where unknown.
void reportMethod(Agent& agent, jmethodID method, uint64_t classId, uint64_t time, uint32_t flags,
                  const MethodPointers* pointers) {
  jvmtiEnv* jvmti = agent.jvmti();
  JvmtiString name(jvmti), signature(jvmti);
  if (jvmti->GetMethodName(method, name.out(), signature.out(), nullptr) != JVMTI_ERROR_NONE) return;
  jint modifiers = 0;
  if (jvmti->GetMethodModifiers(method, &modifiers) != JVMTI_ERROR_NONE) return;
  jint lineCount = 0;
  JvmtiArray<jvmtiLineNumberEntry> lines(jvmti);
  // Native and abstract methods, and classes compiled without -g:lines, have no table: an empty one.
  if (jvmti->GetLineNumberTable(method, &lineCount, lines.out()) != JVMTI_ERROR_NONE) lineCount = 0;
  if (lineCount < 0) lineCount = 0;
  if (static_cast<size_t>(lineCount) > kMaxLines) lineCount = static_cast<jint>(kMaxLines);

  protocol::MethodInfo r;
  r.time = time;
  r.methodId = reinterpret_cast<uintptr_t>(method);
  r.classId = classId;
  if (pointers != nullptr) {
    r.methodPtr = pointers->method;
    r.codeStart = pointers->codeStart;
    r.codeSize = pointers->codeSize;
  }
  r.modifiers = static_cast<uint32_t>(modifiers);
  r.flags = flags;
  r.name = name.get() != nullptr ? name.get() : "";
  r.signature = signature.get() != nullptr ? signature.get() : "";
  r.lineCount = static_cast<uint32_t>(lineCount);

  RecordBuffer buffer;
  buffer.begin(protocol::RecordType::kMethod);
  Writer w(buffer);
  protocol::encodeMethodHead(w, r);
  for (jint i = 0; i < lineCount; ++i) {
    jlocation start = lines.get()[i].start_location;
    jint line = lines.get()[i].line_number;
    protocol::encodeLine(w, {static_cast<uint32_t>(start < 0 ? 0 : start), static_cast<uint32_t>(line < 0 ? 0 : line)});
  }
  if (buffer.finish()) agent.emit(buffer);
}

// The id the class's mirror is tagged with, tagging it on first sight: the same class keeps its id over
// replays, and its unload (ObjectFree of the tag) names it.
uint64_t classIdOf(Agent& agent, jclass klass) {
  jvmtiEnv* jvmti = agent.jvmti();
  jlong tag = 0;
  if (agent.tagsClasses() && jvmti->GetTag(klass, &tag) == JVMTI_ERROR_NONE && tag > 0)
    return static_cast<uint64_t>(tag);
  const uint64_t id = agent.nextClassId();
  if (agent.tagsClasses()) jvmti->SetTag(klass, static_cast<jlong>(id));
  return id;
}

}  // namespace

uint64_t allocatedClassId(Agent& agent, jclass klass) {
  jvmtiEnv* jvmti = agent.jvmti();
  jlong tag = 0;
  if (agent.tagsClasses() && jvmti->GetTag(klass, &tag) == JVMTI_ERROR_NONE && tag > 0) {
    return static_cast<uint64_t>(tag);
  }
  JvmtiString signature(jvmti);
  if (jvmti->GetClassSignature(klass, signature.out(), nullptr) != JVMTI_ERROR_NONE || signature.get() == nullptr) {
    return 0;
  }
  char name[kMaxClassName];
  size_t nameLength = 0;
  bool hidden = false;
  if (signature.get()[0] == '[') {  // arrays keep their descriptor as JFR names them: "[B", "[Ljava/lang/String;"
    nameLength = std::min(std::strlen(signature.get()), sizeof name - 1);
    std::memcpy(name, signature.get(), nameLength);
  } else if (!internalName(signature.get(), name, sizeof name, nameLength, hidden)) {
    return 0;
  }
  jint modifiers = 0;
  if (jvmti->GetClassModifiers(klass, &modifiers) != JVMTI_ERROR_NONE) modifiers = 0;
  protocol::ClassInfo r;
  r.classId = classIdOf(agent, klass);
  r.time = monotonicNs();
  r.modifiers = static_cast<uint32_t>(modifiers);
  r.flags = hidden ? protocol::kHidden : 0;
  r.name = std::string_view(name, nameLength);
  emitRecord(agent, protocol::RecordType::kClass, r);
  return r.classId;
}

void reportClassUnload(Agent& agent, uint64_t classId) {
  emitRecord(agent, protocol::RecordType::kClassUnload, protocol::ClassUnload{classId, monotonicNs()});
}

bool reportClass(Agent& agent, jclass klass, uint32_t flags, uint32_t& methodsSent) {
  methodsSent = 0;
  jvmtiEnv* jvmti = agent.jvmti();
  jint status = 0;
  if (jvmti->GetClassStatus(klass, &status) != JVMTI_ERROR_NONE) return false;
  if ((status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) != 0) return false;
  if ((status & JVMTI_CLASS_STATUS_PREPARED) == 0) return false;

  JvmtiString signature(jvmti);
  if (jvmti->GetClassSignature(klass, signature.out(), nullptr) != JVMTI_ERROR_NONE || signature.get() == nullptr) {
    return false;
  }
  char name[kMaxClassName];
  size_t nameLength = 0;
  bool hidden = false;
  if (!internalName(signature.get(), name, sizeof name, nameLength, hidden)) return false;
  jint modifiers = 0;
  if (jvmti->GetClassModifiers(klass, &modifiers) != JVMTI_ERROR_NONE) modifiers = 0;
  jint methodCount = 0;
  JvmtiArray<jmethodID> methods(jvmti);
  // INVALID_CLASS / CLASS_NOT_PREPARED: unloaded or not ready meanwhile; nothing to report.
  if (jvmti->GetClassMethods(klass, &methodCount, methods.out()) != JVMTI_ERROR_NONE) return false;

  protocol::ClassInfo r;
  r.classId = classIdOf(agent, klass);
  r.time = monotonicNs();
  r.modifiers = static_cast<uint32_t>(modifiers);
  r.flags = flags | (hidden ? protocol::kHidden : 0);
  r.name = std::string_view(name, nameLength);
  RecordBuffer buffer;
  buffer.begin(protocol::RecordType::kClass);
  Writer w(buffer);
  protocol::encode(w, r);
  if (buffer.finish()) agent.emit(buffer);

  const bool replayed = (flags & protocol::kReplayed) != 0;
  constexpr size_t kChunk = 64;
  MethodPointers pointers[kChunk];
  bool found[kChunk];
  for (jint first = 0; first < methodCount && agent.sessionActive(); first += static_cast<jint>(kChunk)) {
    const size_t n = std::min(kChunk, static_cast<size_t>(methodCount - first));
    agent.layout().methodPointers(std::span<const jmethodID>(methods.get() + first, n), pointers, found);
    for (size_t i = 0; i < n && agent.sessionActive(); ++i) {
      jmethodID method = methods.get()[first + static_cast<jint>(i)];
      // First: the current version must stay the newest for its jmethodID.
      if (replayed) {
        agent.methodTimer().previousVersions().forEach(method, [&](const MethodPointers& version) {
          reportMethod(agent, method, r.classId, r.time, flags, &version);
        });
      }
      reportMethod(agent, method, r.classId, r.time, flags, found[i] ? &pointers[i] : nullptr);
      ++methodsSent;
    }
  }
  return true;
}

void replayClasses(Agent& agent, JNIEnv* jni, uint32_t& classesSent, uint32_t& methodsSent) {
  classesSent = 0;
  methodsSent = 0;
  jint count = 0;
  JvmtiArray<jclass> classes(agent.jvmti());
  if (agent.jvmti()->GetLoadedClasses(&count, classes.out()) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < count; ++i) {
    jclass klass = classes.get()[i];
    if (agent.sessionActive()) {
      uint32_t methods = 0;
      if (reportClass(agent, klass, protocol::kReplayed, methods)) {
        ++classesSent;
        methodsSent += methods;
      }
    }
    jni->DeleteLocalRef(klass);
  }
}

}  // namespace jfrbpf::agent
