#pragma once
// Where a virtual thread's frozen frames are, for the BPF walker (protocol::ContinuationLayout): the Java
// fields from VirtualThread to its continuation's stack chunks, and where a chunk's frames begin. VMStructs
// lists none of them. A HotSpot instance jfieldID is the field's offset shifted over two tag bits; that
// reading is checked against JNI's own (a long and a reference field of the agent's own Thread, which also
// tells whether references are narrow oops), and the StackChunk class's Klass is found through one of its
// methods and checked against its mirror before its instance size is taken. Where a thread's name is (its
// String's characters) is found and checked the same way, on the agent's own thread and name.
#include <jvmti.h>

#include <optional>

#include "jvmsupport/agent/jvm_layout.h"
#include "jvmsupport/agent/vm_structs.h"
#include "jvmsupport/protocol/vm_records.h"

namespace jfrbpf::agent {

// nullopt before JDK 21, without VMStructs or safe reads, or when any check fails. Live phase only.
std::optional<protocol::ContinuationLayout> findContinuationLayout(jvmtiEnv* jvmti, JNIEnv* jni, const VmStructs& vm,
                                                                  const JvmLayout& layout);

}  // namespace jfrbpf::agent
