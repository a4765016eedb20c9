#pragma once
// jdk.JVMInformation for a JVM that a file records alone, from what discovery learnt without attaching: the
// description the JDK's own recordings carry in every chunk, which JMC's JVM page shows and OTLP export names
// the process by (its main class as service.name when it published none).
#include "formats/jfr/writer/types.h"
#include "userspace/discovery/jvm_info.h"

namespace jfrbpf::record {

// `pid` is the JVM's in jfrbpf's pid namespace, as jfrbpf.ProcessContext and the file names give it.
jfr::JvmInformation jvmInformationOf(const discovery::JvmInfo& info);
// jfrbpf.ProcessResource for the same file: where the JVM runs (this host, its executable, its container).
jfr::ProcessResource processResourceOf(const discovery::JvmInfo& info);

}  // namespace jfrbpf::record
