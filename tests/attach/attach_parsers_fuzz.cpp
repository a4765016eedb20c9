// Fuzzes the attach client's parsers of target-provided input: the attach protocol's replies and requests,
// and JVM options from a command line and environment. The first byte picks the parser, the rest is its
// input. /proc's formats have their own targets in tests/proc.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/jvm_options.h"
#include "userspace/attach/protocol.h"
#include "userspace/proc/nul_separated.h"

using namespace jfrbpf::attach;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  // Odd and even: the seeds' selectors (3 for replies, 4 for options) keep meaning what they did.
  switch (selector % 2) {
    case 1: {
      if (auto reply = parseReply(text)) (void)interpretLoadReply(*reply);
      size_t third = text.size() / 3;
      try {
        (void)encodeRequest(text.substr(0, third), {text.substr(third, third), text.substr(2 * third), ""});
      } catch (const AttachError&) {
      }
      break;
    }
    case 0: {
      auto options = launcherJvmOptions(text);
      (void)lastBooleanFlag(options, "DisableAttachMechanism");
      if (auto value = jfrbpf::proc::environmentValue(text, "JAVA_TOOL_OPTIONS")) {
        (void)lastBooleanFlag(splitOptions(*value), "X");
      }
      break;
    }
  }
  return 0;
}
