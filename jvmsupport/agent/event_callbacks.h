#pragma once
// The JVMTI event callbacks: thin adapters from events to the reporters, guarded so that nothing escapes
// into the JVM and nothing is reported outside a session.
#include <jvmti.h>

namespace jfrbpf::agent {

void fillEventCallbacks(jvmtiEventCallbacks& callbacks);

}  // namespace jfrbpf::agent
