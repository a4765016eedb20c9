#pragma once
// Code records: compiled methods with their pc -> inline chain tables, their unloading, and the other
// generated code (interpreter, stubs, adapters), each with the CodeBlob facts a stack walker needs.
#include <jvmti.h>

namespace jfrbpf::agent {

class Agent;

void reportCompiledMethodLoad(Agent& agent, jmethodID method, jint codeSize, const void* codeAddress,
                              const void* compileInfo);
void reportCompiledMethodUnload(Agent& agent, jmethodID method, const void* codeAddress);
void reportDynamicCode(Agent& agent, const char* name, const void* address, jint length);

}  // namespace jfrbpf::agent
