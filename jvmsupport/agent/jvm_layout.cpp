#include "jvmsupport/agent/jvm_layout.h"

#include <algorithm>
#include <cstring>

#include "jvmsupport/agent/jvmti_memory.h"
#include "jvmsupport/agent/safe_memory.h"

namespace jfrbpf::agent {

namespace {

constexpr size_t kMaxPlausibleOffset = 1u << 16;

}  // namespace

bool IntField::read(uintptr_t object, int64_t& out) const {
  return present() && safeReadInteger(object + offset, width, isSigned, out);
}

IntField findIntField(const VmStructs& vm, const char* typeName, const char* fieldName) {
  uint64_t offset = 0;
  const char* typeString = nullptr;
  if (!vm.fieldOffset(typeName, fieldName, offset, &typeString) || typeString == nullptr ||
      offset >= kMaxPlausibleOffset) {
    return {};
  }
  hotspot::IntFieldAt field = hotspot::integerOfType(typeString);
  uint64_t size = 0;
  if (!field.present() && vm.typeSize(typeString, size) && (size == 1 || size == 2 || size == 4 || size == 8)) {
    field = {0, static_cast<uint8_t>(size), true};  // enums (CompLevel, JavaThreadState): small non-negative values
  }
  if (field.present()) field.offset = offset;
  return field;
}

void JvmLayout::init(const VmStructs& vm, int jdkMajor) {
  methodEnabled_ = false;
  threadEnabled_ = false;
  if (!vm.available() || !safeMemoryAvailable()) return;

  if (jdkMajor <= 25 && vm.fieldOffset("Method", "_constMethod", methodConstMethod_) &&
      vm.typeSize("ConstMethod", constMethodSize_) && methodConstMethod_ < kMaxPlausibleOffset &&
      constMethodSize_ > 0 && constMethodSize_ < kMaxPlausibleOffset) {
    constMethodCodeSize_ = findIntField(vm, "ConstMethod", "_code_size");
    methodEnabled_ = constMethodCodeSize_.present();
  }

  // JDK 17 declares _osthread in JavaThread, JDK 21+ in Thread (a JavaThread is a Thread either way).
  bool haveOsThread = vm.fieldOffset("JavaThread", "_osthread", javaThreadOsThread_) ||
                      vm.fieldOffset("Thread", "_osthread", javaThreadOsThread_);
  osThreadId_ = findIntField(vm, "OSThread", "_thread_id");
  threadEnabled_ = haveOsThread && javaThreadOsThread_ < kMaxPlausibleOffset && osThreadId_.present() &&
                   osThreadId_.width == 4;
}

bool JvmLayout::methodPointers(jmethodID method, MethodPointers& out) const {
  bool found = false;
  methodPointers(std::span<const jmethodID>(&method, 1), &out, &found);
  return found;
}

void JvmLayout::methodPointers(std::span<const jmethodID> methods, MethodPointers* out, bool* found) const {
  std::fill_n(found, methods.size(), false);
  if (!methodEnabled_) return;
  constexpr size_t kChunk = 256;
  const size_t sizeWidth = constMethodCodeSize_.width;
  uintptr_t at[kChunk];
  uint8_t raw[kChunk * sizeof(uint64_t)];
  bool read[kChunk];
  for (size_t first = 0; first < methods.size(); first += kChunk) {
    const size_t n = std::min(kChunk, methods.size() - first);
    bool* ok = found + first;
    MethodPointers* p = out + first;
    auto readLevel = [&](size_t width, auto addressOf) {
      for (size_t i = 0; i < n; ++i) at[i] = ok[i] ? addressOf(i) : 0;
      safeReadEach(std::span<const uintptr_t>(at, n), width, raw, read);
    };
    auto pointerAt = [&](size_t i) {
      uint64_t v = 0;
      std::memcpy(&v, raw + i * sizeof v, sizeof v);
      return v;
    };
    // JDK <= 25: a jmethodID is the address of a slot holding the Method*.
    for (size_t i = 0; i < n; ++i) ok[i] = methods[first + i] != nullptr;
    readLevel(sizeof(uint64_t), [&](size_t i) { return reinterpret_cast<uintptr_t>(methods[first + i]); });
    for (size_t i = 0; i < n; ++i) {
      p[i] = {};
      p[i].method = pointerAt(i);
      ok[i] = ok[i] && read[i] && p[i].method != 0 && (p[i].method & 7) == 0;
    }
    uint64_t constMethod[kChunk];
    readLevel(sizeof(uint64_t), [&](size_t i) { return p[i].method + methodConstMethod_; });
    for (size_t i = 0; i < n; ++i) {
      constMethod[i] = pointerAt(i);
      ok[i] = ok[i] && read[i] && constMethod[i] != 0 && (constMethod[i] & 7) == 0;
    }
    readLevel(sizeWidth, [&](size_t i) { return constMethod[i] + constMethodCodeSize_.offset; });
    for (size_t i = 0; i < n; ++i) {
      int64_t codeSize = -1;
      ok[i] = ok[i] && read[i] &&
              integerAt(raw + i * sizeWidth, sizeWidth, 0, sizeWidth, constMethodCodeSize_.isSigned, codeSize) &&
              codeSize >= 0 && codeSize <= 0xffff;
      if (ok[i]) {
        p[i].codeStart = constMethod[i] + constMethodSize_;
        p[i].codeSize = static_cast<uint32_t>(codeSize);
      } else {
        p[i] = {};
      }
    }
  }
}

void JvmLayout::verifyMethodLayout(jvmtiEnv* jvmti, JNIEnv* jni) {
  if (!methodEnabled_) return;
  methodEnabled_ = false;
  jclass string = jni->FindClass("java/lang/String");
  if (string == nullptr) {
    jni->ExceptionClear();
    return;
  }
  jint count = 0;
  JvmtiArray<jmethodID> methods(jvmti);
  if (jvmti->GetClassMethods(string, &count, methods.out()) != JVMTI_ERROR_NONE) {
    jni->DeleteLocalRef(string);
    return;
  }
  int checked = 0;
  bool allMatch = true;
  for (jint i = 0; i < count && checked < 8; ++i) {
    jint modifiers = 0;
    if (jvmti->GetMethodModifiers(methods.get()[i], &modifiers) != JVMTI_ERROR_NONE) continue;
    if ((modifiers & (0x0100 | 0x0400)) != 0) continue;  // native, abstract: no bytecode
    jint length = 0;
    JvmtiArray<unsigned char> bytecodes(jvmti);
    if (jvmti->GetBytecodes(methods.get()[i], &length, bytecodes.out()) != JVMTI_ERROR_NONE) continue;
    MethodPointers p;
    methodEnabled_ = true;  // let methodPointers() run for the check
    bool read = methodPointers(methods.get()[i], p);
    methodEnabled_ = false;
    if (!read || p.codeSize != static_cast<uint32_t>(length)) allMatch = false;
    ++checked;
  }
  jni->DeleteLocalRef(string);
  methodEnabled_ = allMatch && checked >= 3;
}

bool JvmLayout::osTid(uintptr_t javaThread, int32_t& tid) const {
  if (!threadEnabled_ || javaThread == 0 || (javaThread & 7) != 0) return false;
  uint64_t osThread = 0;
  int64_t value = 0;
  if (!safeRead(javaThread + javaThreadOsThread_, osThread) || osThread == 0 || (osThread & 7) != 0) return false;
  if (!osThreadId_.read(osThread, value) || value <= 0) return false;
  tid = static_cast<int32_t>(value);
  return true;
}

void JvmLayout::verifyThreadLayout(uintptr_t currentJavaThread, int32_t currentTid) {
  int32_t tid = 0;
  threadEnabled_ = threadEnabled_ && osTid(currentJavaThread, tid) && tid == currentTid;
}

}  // namespace jfrbpf::agent
