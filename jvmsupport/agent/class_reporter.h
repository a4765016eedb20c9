#pragma once
// Class and Method records: everything the loader needs to name a frame (class, method, signature,
// modifiers, line table) plus the Method* and bytecode address that interpreter frames carry.
#include <jvmti.h>

#include <cstdint>

namespace jfrbpf::agent {

class Agent;

// A Class record and one Method record per method of `klass` (creating their jmethodIDs). False if the
// class is not prepared yet (its ClassPrepare event reports it) or has no methods of its own (arrays,
// primitives). `methodsSent` receives the number of Method records.
bool reportClass(Agent& agent, jclass klass, uint32_t flags, uint32_t& methodsSent);

// The class id of an allocated object's class (any thread): a class not reported yet (an array class) is
// reported first, with no methods. 0 if JVMTI cannot name it.
uint64_t allocatedClassId(Agent& agent, jclass klass);

// A ClassUnload record: the mirror tagged with `classId` was freed.
void reportClassUnload(Agent& agent, uint64_t classId);

// Every loaded class, as reportClass with kReplayed.
void replayClasses(Agent& agent, JNIEnv* jni, uint32_t& classesSent, uint32_t& methodsSent);

}  // namespace jfrbpf::agent
