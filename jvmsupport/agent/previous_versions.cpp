#include "jvmsupport/agent/previous_versions.h"

#include "jvmsupport/agent/jvmti_memory.h"

namespace jfrbpf::agent {

void PreviousVersions::remember(jvmtiEnv* jvmti, const JvmLayout& layout, jclass klass) {
  if (!layout.methodPointersEnabled()) return;
  jint count = 0;
  JvmtiArray<jmethodID> methods(jvmti);
  if (jvmti->GetClassMethods(klass, &count, methods.out()) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < count && count_ < kMaxVersions; ++i) {
    MethodPointers current;
    if (!layout.methodPointers(methods.get()[i], current) || current.method == 0) continue;
    std::vector<MethodPointers>& versions = versions_[reinterpret_cast<uintptr_t>(methods.get()[i])];
    bool known = false;
    for (const MethodPointers& version : versions) known = known || version.method == current.method;
    if (known) continue;
    versions.push_back(current);
    ++count_;
  }
}

}  // namespace jfrbpf::agent
