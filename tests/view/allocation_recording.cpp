#include "tests/view/allocation_recording.h"

#include <vector>

#include "formats/jfr/writer/recording.h"
#include "tests/view/synthetic_recording.h"

namespace jfrbpf::test {

using jfr::FrameType;
using jfr::StackFrame;

AllocationRecordingFacts writeAllocationRecording(const std::string& path) {
  jfr::RecordingOptions options;
  options.path = path;
  jfr::Recording out(options);

  jfr::MethodId workMain = javaMethod(out, "Work", "main", "([Ljava/lang/String;)V");
  jfr::MethodId threadRun = javaMethod(out, "java/lang/Thread", "run", "()V");
  std::vector<StackFrame> readAll = {{javaMethod(out, "Work", "readAll", "()[B"), 12, 4, FrameType::JitCompiled},
                                     {workMain, 5, 1, FrameType::Interpreted}};
  std::vector<StackFrame> format = {
      {javaMethod(out, "Work", "format", "(I)Ljava/lang/String;"), 30, 9, FrameType::JitCompiled},
      {workMain, 6, 2, FrameType::Interpreted}};
  std::vector<StackFrame> grow = {{javaMethod(out, "Work", "grow", "()V"), 40, 3, FrameType::JitCompiled},
                                  {threadRun, 1583, 11, FrameType::Interpreted}};
  std::vector<StackFrame> link = {{javaMethod(out, "Work", "link", "()V"), 50, 6, FrameType::Interpreted},
                                  {threadRun, 1583, 11, FrameType::Interpreted}};
  jfr::ClassId bytes = out.internClass("[B"), string = out.internClass("java/lang/String"),
               objects = out.internClass("[Ljava/lang/Object;"), node = out.internClass("com/example/Node"),
               ints = out.internClass("[[I");

  jfr::ThreadId mainThread = out.internThread({"main", 3001, "main", 1, false});
  jfr::ThreadId worker = out.internThread({"wkr-1", 3002, "worker-1", 21, false});

  const jfr::Ticks start = jfr::Recording::now();
  const jfr::Ticks ms = 1'000'000;
  for (int i = 0; i < 3; ++i) out.objectAllocationSample(start + i * ms, mainThread, readAll, false, bytes, 1'000'000);
  for (int i = 0; i < 2; ++i) out.objectAllocationSample(start + 5 * ms, mainThread, format, false, string, 200'000);
  for (int i = 0; i < 2; ++i) out.objectAllocationSample(start + 10 * ms, worker, grow, false, objects, 400'000);
  out.rotate();  // the second chunk repeats the classes, stacks and threads it uses
  out.objectAllocationSample(start + 20 * ms, worker, grow, false, bytes, 500'000);
  for (int i = 0; i < 2; ++i) out.objectAllocationSample(start + 30 * ms, worker, link, false, node, 100'000);
  out.objectAllocationSample(start + 40 * ms, worker, link, false, ints, 100'000);
  out.close();
  return AllocationRecordingFacts{};
}

}  // namespace jfrbpf::test
