#include "jvmsupport/agent/thread_identity.h"

namespace jfrbpf::agent {

namespace {
jclass globalClass(JNIEnv* jni, const char* name) {
  jclass local = jni->FindClass(name);
  if (local == nullptr) {
    jni->ExceptionClear();
    return nullptr;
  }
  jclass global = static_cast<jclass>(jni->NewGlobalRef(local));
  jni->DeleteLocalRef(local);
  return global;
}

jfieldID longField(JNIEnv* jni, jclass klass, const char* name) {
  if (klass == nullptr) return nullptr;
  jfieldID id = jni->GetFieldID(klass, name, "J");
  if (id == nullptr) jni->ExceptionClear();
  return id;
}
}  // namespace

bool ThreadIdentity::init(JNIEnv* jni) {
  if (threadClass_ != nullptr) return true;
  threadClass_ = globalClass(jni, "java/lang/Thread");
  virtualThreadClass_ = globalClass(jni, "java/lang/VirtualThread");
  tidField_ = longField(jni, threadClass_, "tid");
  eetopField_ = longField(jni, threadClass_, "eetop");
  return tidField_ != nullptr && eetopField_ != nullptr;
}

int64_t ThreadIdentity::javaThreadId(JNIEnv* jni, jthread thread) const {
  if (tidField_ == nullptr || thread == nullptr) return 0;
  return jni->GetLongField(thread, tidField_);
}

uintptr_t ThreadIdentity::javaThreadPointer(JNIEnv* jni, jthread thread) const {
  if (eetopField_ == nullptr || thread == nullptr) return 0;
  return static_cast<uintptr_t>(jni->GetLongField(thread, eetopField_));
}

bool ThreadIdentity::isVirtual(JNIEnv* jni, jthread thread) const {
  return virtualThreadClass_ != nullptr && thread != nullptr && jni->IsInstanceOf(thread, virtualThreadClass_);
}

}  // namespace jfrbpf::agent
