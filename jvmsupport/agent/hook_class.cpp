#include "jvmsupport/agent/hook_class.h"

#include <cstring>
#include <initializer_list>

#include "jvmsupport/agent/hook_stubs.h"
#include "jvmsupport/agent/jvmti_memory.h"

namespace jfrbpf::agent {

namespace {

constexpr uint16_t kAccPublic = 0x0001;
constexpr uint16_t kAccStatic = 0x0008;
constexpr uint16_t kAccFinal = 0x0010;
constexpr uint16_t kAccSuper = 0x0020;
constexpr uint16_t kAccNative = 0x0100;
constexpr uint8_t kConstantUtf8 = 1;
constexpr uint8_t kConstantClass = 7;
constexpr char kHookDescriptorText[] = "(I)V";

class ClassFileWriter {
 public:
  ClassFileWriter(uint8_t* out, size_t capacity) : out_(out), capacity_(capacity) {}
  void u1(uint8_t v) {
    if (size_ < capacity_) out_[size_] = v;
    ++size_;
  }
  void u2(uint16_t v) {
    u1(static_cast<uint8_t>(v >> 8));
    u1(static_cast<uint8_t>(v));
  }
  void u4(uint32_t v) {
    u2(static_cast<uint16_t>(v >> 16));
    u2(static_cast<uint16_t>(v));
  }
  void utf8(const char* s) {
    size_t n = std::strlen(s);
    u1(kConstantUtf8);
    u2(static_cast<uint16_t>(n));
    for (size_t i = 0; i < n; ++i) u1(static_cast<uint8_t>(s[i]));
  }
  size_t size() const { return size_ <= capacity_ ? size_ : 0; }

 private:
  uint8_t* out_;
  size_t capacity_;
  size_t size_ = 0;
};

// Keep the constant pool indexes below in step with buildHookClassFile.
enum : uint16_t { kThisName = 1, kThisClass, kSuperName, kSuperClass, kEnterName, kHookDescriptor, kExitName, kPoolCount };

}  // namespace

size_t buildHookClassFile(uint8_t* out, size_t capacity) {
  ClassFileWriter w(out, capacity);
  w.u4(0xCAFEBABE);
  w.u2(0);   // minor
  w.u2(52);  // Java 8
  w.u2(kPoolCount);
  w.utf8(kHookClassName);
  w.u1(kConstantClass);
  w.u2(kThisName);
  w.utf8("java/lang/Object");
  w.u1(kConstantClass);
  w.u2(kSuperName);
  w.utf8(kHookEnterMethod);
  w.utf8(kHookDescriptorText);
  w.utf8(kHookExitMethod);
  w.u2(kAccPublic | kAccFinal | kAccSuper);
  w.u2(kThisClass);
  w.u2(kSuperClass);
  w.u2(0);  // interfaces
  w.u2(0);  // fields
  w.u2(2);  // methods
  for (uint16_t name : {kEnterName, kExitName}) {
    w.u2(kAccPublic | kAccStatic | kAccNative);
    w.u2(name);
    w.u2(kHookDescriptor);
    w.u2(0);  // attributes
  }
  w.u2(0);  // class attributes
  return w.size();
}

bool HookClass::install(JNIEnv* jni, const char*& error) {
  if (klass_ != nullptr) return true;
  jclass local = jni->FindClass(kHookClassName);  // an earlier session (or jfrbpf agent) defined it
  if (local == nullptr) {
    jni->ExceptionClear();
    uint8_t bytes[256];
    size_t size = buildHookClassFile(bytes, sizeof bytes);
    local = size == 0 ? nullptr
                      : jni->DefineClass(kHookClassName, nullptr, reinterpret_cast<const jbyte*>(bytes),
                                         static_cast<jsize>(size));
    if (local == nullptr) {
      jni->ExceptionClear();
      error = "the JVM refused to define the hook class";
      return false;
    }
  }
  // JNINativeMethod predates const; RegisterNatives only reads the strings.
  char* descriptor = const_cast<char*>(kHookDescriptorText);
  JNINativeMethod natives[] = {
      {const_cast<char*>(kHookEnterMethod), descriptor, reinterpret_cast<void*>(&jfrbpf_method_enter)},
      {const_cast<char*>(kHookExitMethod), descriptor, reinterpret_cast<void*>(&jfrbpf_method_exit)},
  };
  if (jni->RegisterNatives(local, natives, 2) != JNI_OK) {
    jni->ExceptionClear();
    jni->DeleteLocalRef(local);
    error = "the hook class's natives could not be bound";
    return false;
  }
  klass_ = static_cast<jclass>(jni->NewGlobalRef(local));
  if (jni->GetVersion() >= JNI_VERSION_9) {
    jobject module = jni->GetModule(local);
    if (module != nullptr) {
      module_ = jni->NewGlobalRef(module);
      jni->DeleteLocalRef(module);
    }
  }
  jni->DeleteLocalRef(local);
  if (klass_ == nullptr) {
    error = "out of JNI global references";
    return false;
  }
  return true;
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
