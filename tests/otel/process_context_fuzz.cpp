// Fuzzes what a hostile publisher controls of its OpenTelemetry contexts: the process context's protobuf
// payload, and a thread's context record as the sampler copies it. Any bytes decode to a bounded context or to
// one jfrbpf::Error, never to a crash, an endless loop or an unbounded allocation; a record's attributes render
// without a control character.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "base/error.h"
#include "userspace/otel/process_context.h"
#include "userspace/otel/thread_context_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (const auto record = jfrbpf::otel::decodeThreadContextRecord({data, size})) {
    std::string text;
    jfrbpf::otel::renderAttributes(*record, {"http.route", "a\x1b"}, text);
    for (const char c : text) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) std::abort();
    }
  }
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
