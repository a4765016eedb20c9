// Fuzzes every parser of target-provided input in the attach client. The first byte picks the parser, the
// rest is its input.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/jvm_options.h"
#include "userspace/attach/proc_maps.h"
#include "userspace/attach/proc_status.h"
#include "userspace/attach/protocol.h"

using namespace jfrbpf::attach;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (selector % 5) {
    case 0: {
      if (auto status = parseProcStatus(text)) (void)status->catches(static_cast<int>(status->namespacePid % 70));
      break;
    }
    case 1: {
      auto files = parseMappedFiles(text);
      (void)findPerfDataFile(files, static_cast<pid_t>(size));
      (void)findByBaseNamePrefix(files, "libjfrbpf-agent");
      break;
    }
    case 2:
      break;  // hsperfdata parsing is discovery's, fuzzed there (fuzz_hsperfdata)
    case 3: {
      if (auto reply = parseReply(text)) (void)interpretLoadReply(*reply);
      size_t third = text.size() / 3;
      try {
        (void)encodeRequest(text.substr(0, third), {text.substr(third, third), text.substr(2 * third), ""});
      } catch (const AttachError&) {
      }
      break;
    }
    case 4: {
      auto options = launcherJvmOptions(text);
      (void)lastBooleanFlag(options, "DisableAttachMechanism");
      if (auto value = environmentValue(text, "JAVA_TOOL_OPTIONS")) (void)lastBooleanFlag(splitOptions(*value), "X");
      break;
    }
  }
  return 0;
}
