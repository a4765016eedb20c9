#include "jvmsupport/agent/hook_class.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "jvmsupport/agent/hook_stubs.h"
#include "jvmsupport/agent/jvmti_memory.h"

namespace jfrbpf::agent {

namespace {

constexpr char kUnsafeClass[] = "jdk/internal/misc/Unsafe";
constexpr char kUnsafeType[] = "Ljdk/internal/misc/Unsafe;";

// Static fields of MethodTimer.java, set through JNI (which ignores `private`).
bool setStatic(JNIEnv* jni, jclass klass, const char* name, jlong value) {
  jfieldID field = jni->GetStaticFieldID(klass, name, "J");
  if (field == nullptr) return jni->ExceptionClear(), false;
  jni->SetStaticLongField(klass, field, value);
  return true;
}

bool setStatic(JNIEnv* jni, jclass klass, const char* name, jint value) {
  jfieldID field = jni->GetStaticFieldID(klass, name, "I");
  if (field == nullptr) return jni->ExceptionClear(), false;
  jni->SetStaticIntField(klass, field, value);
  return true;
}

}  // namespace

bool HookClass::install(jvmtiEnv* jvmti, JNIEnv* jni, WaitedNative waitedNative, const char*& error) {
  if (klass_ != nullptr) return true;
  if (jni->GetVersion() < JNI_VERSION_9) {
    error = "method timing needs JDK 9 or later (its hooks use jdk.internal.misc.Unsafe)";
    return false;
  }
  jclass local = jni->FindClass(kHookClassName);  // an earlier session (or jfrbpf agent) defined it
  if (local == nullptr) {
    jni->ExceptionClear();
    local = jni->DefineClass(kHookClassName, nullptr, reinterpret_cast<const jbyte*>(kMethodTimerClass),
                             static_cast<jsize>(kMethodTimerClass_size));
    if (local == nullptr) {
      jni->ExceptionClear();
      error = "the JVM refused to define the hook class";
      return false;
    }
  }
  const bool bound = bind(jvmti, jni, local, waitedNative, error);
  jni->DeleteLocalRef(local);
  return bound;
}

bool HookClass::bind(jvmtiEnv* jvmti, JNIEnv* jni, jclass local, WaitedNative waitedNative, const char*& error) {
  // The class counts with jdk.internal.misc.Unsafe, which java.base exports to no one: export it to the
  // boot loader's unnamed module, the hook class's, before any instrumented method can link a hook call.
  jobject module = jni->GetModule(local);
  jclass object = jni->FindClass("java/lang/Object");
  jobject javaBase = object != nullptr ? jni->GetModule(object) : nullptr;
  jclass unsafeClass = jni->FindClass(kUnsafeClass);
  jfieldID theUnsafe = unsafeClass != nullptr ? jni->GetStaticFieldID(unsafeClass, "theUnsafe", kUnsafeType) : nullptr;
  jobject unsafe = theUnsafe != nullptr ? jni->GetStaticObjectField(unsafeClass, theUnsafe) : nullptr;
  jfieldID hookUnsafe = jni->GetStaticFieldID(local, "unsafe", kUnsafeType);
  jni->ExceptionClear();
  bool ok = module != nullptr && javaBase != nullptr && unsafe != nullptr && hookUnsafe != nullptr &&
            jvmti->AddModuleExports(javaBase, "jdk.internal.misc", module) == JVMTI_ERROR_NONE;
  if (!ok) {
    error = "the hook class could not be given jdk.internal.misc.Unsafe";
  } else {
    jni->SetStaticObjectField(local, hookUnsafe, unsafe);
    // JNINativeMethod predates const; RegisterNatives only reads the strings.
    const JNINativeMethod natives[] = {
        {const_cast<char*>("traced"), const_cast<char*>("(IJJ)V"), reinterpret_cast<void*>(&jfrbpf_java_method_traced)},
        {const_cast<char*>("waited"), const_cast<char*>("(JLjava/lang/String;JJJ)V"), reinterpret_cast<void*>(waitedNative)},
    };
    if (jni->RegisterNatives(local, natives, 2) != JNI_OK) {
      jni->ExceptionClear();
      error = "the hook class's natives could not be bound";
      ok = false;
    }
  }
  if (ok) {
    klass_ = static_cast<jclass>(jni->NewGlobalRef(local));
    module_ = jni->NewGlobalRef(module);
    if (klass_ == nullptr || module_ == nullptr) {
      error = "out of JNI global references";
      ok = false;
    }
  }
  for (jobject ref : {module, static_cast<jobject>(object), javaBase, static_cast<jobject>(unsafeClass), unsafe}) {
    if (ref != nullptr) jni->DeleteLocalRef(ref);
  }
  return ok;
}

int32_t HookClass::arm(JNIEnv* jni, protocol::TimingTableHeader* table, uint32_t session, uint64_t traceThresholdNs,
                       int64_t virtualWaitIntervalNs) {
  static std::atomic<int32_t> recordings{0};  // per JVM: the agent library is loaded once
  const int32_t recording = recordings.fetch_add(1, std::memory_order_relaxed) + 1;
  const auto address = [](const void* p) { return static_cast<jlong>(reinterpret_cast<uintptr_t>(p)); };
  const jlong threshold = static_cast<jlong>(
      std::min<uint64_t>(traceThresholdNs, static_cast<uint64_t>(std::numeric_limits<jlong>::max())));
  setTraceCounterTable(table, session);
  setStatic(jni, klass_, "rows", address(protocol::timingRows(table)));
  setStatic(jni, klass_, "stripeBytes", static_cast<jlong>(table->slotCount * sizeof(protocol::TimingRow)));
  setStatic(jni, klass_, "badSlotCounter", address(&table->counters.badSlot));
  setStatic(jni, klass_, "stripeMask", static_cast<jint>(table->stripes - 1));
  setStatic(jni, klass_, "slotBase", static_cast<jint>(table->slotBase));
  setStatic(jni, klass_, "slotCount", static_cast<jint>(table->slotCount));
  setStatic(jni, klass_, "traceThresholdNs", threshold);
  setStatic(jni, klass_, "virtualWaitIntervalNs", static_cast<jlong>(virtualWaitIntervalNs));
  setStatic(jni, klass_, "recording", static_cast<jint>(recording));  // last: the fields above are in place
  return recording;
}

void HookClass::disarm(JNIEnv* jni) {
  if (klass_ != nullptr) setStatic(jni, klass_, "recording", jint{0});
}

void HookClass::grantReadsToAllModules(jvmtiEnv* jvmti, JNIEnv* jni) {
  if (module_ == nullptr) return;
  jint count = 0;
  JvmtiArray<jobject> modules(jvmti);
  if (jvmti->GetAllModules(&count, modules.out()) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < count; ++i) {
    jvmti->AddModuleReads(modules.get()[i], module_);
    jni->DeleteLocalRef(modules.get()[i]);
  }
}

void HookClass::grantReads(jvmtiEnv* jvmti, JNIEnv* jni, jclass instrumented) {
  if (module_ == nullptr) return;
  jobject module = jni->GetModule(instrumented);
  if (module == nullptr) return;
  jvmti->AddModuleReads(module, module_);
  jni->DeleteLocalRef(module);
}

}  // namespace jfrbpf::agent
