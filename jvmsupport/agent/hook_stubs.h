#pragma once
// The native methods instrumented bytecode calls on every entry and exit of a timed or traced method:
// static natives of the hook class, bound with RegisterNatives. Each is a 5-byte NOP and a return, so an
// untraced call costs only the JNI transition; the loader attaches a uprobe to the NOP, which Linux 6.18+
// (x86_64) turns into a call to a trampoline instead of an int3 trap. The hook index arrives in the
// third integer argument register (after JNIEnv* and jclass), where the BPF programs read it.
#include <jni.h>

#include <cstdint>

extern "C" {
void jfrbpf_method_enter(JNIEnv* env, jclass hooks, jint hookIndex);
void jfrbpf_method_exit(JNIEnv* env, jclass hooks, jint hookIndex);
}

namespace jfrbpf::agent {

// The uprobe sites: the first instruction of each stub.
inline uint64_t enterHookSite() { return reinterpret_cast<uintptr_t>(&jfrbpf_method_enter); }
inline uint64_t exitHookSite() { return reinterpret_cast<uintptr_t>(&jfrbpf_method_exit); }

}  // namespace jfrbpf::agent
