// The library's only exported symbols: the JVMTI agent entry points.
#include <jvmti.h>

#include "jvmsupport/agent/agent.h"

extern "C" {

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  jfrbpf::agent::Agent* agent = jfrbpf::agent::Agent::getOrCreate();
  return agent != nullptr ? agent->onLoad(vm, options) : JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
  jfrbpf::agent::Agent* agent = jfrbpf::agent::Agent::getOrCreate();
  return agent != nullptr ? agent->onAttach(vm, options) : jfrbpf::protocol::kAgentJvmtiUnavailable;
}

// Nothing to undo: the agent thread is a daemon and all memory goes with the process.
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {}

}  // extern "C"
