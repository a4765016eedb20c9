// libFuzzer target: discovery's parsers for text a process shapes about itself — /proc/PID/cgroup, cmdline,
// a JDK release file — and the table/JSON output of what they produce. The first byte picks the parser.
// /proc's own formats (status, stat, maps) have their own targets in tests/proc.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "userspace/discovery/attach_verdict.h"
#include "userspace/discovery/container_id.h"
#include "userspace/discovery/display_text.h"
#include "userspace/discovery/java_command_line.h"
#include "userspace/discovery/java_release.h"
#include "userspace/discovery/jvm_table.h"

using namespace jfrbpf::discovery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  // The seeds' selectors 3, 4 and 5 keep meaning cgroup, cmdline and release file.
  switch (data[0] % 3) {
    case 0: {
      ContainerInfo info = parseContainerInfo(text);
      if (info.known() && info.id.size() != 64) __builtin_trap();
      break;
    }
    case 1: {
      JavaCommandLine command = parseJavaCommandLine(text);
      std::vector<std::string_view> options(command.vmOptions.begin(), command.vmOptions.end());
      AttachFacts facts;
      facts.vmOptions = options;
      (void)judgeAttach(facts);
      JvmInfo jvm;
      jvm.mainClass = command.mainClass;
      jvm.javaCommand = command.javaCommand;
      (void)formatJvmTable({jvm}, 40);
      (void)formatJvmJsonLine(jvm);
      break;
    }
    case 2: {
      std::string version = javaVersionFromRelease(text);
      (void)javaFeatureVersion(version);
      std::string printable = printableText(text);
      if (printableText(printable) != printable) __builtin_trap();  // idempotent: nothing unsafe left
      (void)truncateToWidth(printable, displayWidth(printable) / 2);
      (void)jsonQuoted(text);
      break;
    }
  }
  return 0;
}
