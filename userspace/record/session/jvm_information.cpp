#include "userspace/record/session/jvm_information.h"

namespace jfrbpf::record {

jfr::JvmInformation jvmInformationOf(const discovery::JvmInfo& info) {
  jfr::JvmInformation jvm;
  jvm.jvmName = info.vmName;
  jvm.jvmVersion = info.vmVersion.empty() ? info.javaVersion : info.vmVersion;
  jvm.jvmArguments = info.vmArgs;
  jvm.javaArguments = info.javaCommand;
  jvm.jvmStartTimeMillis = info.startTimeMs.value_or(0);
  jvm.pid = info.pid;
  return jvm;
}

}  // namespace jfrbpf::record
