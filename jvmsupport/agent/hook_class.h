#pragma once
// The Java side of the method hooks: a tiny class with two static native methods, defined in the boot
// class loader (so classes of every loader that delegates to it, JDK classes included, can call it) and
// bound to the native stubs. Defined once per JVM: a later session finds it again and rebinds.
#include <jvmti.h>

#include <cstddef>
#include <cstdint>

namespace jfrbpf::agent {

// Internal name; never instrumented itself, and named after the agent so filters do not meet it by accident.
inline constexpr char kHookClassName[] = "jfrbpf/agent/MethodHooks";
inline constexpr char kHookEnterMethod[] = "enter";
inline constexpr char kHookExitMethod[] = "exit";

// The class file: `public final class jfrbpf.agent.MethodHooks { public static native void enter(int);
// public static native void exit(int); }`, version 52 so that every JDK from 8 on loads it. Returns its size,
// or 0 if `capacity` is too small.
size_t buildHookClassFile(uint8_t* out, size_t capacity);

class HookClass {
 public:
  // Agent thread: finds or defines the class and binds its natives to the stubs. False with a one-line
  // reason in `error`.
  bool install(JNIEnv* jni, const char*& error);
  // JDK 9+: lets every module that exists now, and `module` later, read the hook class's module (the boot
  // loader's unnamed module); instrumented classes in named modules could not link their hook calls
  // otherwise. Does nothing on JDK 8.
  void grantReadsToAllModules(jvmtiEnv* jvmti, JNIEnv* jni);
  void grantReads(jvmtiEnv* jvmti, JNIEnv* jni, jclass instrumented);

 private:
  jclass klass_ = nullptr;    // global reference
  jobject module_ = nullptr;  // global reference; null on JDK 8
};

}  // namespace jfrbpf::agent
