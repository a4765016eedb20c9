#pragma once
// The few HotSpot structures the agent reads itself: Method -> ConstMethod (bytecode address and length,
// so the loader can turn an interpreter frame's bcp into a bci) and JavaThread -> OSThread (OS tid of
// threads that existed before the agent). Offsets come from VMStructs; every read is a safe read, and
// each part is enabled only after a self-check against facts known independently.
#include <jvmti.h>

#include <cstdint>
#include <span>

#include "jvmsupport/agent/vm_structs.h"
#include "jvmsupport/hotspot/code_blob_fields.h"

namespace jfrbpf::agent {

// An integer field of a HotSpot structure: where it is and how wide.
struct IntField : hotspot::IntFieldAt {
  IntField() = default;
  IntField(const hotspot::IntFieldAt& field) : hotspot::IntFieldAt(field) {}  // NOLINT: a widening
  bool read(uintptr_t object, int64_t& out) const;
};

// Finds type::field (non-static) and derives its width from its declared type.
IntField findIntField(const VmStructs& vm, const char* typeName, const char* fieldName);

struct MethodPointers {
  uint64_t method = 0;     // Method*
  uint64_t codeStart = 0;  // first bytecode
  uint32_t codeSize = 0;
};

class JvmLayout {
 public:
  // `jdkMajor` gates jmethodID dereferencing, which JDK 26 (JDK-8268406) made invalid.
  void init(const VmStructs& vm, int jdkMajor);

  // Compares bytecode lengths read through the layout with GetBytecodes for methods of java.lang.String;
  // disables method pointers on any mismatch. Needs can_get_bytecodes and a live-phase JNIEnv.
  void verifyMethodLayout(jvmtiEnv* jvmti, JNIEnv* jni);
  bool methodPointersEnabled() const { return methodEnabled_; }
  bool methodPointers(jmethodID method, MethodPointers& out) const;
  // The same for many methods in three batched reads: `found[i]` says whether out[i] was read.
  void methodPointers(std::span<const jmethodID> methods, MethodPointers* out, bool* found) const;

  // JavaThread* -> OS tid (in the JVM's pid namespace), with the thread's eetop re-read afterwards by the
  // caller to make sure the JavaThread was alive throughout.
  bool osTid(uintptr_t javaThread, int32_t& tid) const;
  // Compares osTid() of the calling thread's JavaThread with gettid(); disables tid reads on mismatch.
  void verifyThreadLayout(uintptr_t currentJavaThread, int32_t currentTid);
  bool threadTidsEnabled() const { return threadEnabled_; }

 private:
  bool methodEnabled_ = false;
  uint64_t methodConstMethod_ = 0;
  uint64_t constMethodSize_ = 0;
  IntField constMethodCodeSize_;

  bool threadEnabled_ = false;
  uint64_t javaThreadOsThread_ = 0;
  IntField osThreadId_;
};

}  // namespace jfrbpf::agent
