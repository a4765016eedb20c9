// Fuzzes what a hostile publisher controls of its OpenTelemetry process context: the protobuf payload. Any
// bytes decode to a bounded context or to one jfrbpf::Error, never to a crash, an endless loop or an
// unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "base/error.h"
#include "userspace/otel/process_context.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const jfrbpf::otel::ProcessContext context = jfrbpf::otel::decodeProcessContext({data, size});
    if (context.threadKeys.size() > jfrbpf::otel::kMaxThreadContextKeys) std::abort();
    for (const auto& attribute : context.resource) {
      if (attribute.value.size() > 4 * 1024 + 16) std::abort();  // kMaxValueText, each character up to 4 bytes
    }
  } catch (const jfrbpf::Error&) {
  }
  return 0;
}
