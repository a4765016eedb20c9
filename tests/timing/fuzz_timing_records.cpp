// libFuzzer target for what method timing parses from others: the agent's timing records (loader side),
// the loader's StartTiming and StartAllocations commands (agent side), and trace records from the BPF ring
// buffer, whose stacks may point anywhere. The first byte picks the parser.
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "formats/jfr/writer/recording.h"
#include "jvmsupport/filter/filter.h"
#include "jvmsupport/protocol/allocation_records.h"
#include "jvmsupport/protocol/lock_records.h"
#include "jvmsupport/protocol/timing_records.h"
#include "tests/jvm/stream_builder.h"
#include "userspace/jvm/java_model.h"
#include "userspace/jvm/record_stream_parser.h"
#include "userspace/timing/method_timing_writer.h"

namespace {

using namespace jfrbpf;

constexpr protocol::RecordType kTimingRecords[] = {protocol::RecordType::kHookSites, protocol::RecordType::kTimedMethod,
                                                   protocol::RecordType::kTimingSkipped,
                                                   protocol::RecordType::kTimingStatus,
                                                   protocol::RecordType::kAllocationStatus,
                                                   protocol::RecordType::kLockStatus};

// One JVM with a traced method in slot 1 and a compiled caller, for the trace records to resolve against.
struct TraceFixture {
  TraceFixture() {
    if (mkdtemp(dir) == nullptr) abort();
    jfr::RecordingOptions options;
    options.path = std::string(dir) + "/fuzz.jfr";
    recording = std::make_unique<jfr::Recording>(options);
    jvm::test::StreamBuilder b;
    b.preamble().hello();
    b.record(protocol::RecordType::kClass, protocol::ClassInfo{1, 0, 1, protocol::kReplayed, "A"});
    protocol::MethodInfo m;
    m.methodId = 0x100;
    m.classId = 1;
    m.methodPtr = 0x800010000;
    m.codeStart = 0x800010040;
    m.codeSize = 16;
    m.flags = protocol::kReplayed;
    m.name = "run";
    m.signature = "()V";
    b.method(m, {{0, 1}});
    protocol::CompiledMethodLoad c;
    c.methodId = 0x100;
    c.codeStart = 0x7000;
    c.codeSize = 0x100;
    c.flags = protocol::kCompiledReplayed;
    b.compiled(c, {0x100}, {{0x10, {{0, 3}}}});
    model.timedMethods().setSlotRange(0, 16);
    b.record(protocol::RecordType::kTimedMethod,
             protocol::TimedMethod{1, 1 | protocol::kHookTraced | protocol::kHookTimed, 1, 9, "A", "run", "()V"});
    jvm::RecordStreamParser parser;
    parser.feed(b.bytes(), [&](protocol::RecordType type, std::span<const uint8_t> payload) {
      return model.apply(type, payload);
    });
    writer = std::make_unique<timing::MethodTimingWriter>(
        *recording,
        [this](const jfrbpf_sample_record& record, std::vector<jfr::StackFrame>& frames) {
          frames.clear();
          jfr::MethodId any = recording->internMethod(recording->internClass("native"), "f", "()V");
          for (uint32_t i = 0; i < record.user_depth; ++i) frames.push_back({any, -1, -1, jfr::FrameType::Native});
          return record.walk_end != JFRBPF_WALK_ROOT;
        },
        [](const jfrbpf_sample_record&) { return jfr::ThreadId{0}; },
        [](const jfrbpf_sample_record&) { return jfr::TraceContext{}; });
    writer->addJvm(4242, model);
  }
  ~TraceFixture() {
    writer.reset();
    recording->abandon();
    recording.reset();
    rmdir(dir);
  }
  char dir[32] = "/tmp/fuzz-timing-XXXXXX";  // unpredictable, created with mkdtemp
  std::unique_ptr<jfr::Recording> recording;
  jvm::JavaModel model;
  std::unique_ptr<timing::MethodTimingWriter> writer;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> rest(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      jvm::JavaModel model;
      model.timedMethods().setSlotRange(100, 200);
      for (protocol::RecordType type : kTimingRecords) model.apply(type, rest);
      break;
    }
    case 1: {
      protocol::StartTiming request;
      if (protocol::decode(rest, request)) {
        filter::parseFilter(request.timingFilter);
        filter::parseFilter(request.traceFilter);
      }
      protocol::StartAllocations allocations;
      protocol::decode(rest, allocations);
      break;
    }
    case 2: {
      static TraceFixture fixture;
      fixture.writer->onTrace(rest.data(), rest.size());
      fixture.writer->retryPending(/*final=*/true);
      break;
    }
  }
  return 0;
}
