#include "jvmsupport/agent/event_callbacks.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/class_reporter.h"
#include "jvmsupport/agent/code_reporter.h"
#include "jvmsupport/agent/thread_reporter.h"

namespace jfrbpf::agent {

namespace {

int32_t currentTid() { return static_cast<int32_t>(syscall(SYS_gettid)); }

// The agent exists before any callback is registered; the check keeps a broken start harmless.
Agent* activeAgent() {
  Agent* agent = Agent::instance();
  return agent != nullptr && agent->sessionActive() ? agent : nullptr;
}

void JNICALL onVmInit(jvmtiEnv*, JNIEnv* jni, jthread) {
  if (Agent* agent = Agent::instance()) agent->onVmInit(jni);
}

void JNICALL onVmDeath(jvmtiEnv*, JNIEnv*) {
  if (Agent* agent = Agent::instance()) agent->onVmDeath();
}

void JNICALL onClassPrepare(jvmtiEnv*, JNIEnv* jni, jthread, jclass klass) {
  if (Agent* agent = activeAgent()) {
    uint32_t methods = 0;
    reportClass(*agent, klass, 0, methods);
    agent->methodTimer().onClassPrepare(*agent, jni, klass);
  }
}

void JNICALL onClassFileLoadHook(jvmtiEnv*, JNIEnv*, jclass beingRedefined, jobject, const char* name, jobject,
                                 jint length, const unsigned char* data, jint* newLength, unsigned char** newData) {
  if (Agent* agent = activeAgent()) {
    agent->methodTimer().onClassFileLoad(*agent, beingRedefined, name, length, data, newLength, newData);
  }
}

void JNICALL onThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  if (Agent* agent = activeAgent()) reportThreadStart(*agent, jni, thread, currentTid(), 0);
}

void JNICALL onThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  if (Agent* agent = activeAgent()) reportThreadEnd(*agent, jni, thread, currentTid());
}

void JNICALL onCompiledMethodLoad(jvmtiEnv*, jmethodID method, jint codeSize, const void* codeAddress, jint,
                                  const jvmtiAddrLocationMap*, const void* compileInfo) {
  if (Agent* agent = activeAgent()) reportCompiledMethodLoad(*agent, method, codeSize, codeAddress, compileInfo);
}

void JNICALL onCompiledMethodUnload(jvmtiEnv*, jmethodID method, const void* codeAddress) {
  if (Agent* agent = activeAgent()) reportCompiledMethodUnload(*agent, method, codeAddress);
}

// Only class mirrors are tagged (class_reporter.cpp): a freed one is an unloaded class. No JNI or JVMTI
// here, as ObjectFree requires; emit only queues bytes.
void JNICALL onObjectFree(jvmtiEnv*, jlong tag) {
  if (Agent* agent = activeAgent()) reportClassUnload(*agent, static_cast<uint64_t>(tag));
}

void JNICALL onDynamicCodeGenerated(jvmtiEnv*, const char* name, const void* address, jint length) {
  if (Agent* agent = activeAgent()) reportDynamicCode(*agent, name, address, length);
}

void JNICALL onSampledObjectAlloc(jvmtiEnv*, JNIEnv* jni, jthread, jobject, jclass klass, jlong size) {
  if (Agent* agent = activeAgent()) agent->allocationSampler().onSampledObject(*agent, jni, klass, size);
}

void JNICALL onMonitorContendedEnter(jvmtiEnv*, JNIEnv*, jthread, jobject) {
  if (Agent* agent = activeAgent()) agent->lockProfiler().onContendedEnter(*agent);
}

void JNICALL onMonitorContendedEntered(jvmtiEnv*, JNIEnv* jni, jthread, jobject object) {
  if (Agent* agent = activeAgent()) agent->lockProfiler().onContendedEntered(*agent, jni, object);
}

void JNICALL onMonitorWait(jvmtiEnv*, JNIEnv*, jthread, jobject, jlong timeoutMs) {
  if (Agent* agent = activeAgent()) agent->lockProfiler().onWait(*agent, timeoutMs);
}

void JNICALL onMonitorWaited(jvmtiEnv*, JNIEnv* jni, jthread, jobject object, jboolean timedOut) {
  if (Agent* agent = activeAgent()) agent->lockProfiler().onWaited(*agent, jni, object, timedOut);
}

}  // namespace

void fillEventCallbacks(jvmtiEventCallbacks& callbacks) {
  std::memset(&callbacks, 0, sizeof callbacks);
  callbacks.VMInit = onVmInit;
  callbacks.VMDeath = onVmDeath;
  callbacks.ClassPrepare = onClassPrepare;
  callbacks.ClassFileLoadHook = onClassFileLoadHook;
  callbacks.ThreadStart = onThreadStart;
  callbacks.ThreadEnd = onThreadEnd;
  callbacks.CompiledMethodLoad = onCompiledMethodLoad;
  callbacks.CompiledMethodUnload = onCompiledMethodUnload;
  callbacks.DynamicCodeGenerated = onDynamicCodeGenerated;
  callbacks.ObjectFree = onObjectFree;
  callbacks.SampledObjectAlloc = onSampledObjectAlloc;
  callbacks.MonitorContendedEnter = onMonitorContendedEnter;
  callbacks.MonitorContendedEntered = onMonitorContendedEntered;
  callbacks.MonitorWait = onMonitorWait;
  callbacks.MonitorWaited = onMonitorWaited;
}

}  // namespace jfrbpf::agent
