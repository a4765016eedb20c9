#include "jvmsupport/agent/continuation_layout.h"

#include <algorithm>
#include <cstring>

#include "jvmsupport/agent/jvmti_memory.h"
#include "jvmsupport/agent/safe_memory.h"

namespace jfrbpf::agent {
namespace {

constexpr uintptr_t kInstanceFieldTag = 2;  // jfieldIDWorkaround: instance bit set, checked bit clear
constexpr uint32_t kMaxFieldOffset = 1u << 16;

// A local JNI reference is the address of the slot that holds the object's address.
bool objectAddress(jobject ref, uintptr_t& address) {
  return ref != nullptr && safeRead(reinterpret_cast<uintptr_t>(ref), address) && address != 0 && (address & 7) == 0;
}

jfieldID fieldId(JNIEnv* jni, jclass klass, const char* name, const char* signature) {
  jfieldID id = jni->GetFieldID(klass, name, signature);
  if (id == nullptr) jni->ExceptionClear();
  return id;
}

bool decodedOffset(jfieldID id, uint32_t& offset) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(id);
  if (id == nullptr || (bits & 3) != kInstanceFieldTag || (bits >> 2) == 0 || (bits >> 2) >= kMaxFieldOffset) return false;
  offset = static_cast<uint32_t>(bits >> 2);
  return true;
}

bool instanceFieldOffset(JNIEnv* jni, jclass klass, const char* name, const char* signature, uint32_t& offset) {
  return decodedOffset(fieldId(jni, klass, name, signature), offset);
}

class LocalClass {
 public:
  LocalClass(JNIEnv* jni, const char* name) : jni_(jni), class_(jni->FindClass(name)) {
    if (class_ == nullptr) jni_->ExceptionClear();
  }
  ~LocalClass() {
    if (class_ != nullptr) jni_->DeleteLocalRef(class_);
  }
  LocalClass(const LocalClass&) = delete;
  LocalClass& operator=(const LocalClass&) = delete;
  jclass get() const { return class_; }

 private:
  JNIEnv* jni_;
  jclass class_;
};

// How reference fields are stored: narrow oops (base + (narrow << shift)) or full addresses.
struct References {
  bool compressed = false;
  uint64_t base = 0;
  int32_t shift = 0;

