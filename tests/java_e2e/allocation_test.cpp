// --alloc on a real JVM: threads that each allocate one kind of object (tests/java_e2e/java/AllocatingThreads
// .java). Per thread, the weights of its jdk.ObjectAllocationSample events against what the JVM itself counted
// the thread allocated over the same span (the thread's own getCurrentThreadAllocatedBytes, stamped with
// System.nanoTime and interpolated at its first and last sample), the class its weight names, and the
// allocation site on top of every stack with the thread's own frames below it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "tests/java_e2e/workloads.h"
#include "tests/jfr/jdk_tools.h"
#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {
namespace {

class Allocations : public ::testing::TestWithParam<int> {};

struct Stamp {
  int64_t nanos;
  double bytes;
};

// "<thread> <nanoTime> <allocatedBytes>" lines, by thread, in time order.
std::map<std::string, std::vector<Stamp>> readStamps(const std::string& path) {
  std::map<std::string, std::vector<Stamp>> stamps;
  std::ifstream in(path);
  std::string thread;
  int64_t nanos = 0;
  double bytes = 0;
  while (in >> thread >> nanos >> bytes) stamps[thread].push_back({nanos, bytes});
  return stamps;
}

// The thread's allocated bytes at `nanos`, between the stamps around it.
double allocatedAt(const std::vector<Stamp>& stamps, int64_t nanos) {
  auto after = std::lower_bound(stamps.begin(), stamps.end(), nanos, [](const Stamp& s, int64_t t) { return s.nanos < t; });
  if (after == stamps.begin()) return stamps.front().bytes;
  if (after == stamps.end()) return stamps.back().bytes;
  const Stamp& before = *(after - 1);
  const double share = static_cast<double>(nanos - before.nanos) / static_cast<double>(after->nanos - before.nanos);
  return before.bytes + share * (after->bytes - before.bytes);
}

// How far a thread's weights may be from what the JVM counted: 5 %, the bound jfrbpf promises. Measured over
// 3 runs of both JDKs on this VM, each thread: -0.005..+0.005 % (the weights telescope over the JVM's own
// counter, so only the interpolation of the workload's stamps is left).
constexpr double kTolerance = 0.05;

struct Allocator {
  const char* thread;
  const char* objectClass;  // as the file names it
  const char* site;         // the method that allocates it
};

TEST_P(Allocations, EachThreadsWeightsAddUpToWhatItAllocatedWithItsClassAndSite) {
  const int jdk = GetParam();
  JAVA_E2E_REQUIRE(jdk);
  ScratchDir dir("alloc-" + std::to_string(jdk));
  const std::string truthPath = dir.file("allocated.txt");
  Workload workload(javaCommand(jdk, {}, "AllocatingThreads", {truthPath}), 2);
  const std::string out = dir.file("alloc.jfr");
  RunResult r = recordPid(workload.pid(), out, "6s", {"--alloc"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(linesWith(r.output, "alloc ").size(), 1u) << r.output;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the workload's next dump of its stamps
  const std::map<std::string, std::vector<Stamp>> stamps = readStamps(truthPath);

  Recorded recorded = readRecording(out);
  for (const Allocator& allocator : {Allocator{"bytes", "[B", "allocateBytes"},
                                     Allocator{"particles", "AllocatingThreads$Particle", "allocateParticles"}}) {
    const int64_t tid = workload.tid(allocator.thread);
    std::vector<const AllocationSample*> samples;
    for (const AllocationSample& sample : recorded.allocationSamples) {
      if (sample.osThreadId == tid) samples.push_back(&sample);
    }
    std::sort(samples.begin(), samples.end(), [](auto* a, auto* b) { return a->startTime < b->startTime; });
    ASSERT_GE(samples.size(), 100u) << allocator.thread << "\n" << r.output;
    ASSERT_TRUE(stamps.count(allocator.thread)) << truthPath;
    const std::vector<Stamp>& own = stamps.at(allocator.thread);
    ASSERT_GT(own.back().nanos, samples.back()->startTime) << "the stamps cover the recording";

    double afterFirst = 0, total = 0, ofClass = 0, atSite = 0;
    size_t withThreadFrames = 0;
    std::string offSite, offThread;  // the first sample off the site, and without the thread's frames
    for (size_t i = 0; i < samples.size(); ++i) {
      const AllocationSample& sample = *samples[i];
      const auto weight = static_cast<double>(sample.weight);
      total += weight;
      if (i > 0) afterFirst += weight;
      if (sample.objectClass == allocator.objectClass) ofClass += weight;
      auto describe = [&sample] {
        std::string text;
        for (const SampleFrame& f : sample.frames) text += "\n  " + f.className + "." + f.methodName + " (" + f.type + ")";
        return text;
      };
      if (!sample.frames.empty() && sample.frames[0].methodName == allocator.site &&
          sample.frames[0].className == "AllocatingThreads") {
        atSite += weight;
      } else if (offSite.empty()) {
        offSite = describe();
      }
      if (hasFrame(sample.frames, "loop", "AllocatingThreads")) {
        ++withThreadFrames;
      } else if (offThread.empty()) {
        offThread = describe();
      }
    }
    const double truth = allocatedAt(own, samples.back()->startTime) - allocatedAt(own, samples.front()->startTime);
    std::printf("[ figure ] JDK %d %-9s %zu samples, weights %.1f MB against %.1f MB allocated (%+.2f %%), "
                "%.2f %% %s, %.1f %% at %s\n",
                jdk, allocator.thread, samples.size(), afterFirst / 1e6, truth / 1e6, 100 * (afterFirst - truth) / truth,
                100 * ofClass / total, allocator.objectClass, 100 * atSite / total, allocator.site);
    EXPECT_NEAR(afterFirst, truth, kTolerance * truth) << allocator.thread << ": weights against the JVM's count";
    EXPECT_GE(ofClass, 0.95 * total) << allocator.thread << ": its class";
    EXPECT_GE(atSite, 0.95 * total) << allocator.thread << ": the allocation site on top; e.g." << offSite;
    EXPECT_EQ(withThreadFrames, samples.size()) << allocator.thread << ": every stack down to the thread's loop; e.g."
                                                << offThread;
  }

  ToolResult summary = runJfr(jdkHome(jdk), {"summary", out});
  ASSERT_EQ(summary.exitCode, 0) << summary.err;
  EXPECT_EQ(summaryCounts(summary.out)["jdk.ObjectAllocationSample"],
            static_cast<int64_t>(recorded.allocationSamples.size()));
  if (!jdkHome(25).empty()) {  // `jfr view` is JDK 21's and later
    ToolResult view = runJfr(jdkHome(25), {"view", "allocation-by-class", out});
    ASSERT_EQ(view.exitCode, 0) << view.err;
    EXPECT_NE(view.out.find("byte[]"), std::string::npos) << view.out;
    EXPECT_NE(view.out.find("AllocatingThreads$Particle"), std::string::npos) << view.out;
  }
}

INSTANTIATE_TEST_SUITE_P(JavaE2E, Allocations, ::testing::Values(17, 25), jdkTestName);

}  // namespace
}  // namespace jfrbpf::test
