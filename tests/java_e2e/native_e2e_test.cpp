// Native code without frame pointers (issue 6): a call chain 20 deep across a shared library, a thread on CPU
// in the kernel through libc, and a process that is not a JVM at all.
#include <gtest/gtest.h>

#include "tests/java_e2e/printed_samples.h"
#include "tests/java_e2e/workloads.h"

namespace jfrbpf::test {
namespace {

const char* kExecutable = "native_chain";
const char* kLibrary = "libe2e_chain.so";

// The frames below a thread's start routine, at the bottom of every complete native stack.
std::string threadBottomProblem(const JfrSample& s, size_t routine, const std::string& routineName) {
  std::string problem = frameProblem(s, routine, std::string(kExecutable) + "." + routineName);
  if (problem.empty()) problem = frameProblem(s, routine + 1, "libc.so.6.start_thread");
  if (problem.empty()) problem = frameProblem(s, routine + 2, "libc.so.6.clone3");
  if (problem.empty() && s.frames.size() != routine + 3) return "frames below clone3";
  return problem;
}

size_t firstUserFrame(const JfrSample& s) {
  size_t i = 0;
  while (i < s.frames.size() && s.frames[i].className == "kernel") ++i;
  return i;
}

// One recording of native_chain, a process that is not a JVM, asserted three ways.
TEST(NativeE2E, ProgramWithoutFramePointersGetsCompleteStacksAndANote) {
  JFRBPF_REQUIRE_BPF();
  ScratchDir dir("native-e2e");
  Workload program({nativeChainBinary()}, 2);
  ASSERT_EQ(program.threads().size(), 2u);
  std::string out = dir.file("native.jfr");
  RunResult r = recordPid(program.pid(), out, "2s");
  ASSERT_EQ(r.exitCode, 0) << r.output;

  // Not a JVM: one line on the terminal, one jfrbpf.Note in the file, native frames anyway.
  auto said = linesWith(r.output, "not a HotSpot JVM");
  ASSERT_EQ(said.size(), 1u) << r.output;
  EXPECT_NE(said[0].find(std::to_string(program.pid())), std::string::npos) << said[0];
  PausedProcess paused(program.pid());
  std::vector<JfrSample> samples = printedSamples(out);
  Recorded recorded = expectReaderAgrees(out, samples);
  ASSERT_EQ(recorded.notes.size(), 1u);
  EXPECT_NE(recorded.notes[0].find("not a HotSpot JVM"), std::string::npos) << recorded.notes[0];
  auto byThread = samplesByThread(samples);

  // A call chain 20 deep, crossing from the executable into a shared library, recovered in order.
  const auto& chain = byThread[program.tid("chain")];
  EXPECT_GE(chain.size(), 20u);
  auto inLeaf = where(chain, [](const JfrSample& s) {
    size_t user = firstUserFrame(s);
    return user < s.frames.size() && s.frames[user].name() == std::string(kLibrary) + ".chain_leaf";
  });
  EXPECT_GE(inLeaf.size(), chain.size() * 9 / 10) << "the chain thread spends nearly all its time in chain_leaf";
  EXPECT_GE(percentWithout(
                inLeaf,
                [](const JfrSample& s) {
                  size_t leaf = firstUserFrame(s);
                  for (int link = 20; link >= 1; --link) {
                    char name[64];
                    std::snprintf(name, sizeof(name), "%s.chain_%02d", link > 10 ? kLibrary : kExecutable, link);
                    std::string problem = frameProblem(s, leaf + static_cast<size_t>(21 - link), name);
                    if (!problem.empty()) return problem;
                  }
                  return threadBottomProblem(s, leaf + 21, "chain_thread");
                },
                "chain: chain_leaf <- chain_20 .. chain_11 (library) <- chain_10 .. chain_01 <- thread start"),
            99.0);

  // A thread on CPU in the kernel through libc: kernel frames, then getppid in libc, then its callers.
  const auto& syscaller = byThread[program.tid("syscaller")];
  EXPECT_GE(syscaller.size(), 20u);
  auto inKernel = where(syscaller, [](const JfrSample& s) { return firstUserFrame(s) > 0; });
  // How much of a getppid(2) loop the clock catches in the kernel depends on the CPU and its mitigations (the
  // timer fires at the first user instruction when it expires on the syscall's way out): enough samples to
  // judge their walks is what this needs.
  ASSERT_GE(inKernel.size(), 20u) << "too few samples in the kernel to judge their stacks";
  EXPECT_GE(percentWithout(
                inKernel,
                [](const JfrSample& s) {
                  size_t user = firstUserFrame(s);
                  std::string problem = frameProblem(s, user, "libc.so.6.getppid");
                  if (problem.empty()) problem = frameProblem(s, user + 1, std::string(kExecutable) + ".syscall_spin");
                  return problem.empty() ? threadBottomProblem(s, user + 2, "syscall_thread") : problem;
                },
                "syscaller: kernel <- libc getppid <- syscall_spin <- thread start"),
            99.0);
}

}  // namespace
}  // namespace jfrbpf::test
