#pragma once
// Who a java.lang.Thread is: its Java thread id, whether it is virtual, and its JavaThread* (the `eetop`
// field), read through JNI field ids cached once in the live phase — no Java code runs, so a callback on
// any thread can use it.
#include <jvmti.h>

#include <cstdint>

namespace jfrbpf::agent {

class ThreadIdentity {
 public:
  // Once, in the live phase; false if java.lang.Thread lacks the fields (then ids read as 0).
  bool init(JNIEnv* jni);

  int64_t javaThreadId(JNIEnv* jni, jthread thread) const;
  // The JavaThread* of a started, not yet terminated thread; 0 otherwise.
  uintptr_t javaThreadPointer(JNIEnv* jni, jthread thread) const;
  bool isVirtual(JNIEnv* jni, jthread thread) const;

 private:
  jclass threadClass_ = nullptr;
  jclass virtualThreadClass_ = nullptr;  // JDK 21+
  jfieldID tidField_ = nullptr;
  jfieldID eetopField_ = nullptr;
};

}  // namespace jfrbpf::agent
