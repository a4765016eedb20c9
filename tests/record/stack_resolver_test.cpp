// The resolver on raw stacks as the BPF walker records them, without root or BPF: user frames of this very
// process and kernel frames of a given kallsyms, written into a file and read back by name.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>
#include <memory>

#include "formats/jfr/writer/recording.h"
#include "tests/jfr/jdk_tools.h"
#include "tests/jvm/stream_builder.h"
#include "tests/support/recorded_samples.h"
#include "userspace/record/output/stack_resolver.h"

// Functions of this executable (external, not inlined) that the records' pcs point into.
extern "C" __attribute__((noinline)) int jfrbpf_test_leaf(int x) { return x * 3 + 1; }
extern "C" __attribute__((noinline)) int jfrbpf_test_caller(int x) { return jfrbpf_test_leaf(x) + 2; }

namespace jfrbpf::record {
namespace {

constexpr uint64_t kKernelText = 0xffffffff81000000ull;

// A pc inside `function`; return addresses (every frame but the leaf) are looked up one byte before.
uint64_t inside(int (*function)(int)) { return reinterpret_cast<uint64_t>(function) + 4; }

class StackResolverTest : public ::testing::Test {
 protected:
  StackResolverTest()
      : out_(std::make_unique<jfr::Recording>(jfr::RecordingOptions{.path = dir_.file("stacks.jfr")})),
        kernel_(symbolize::KernelSymbolizer::parse("ffffffff81000000 T do_test_syscall\n"
                                                   "ffffffff81000100 T entry_test_64\n"
                                                   "ffffffff81000200 T next_after_entry\n")),
        resolver_(*out_, kernel_, native_) {}

  // A record of this process: `user` (pc, Method*) pairs leaf first, then `kernelPcs`.
  jfrbpf_sample_record& record(std::initializer_list<uint64_t> user, std::initializer_list<uint64_t> kernelPcs,
                               jfrbpf_walk_end end, uint32_t flags = 0) {
    std::memset(record_.get(), 0, sizeof(jfrbpf_sample_record));
    record_->tgid = static_cast<uint32_t>(getpid());
    record_->tid = static_cast<uint32_t>(syscall(SYS_gettid));
    record_->time_ns = static_cast<uint64_t>(jfr::Recording::now());
    record_->user_depth = static_cast<uint16_t>(user.size() / 2);
    record_->kernel_depth = static_cast<uint16_t>(kernelPcs.size());
    record_->walk_end = static_cast<uint16_t>(end);
    record_->flags = flags;
    size_t i = 0;
    for (uint64_t word : user) record_->data[i++] = word;
    for (uint64_t pc : kernelPcs) record_->data[i++] = pc;
    return *record_;
  }

  // Writes the stack as a sample and reads back the names of its frames, leaf first ("class.method").
  std::vector<std::string> namesOf(const ResolvedStack& stack) {
    const jfr::ThreadId thread = out_->internThread({.osName = "t", .osThreadId = 1});
    out_->cpuSample(jfr::Recording::now(), stack.frames, stack.truncated(), thread, false, 1'000'000);
    out_->close();
    test::Recorded recorded = test::readRecording(dir_.file("stacks.jfr"));
    std::vector<std::string> names;
    if (recorded.samples.size() != 1) return {"samples: " + std::to_string(recorded.samples.size())};
    for (const test::SampleFrame& frame : recorded.samples[0].frames) {
      names.push_back(frame.className + "." + frame.methodName);
    }
    return names;
  }

