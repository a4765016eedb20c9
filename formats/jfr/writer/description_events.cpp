#include "formats/jfr/writer/description_events.h"

#include <limits>
#include <string_view>

namespace jfrbpf::jfr {
namespace {

constexpr int64_t kForever = std::numeric_limits<int64_t>::max();  // what the JDK writes for "no limit"

void writeActiveSetting(ByteBuffer& out, Ticks at, TypeId type, std::string_view name, std::string_view value) {
  size_t record = out.beginRecord();
  out.putVarint(kActiveSettingEvent);
  out.putLong(at);
  out.putLong(static_cast<int64_t>(type));
  out.putString(name);
  out.putString(value);
  out.endRecord(record);
}

}  // namespace

void writeDescriptionEvents(ByteBuffer& out, Ticks at, const RecordingDescription& description) {
  const RecordingOptions& options = description.options;
  size_t record = out.beginRecord();
  out.putVarint(kActiveRecordingEvent);
  out.putLong(at);
  out.putLong(1);  // id
  out.putString(options.name);
  out.putString(options.path);
  out.putBool(true);      // disk
  out.putLong(kForever);  // maxAge
  // flushInterval (ms): data reaches the file chunk by chunk, at the latest after maxChunkAge.
  out.putLong(options.maxChunkAge > 0 ? options.maxChunkAge / 1'000'000 : kForever);
  out.putLong(0);  // maxSize: no limit
  out.putLong(description.recordingStartMillis);
  out.putLong(kForever);  // recordingDuration: until stopped
  out.endRecord(record);

  for (uint64_t type = kFirstEventType; type <= kLastEventType; ++type)
    if (description.implicitlyEnabled & eventBit(type))
      writeActiveSetting(out, at, static_cast<TypeId>(type), "enabled", "true");
  for (const auto& [type, setting] : description.settings)
    writeActiveSetting(out, at, type, setting.name, setting.value);

  const SystemInfo& system = description.system;
  record = out.beginRecord();
  out.putVarint(kOsInformationEvent);
  out.putLong(at);
  out.putString(system.osVersion);
  out.endRecord(record);

  record = out.beginRecord();
  out.putVarint(kCpuInformationEvent);
  out.putLong(at);
  out.putString(system.cpu);
  out.putString(system.cpuDescription);
  out.putInt(system.sockets);
  out.putInt(system.cores);
  out.putInt(system.hwThreads);
  out.endRecord(record);

  if (options.jvm) {
    const JvmInformation& jvm = *options.jvm;
    record = out.beginRecord();
    out.putVarint(kJvmInformationEvent);
    out.putLong(at);
    out.putString(jvm.jvmName);
    out.putString(jvm.jvmVersion);
    out.putString(jvm.jvmArguments);
    out.putString(jvm.jvmFlags);
    out.putString(jvm.javaArguments);
    out.putLong(jvm.jvmStartTimeMillis);
    out.putLong(jvm.pid);
    out.endRecord(record);
  }
  if (options.resource) {
    const ProcessResource& resource = *options.resource;
    record = out.beginRecord();
    out.putVarint(kProcessResourceEvent);
    out.putLong(at);
    out.putLong(resource.pid);
    out.putString(resource.hostName);
    out.putString(resource.executableName);
    out.putString(resource.executablePath);
    out.putString(resource.containerId);
    out.putString(resource.containerRuntime);
    out.putString(resource.k8sPodName);
    out.putString(resource.k8sNamespaceName);
    out.endRecord(record);
  }
}

}  // namespace jfrbpf::jfr