  bool read(uintptr_t object, uint32_t offset, uintptr_t& out) const {
    if (!compressed) return safeRead(object + offset, out);
    uint32_t narrow = 0;
    if (!safeRead(object + offset, narrow)) return false;
    out = narrow == 0 ? 0 : base + (static_cast<uint64_t>(narrow) << shift);
    return true;
  }
};

// Reads the long field `tid` and the reference field `holder` of the agent's own Thread raw, at their decoded
// offsets, and compares them with what JNI returns; tells how references are stored.
bool checkFieldReading(jvmtiEnv* jvmti, JNIEnv* jni, const VmStructs& vm, References& references, uint32_t& tidOffset) {
  LocalClass threadClass(jni, "java/lang/Thread");
  if (threadClass.get() == nullptr) return false;
  jfieldID tidField = fieldId(jni, threadClass.get(), "tid", "J");
  jfieldID holderField = fieldId(jni, threadClass.get(), "holder", "Ljava/lang/Thread$FieldHolder;");
  uint32_t holderOffset = 0;
  if (!decodedOffset(tidField, tidOffset) || !decodedOffset(holderField, holderOffset)) return false;
  jthread self = nullptr;
  if (jvmti->GetCurrentThread(&self) != JVMTI_ERROR_NONE || self == nullptr) return false;
  jobject holder = jni->GetObjectField(self, holderField);
  uintptr_t thread = 0, holderAddress = 0;
  int64_t rawTid = 0;
  bool ok = objectAddress(self, thread) && objectAddress(holder, holderAddress) && safeRead(thread + tidOffset, rawTid) &&
            rawTid == jni->GetLongField(self, tidField);
  if (ok) {
    uint64_t baseAt = 0, shiftAt = 0;
    References narrow{true, 0, 0};
    uintptr_t read = 0;
    bool narrowMatches = vm.staticAddress("CompressedOops", "_base", baseAt) &&
                         vm.staticAddress("CompressedOops", "_shift", shiftAt) && safeRead(baseAt, narrow.base) &&
                         safeRead(shiftAt, narrow.shift) && narrow.shift >= 0 && narrow.shift < 8 &&
                         narrow.read(thread, holderOffset, read) && read == holderAddress;
    references = narrowMatches ? narrow : References{};
    ok = narrowMatches || (references.read(thread, holderOffset, read) && read == holderAddress);
  }
  if (holder != nullptr) jni->DeleteLocalRef(holder);
  jni->DeleteLocalRef(self);
  return ok;
}

// Where a byte[]'s length and first element are: the header differs with compressed class pointers and
// compact object headers, and the first element is 8-byte aligned before JDK 22. Found in `array` (of
// `length` elements, `expected` its first ones) and read back.
bool findByteArrayLayout(uintptr_t array, int32_t length, const jbyte* expected, size_t count,
                         protocol::ContinuationLayout& r) {
  for (uint32_t lengthAt : {8u, 12u, 16u}) {
    int32_t rawLength = -1;
    if (!safeRead(array + lengthAt, rawLength) || rawLength != length) continue;
    for (uint32_t baseAt : {lengthAt + 4, (lengthAt + 4 + 7) & ~7u}) {
      jbyte raw[16];
      if (safeRead(array + baseAt, raw, count) && std::memcmp(raw, expected, count) == 0) {
        r.byteArrayLength = lengthAt;
        r.byteArrayBase = baseAt;
        return true;
      }
    }
  }
  return false;
}

// Where the loader finds a thread's name: Thread.name, String.value and coder, a byte[]'s length and
// elements, each read raw from the agent's own Thread ("jfrbpf agent") and compared with JNI's reading.
bool checkNameReading(jvmtiEnv* jvmti, JNIEnv* jni, const References& references, protocol::ContinuationLayout& r) {
  LocalClass threadClass(jni, "java/lang/Thread");
  LocalClass stringClass(jni, "java/lang/String");
  if (threadClass.get() == nullptr || stringClass.get() == nullptr) return false;
  jfieldID nameField = fieldId(jni, threadClass.get(), "name", "Ljava/lang/String;");
  jfieldID valueField = fieldId(jni, stringClass.get(), "value", "[B");
  jfieldID coderField = fieldId(jni, stringClass.get(), "coder", "B");
  uint32_t nameAt = 0, valueAt = 0, coderAt = 0;
  if (!decodedOffset(nameField, nameAt) || !decodedOffset(valueField, valueAt) || !decodedOffset(coderField, coderAt)) {
    return false;
  }
  jthread self = nullptr;
  if (jvmti->GetCurrentThread(&self) != JVMTI_ERROR_NONE || self == nullptr) return false;
  jobject name = jni->GetObjectField(self, nameField);
  jobject value = name != nullptr ? jni->GetObjectField(name, valueField) : nullptr;
  uintptr_t thread = 0, nameAddress = 0, valueAddress = 0, read = 0;
  bool ok = objectAddress(self, thread) && objectAddress(name, nameAddress) && objectAddress(value, valueAddress) &&
            references.read(thread, nameAt, read) && read == nameAddress && references.read(nameAddress, valueAt, read) &&
            read == valueAddress;
  int8_t rawCoder = -1;
  ok = ok && safeRead(nameAddress + coderAt, rawCoder) && rawCoder == jni->GetByteField(name, coderField);
  if (ok) {
    const jsize length = jni->GetArrayLength(static_cast<jbyteArray>(value));
    jbyte first[16];
    const auto count = static_cast<size_t>(std::min<jsize>(length, sizeof first));
    jni->GetByteArrayRegion(static_cast<jbyteArray>(value), 0, static_cast<jsize>(count), first);
    ok = count >= 8 && findByteArrayLayout(valueAddress, length, first, count, r);
  }
  if (value != nullptr) jni->DeleteLocalRef(value);
  if (name != nullptr) jni->DeleteLocalRef(name);
  jni->DeleteLocalRef(self);
  if (!ok) return false;
  r.threadName = nameAt;
  r.stringValue = valueAt;
  r.stringCoder = coderAt;
  return true;
}

// The instance size of `klass` from its Klass's layout helper, the Klass found through one of its methods
// (Method -> ConstMethod -> ConstantPool -> pool holder) and checked by its mirror.
bool instanceSize(jvmtiEnv* jvmti, jclass klass, const VmStructs& vm, const JvmLayout& layout, uint32_t& size) {
  uint64_t constMethodAt = 0, constantsAt = 0, holderAt = 0, helperAt = 0, mirrorAt = 0;
  if (!vm.fieldOffset("Method", "_constMethod", constMethodAt) || !vm.fieldOffset("ConstMethod", "_constants", constantsAt) ||
      !vm.fieldOffset("ConstantPool", "_pool_holder", holderAt) || !vm.fieldOffset("Klass", "_layout_helper", helperAt) ||
      !vm.fieldOffset("Klass", "_java_mirror", mirrorAt)) {
    return false;
  }
  jint count = 0;
  JvmtiArray<jmethodID> methods(jvmti);
  if (jvmti->GetClassMethods(klass, &count, methods.out()) != JVMTI_ERROR_NONE || count == 0) return false;
  MethodPointers method;
  if (!layout.methodPointers(methods.get()[0], method)) return false;
  uint64_t constMethod = 0, constants = 0, holder = 0, mirrorSlot = 0, mirror = 0;
  uintptr_t expectedMirror = 0;
  int32_t helper = 0;
  if (!safeRead(method.method + constMethodAt, constMethod) || !safeRead(constMethod + constantsAt, constants) ||
      !safeRead(constants + holderAt, holder) || holder == 0 || !safeRead(holder + mirrorAt, mirrorSlot) ||
      mirrorSlot == 0 || !safeRead(mirrorSlot, mirror) || !objectAddress(klass, expectedMirror) ||
      mirror != expectedMirror || !safeRead(holder + helperAt, helper) || helper <= 0) {
    return false;
  }
  size = static_cast<uint32_t>(helper) & ~7u;  // the low bits flag the slow allocation path
  return size > 0 && size < kMaxFieldOffset;
}

}  // namespace

