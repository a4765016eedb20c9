// libFuzzer target: hostile class files through the whole instrumentation path. Nothing may crash, and
// whatever the rewriter produces must be a class file it can read (and rewrite) again.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "jvmsupport/classfile/rewriter.h"

using jfrbpf::classfile::ClassInfo;
using jfrbpf::classfile::MethodInfo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  jfrbpf::classfile::readClassInfo(bytes);
  // Odd sizes use indices beyond sipush's range, so both index encodings are exercised.
  const int32_t base = size % 2 == 1 ? 40000 : 3;
  auto select = [base](const ClassInfo&, const MethodInfo& method) -> std::optional<int32_t> {
    return base + static_cast<int32_t>(method.name.size());
  };
  const jfrbpf::classfile::HookConfig hooks{"jfrbpf/agent/Hooks"};
  jfrbpf::classfile::RewriteResult result = jfrbpf::classfile::rewriteClass(bytes, hooks, select);
  if (result.modified()) {
    if (!jfrbpf::classfile::readClassInfo(result.bytes).info) abort();
    jfrbpf::classfile::rewriteClass(result.bytes, hooks, select);
  }
  return 0;
}