  // A code cache of anonymous memory, as HotSpot's is, in `model` (with the agent's hello), for this process;
  // returns its start. Unmapped with the fixture.
  uint64_t codeHeapIn(jvm::JavaModel& model) {
    codeHeap_ = mmap(nullptr, kCodeHeapBytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(codeHeap_, MAP_FAILED);
    const auto heap = reinterpret_cast<uint64_t>(codeHeap_);
    builder_.hello();
    EXPECT_TRUE(model.apply(protocol::RecordType::kHello, builder_.lastPayload()));
    builder_.record(protocol::RecordType::kCodeHeap,
                    protocol::CodeHeap{heap, heap + kCodeHeapBytes, heap, heap + kCodeHeapBytes, 0, 7});
    EXPECT_TRUE(model.apply(protocol::RecordType::kCodeHeap, builder_.lastPayload()));
    resolver_.setJavaModel(getpid(), &model);
    return heap;
  }
  // A blob of the JVM's own code (a stub, the interpreter) named `name`, in `model`.
  void addDynamicCode(jvm::JavaModel& model, uint64_t start, uint32_t size, const char* name) {
    builder_.record(protocol::RecordType::kDynamicCode, protocol::DynamicCode{1, start, size, 0, {}, name});
    EXPECT_TRUE(model.apply(protocol::RecordType::kDynamicCode, builder_.lastPayload()));
  }
  ~StackResolverTest() override {
    resolver_.setJavaModel(getpid(), nullptr);
    if (codeHeap_ != nullptr && codeHeap_ != MAP_FAILED) munmap(codeHeap_, kCodeHeapBytes);
  }

  static constexpr size_t kCodeHeapBytes = 1 << 16;
  void* codeHeap_ = nullptr;
  jvm::test::StreamBuilder builder_;
  test::TempDir dir_;
  std::unique_ptr<jfr::Recording> out_;
  symbolize::KernelSymbols kernel_;
  symbolize::ProcessSymbolizer native_;
  StackResolver resolver_;
  std::unique_ptr<jfrbpf_sample_record> record_ = std::make_unique<jfrbpf_sample_record>();
};

std::string executableName() {
  char path[4096];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  std::string exe(path, n > 0 ? static_cast<size_t>(n) : 0);
  return exe.substr(exe.rfind('/') + 1);
}

TEST_F(StackResolverTest, KernelFramesComeFirstThenTheUserFramesToTheRoot) {
  ResolvedStack stack = resolver_.resolve(record({inside(jfrbpf_test_leaf), 0, inside(jfrbpf_test_caller), 0},
                                                 {kKernelText + 0x10, kKernelText + 0x104}, JFRBPF_WALK_ROOT,
                                                 JFRBPF_SAMPLE_IN_KERNEL));
  EXPECT_EQ(stack.end, StackEnd::kRoot);
  EXPECT_FALSE(stack.truncated());
  EXPECT_TRUE(stack.complete);
  const std::string exe = executableName();
  EXPECT_EQ(namesOf(stack), (std::vector<std::string>{"kernel.do_test_syscall", "kernel.entry_test_64",
                                                      exe + ".jfrbpf_test_leaf", exe + ".jfrbpf_test_caller"}));
}

TEST_F(StackResolverTest, AWalkThatStoppedShortEndsInAMarkerNamingWhy) {
  ResolvedStack stack = resolver_.resolve(record({inside(jfrbpf_test_leaf), 0}, {}, JFRBPF_WALK_NO_UNWIND_INFO));
  EXPECT_EQ(stack.end, StackEnd::kNoUnwindInfo);
  EXPECT_TRUE(stack.truncated());
  EXPECT_EQ(namesOf(stack),
            (std::vector<std::string>{executableName() + ".jfrbpf_test_leaf", "jfrbpf.[truncated: no unwind info]"}));
}

TEST_F(StackResolverTest, APcNoMappingHoldsEndsTheStackThere) {
  ResolvedStack stack = resolver_.resolve(
      record({inside(jfrbpf_test_leaf), 0, 0x10, 0, inside(jfrbpf_test_caller), 0}, {}, JFRBPF_WALK_ROOT));
  EXPECT_EQ(stack.end, StackEnd::kUnmapped);
  std::vector<std::string> names = namesOf(stack);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], executableName() + ".jfrbpf_test_leaf");
  EXPECT_EQ(names[1], "jfrbpf.[truncated: " + std::string(stackEndCause(StackEnd::kUnmapped)) + "]");
}

TEST_F(StackResolverTest, SkippedNativeFramesAreMarkedInPlace) {
  ResolvedStack stack = resolver_.resolve(
      record({inside(jfrbpf_test_leaf), 0, JFRBPF_FRAMES_SKIPPED_PC, 0, inside(jfrbpf_test_caller), 0}, {},
             JFRBPF_WALK_ROOT));
  EXPECT_FALSE(stack.truncated());
  const std::string exe = executableName();
  const std::string marker = "jfrbpf." + std::string(kFramesSkipped);
  EXPECT_EQ(namesOf(stack),
            (std::vector<std::string>{exe + ".jfrbpf_test_leaf", marker, exe + ".jfrbpf_test_caller"}));
}

// A JVM whose agent is not attached yet: its walks stop at the first Java frame for want of its layout,
// which says so rather than "no unwind info"; a failed sample (no user frame) is not marked at all.
TEST_F(StackResolverTest, AJvmWithoutItsLayoutYetSaysSoAndAFailedSampleIsNotMarked) {
  resolver_.setJavaFramesMissing(getpid(), StackEnd::kJavaFramesPending);
  ResolvedStack pending = resolver_.resolve(record({inside(jfrbpf_test_leaf), 0}, {}, JFRBPF_WALK_NO_UNWIND_INFO));
  EXPECT_EQ(pending.end, StackEnd::kJavaFramesPending);
  ResolvedStack failed = resolver_.resolve(record({}, {kKernelText + 0x10}, JFRBPF_WALK_READ_FAULT));
  EXPECT_EQ(failed.end, StackEnd::kRoot);
  EXPECT_EQ(failed.frames.size(), 1u) << "the kernel frame only";
  resolver_.dropJavaFrames(getpid());
  ResolvedStack dropped = resolver_.resolve(
      record({inside(jfrbpf_test_leaf), 0}, {}, JFRBPF_WALK_NO_UNWIND_INFO, JFRBPF_SAMPLE_JVM));
  EXPECT_EQ(dropped.end, StackEnd::kJavaFramesDropped) << "walked with the layout just before it was dropped";
}

// An allocation or a lock wait starts at its Java site: the JVM's own frames above it (a runtime stub here) are
// left out. Code of the code cache the agent has not reported yet (a method compiled, or replaced on stack,
// moments ago) is Java code, not the JVM's: leaving it out too would drop the site's frames without a trace.
TEST_F(StackResolverTest, AJavaSiteStackKeepsCodeNotReportedYetAndWaitsForIt) {
  jvm::JavaModel model;
  const uint64_t heap = codeHeapIn(model);
  addDynamicCode(model, heap, 0x100, "_new_instance_Java");

  const uint64_t stub = heap + 0x10, notReported = heap + 0x8010;
  ResolvedStack stack = resolver_.resolve(
      record({stub, 0, notReported, 0, inside(jfrbpf_test_caller), 0}, {}, JFRBPF_WALK_ROOT), StackStart::kJavaSite);
  EXPECT_FALSE(stack.complete) << "resolved again once the agent reports the code";
  // Named by nothing yet, the code ends the stack for now: this pass is kept only if no later one comes.
  const std::vector<std::string> names = namesOf(stack);
  ASSERT_FALSE(names.empty());
  EXPECT_NE(names.front(), executableName() + ".jfrbpf_test_caller") << "the site's frame dropped without a trace";
}

// The walker catches an interpreted method's frame before its entry built it, or after its return tore it
// down: the frame has the interpreter's pc and no Method* (rbx alone holds it there), and the walk went on to
// its caller. The sample is the caller's, in its call: the unbuilt frame is left out, and the stack is whole.
TEST_F(StackResolverTest, AnInterpreterFrameCaughtUnbuiltIsLeftOutAndTheStackStaysWhole) {
  jvm::JavaModel model;
  const uint64_t heap = codeHeapIn(model);
  addDynamicCode(model, heap + 0x1000, 0x1000, "Interpreter");

  const uint64_t inInterpreter = heap + 0x1010;
  ResolvedStack stack =
      resolver_.resolve(record({inInterpreter, 0, inside(jfrbpf_test_caller), 0}, {}, JFRBPF_WALK_ROOT));
  EXPECT_TRUE(stack.complete);
  EXPECT_EQ(stack.end, StackEnd::kRoot);
  const std::vector<std::string> names = namesOf(stack);
  EXPECT_EQ(names, std::vector<std::string>{executableName() + ".jfrbpf_test_caller"});
}

}  // namespace
}  // namespace jfrbpf::record