std::optional<protocol::ContinuationLayout> findContinuationLayout(jvmtiEnv* jvmti, JNIEnv* jni, const VmStructs& vm,
                                                                  const JvmLayout& layout) {
  if (!vm.available() || !safeMemoryAvailable() || !layout.methodPointersEnabled()) return std::nullopt;
  LocalClass virtualThread(jni, "java/lang/VirtualThread");
  LocalClass continuation(jni, "jdk/internal/vm/Continuation");
  LocalClass chunk(jni, "jdk/internal/vm/StackChunk");
  if (virtualThread.get() == nullptr || continuation.get() == nullptr || chunk.get() == nullptr) return std::nullopt;
  protocol::ContinuationLayout r;
  References references;
  uint32_t tidOffset = 0;
  if (!instanceFieldOffset(jni, virtualThread.get(), "cont", "Ljdk/internal/vm/Continuation;", r.virtualThreadCont) ||
      !instanceFieldOffset(jni, continuation.get(), "tail", "Ljdk/internal/vm/StackChunk;", r.continuationTail) ||
      !instanceFieldOffset(jni, chunk.get(), "parent", "Ljdk/internal/vm/StackChunk;", r.chunkParent) ||
      !instanceFieldOffset(jni, chunk.get(), "size", "I", r.chunkSize) ||
      !instanceFieldOffset(jni, chunk.get(), "sp", "I", r.chunkSp) ||
      !instanceFieldOffset(jni, chunk.get(), "bottom", "I", r.chunkBottom) ||
      !checkFieldReading(jvmti, jni, vm, references, tidOffset) ||
      !instanceSize(jvmti, chunk.get(), vm, layout, r.chunkStack)) {
    return std::nullopt;
  }
  r.compressedOops = references.compressed ? 1 : 0;
  r.narrowOopBase = references.base;
  r.narrowOopShift = static_cast<uint8_t>(references.shift);
  // Names are extra: the frozen frames do not need them.
  if (checkNameReading(jvmti, jni, references, r)) {
    r.threadTid = tidOffset;
  } else {
    r.threadName = r.stringValue = r.stringCoder = r.byteArrayLength = r.byteArrayBase = 0;
  }
  return r;
}

}  // namespace jfrbpf::agent
