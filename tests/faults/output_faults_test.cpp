// jfrbpf when its output directory fails it: a disk already full at the start, a disk that fills mid-run, the
// directory removed or made read-only while recording. Each time one line says what happened and the exit
// code is 1; what could be kept is a recording the JDK's `jfr` opens, nothing is half-written, and the JVM
// goes on with its original code.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/faults/fault_support.h"
#include "tests/java_e2e/printed_samples.h"

namespace jfrbpf::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A mount the test undoes however it ends.
struct Mounted {
  fs::path path;
  ~Mounted() { umount2(path.c_str(), MNT_DETACH); }
};

// Writes `path` until the file system holding it is full.
void fillUp(const fs::path& path) {
  std::ofstream filler(path, std::ios::binary);
  const std::string block(4096, 'x');
  while (filler.write(block.data(), static_cast<std::streamsize>(block.size())) && filler.flush()) {
  }
}

// One busy JVM (with a /tmp of its own) for the tests of this file, created on first use.
pid_t sharedJvm() {
  static std::unique_ptr<Workload> jvm = jvmWithPrivateTmp("CpuShares", {"600"}, 4);
  return jvm->pid();
}

std::vector<std::string> recordArgs(pid_t jvm, const std::string& out, const char* duration, bool timing) {
  std::vector<std::string> argv{jfrbpfBinary(), "record", "-p", std::to_string(jvm), "-d", duration,
                                "--interval",   "1ms",    "-o", out};
  if (timing) argv.insert(argv.end(), {"--method-timing", "CpuShares::spin"});
  return argv;
}

// The disk is full before the recording begins: jfrbpf says so in one line and stops before it loads, attaches
// or creates anything, instead of recording for the whole duration into nothing.
TEST(FaultOutput, FullDiskAtTheStartStopsBeforeAnythingIsAttached) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-full-start");
  const fs::path full = dir.path() / "full";
  fs::create_directories(full);
  if (mount("jfrbpf-test", full.c_str(), "tmpfs", 0, "size=64k") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
  Mounted unmount{full};
  fillUp(full / "filler");
  const pid_t jvm = sharedJvm();

  const Clock::time_point started = Clock::now();
  RunResult r = run(recordArgs(jvm, (full / "app.jfr").string(), "60s", /*timing=*/true));
  const double seconds = secondsSince(started);
  std::printf("[ figure ] refused after %.3f s of a 60 s recording\n", seconds);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_EQ(linesWith(r.output, "").size(), 1u) << "one line:\n" << r.output;
  EXPECT_NE(r.output.find("cannot record into '" + full.string() + "': No space left on device"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("free disk space or choose another output path"), std::string::npos) << r.output;
  // Recording into nothing would have taken the whole minute; refusing takes milliseconds (measured 0.01 s).
  EXPECT_LT(seconds, 30.0);
  std::vector<std::string> entries;
  for (const auto& entry : fs::directory_iterator(full)) entries.push_back(entry.path().filename().string());
  EXPECT_EQ(entries, std::vector<std::string>{"filler"}) << "no part file";
  EXPECT_EQ(kill(jvm, 0), 0);
}

// The disk fills mid-run: the recording is finished with the chunks that could be written, and one line says
// how many could not and why; exit code 1.
TEST(FaultOutput, FullDiskMidRunSaysSoAndKeepsWhatWasWritten) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-full-mid");
  const fs::path small = dir.path() / "small";
  fs::create_directories(small);
  if (mount("jfrbpf-test", small.c_str(), "tmpfs", 0, "size=4m") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
  Mounted unmount{small};
  const pid_t jvm = sharedJvm();
  ChildProcess recorder(recordArgs(jvm, (small / "app.jfr").string(), "5s", /*timing=*/false),
                        {.captureStderr = true, .extraEnv = {}});
  ASSERT_TRUE(awaitFirstChunk(small)) << recorder.readAll(1s);
  fillUp(small / "filler");
  std::optional<int> code = recorder.wait(120s);
  const std::string output = recorder.readAll(1s);
  EXPECT_EQ(code.value_or(-1), 1) << output;
  EXPECT_NE(output.find("No space left on device"), std::string::npos) << output;
  EXPECT_NE(output.find("is missing"), std::string::npos) << output;
  EXPECT_EQ(partFiles(small), std::vector<std::string>{});
  EXPECT_EQ(run({jdkTool("jfr"), "summary", (small / "app.jfr").string()}).exitCode, 0);
  EXPECT_GT(readRecording((small / "app.jfr").string()).samples.size(), 0u) << "the chunks written before it filled";
  EXPECT_EQ(jfrbpfFilesOf(jvm), std::vector<std::string>{});
  EXPECT_EQ(kill(jvm, 0), 0) << "the JVM goes on";
}

// The output directory removed mid-run (a cleanup job, `rm -rf` of the wrong directory): the part file went
// with it, so nothing recorded can be kept; jfrbpf stops within a second and says so (exit code 1) rather
// than recording into a deleted file until the end. The JVM is restored and the recorder leaves nothing.
TEST(FaultOutput, OutputDirectoryRemovedMidRunStopsTheRecordingAndSaysSo) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-dir-removed");
  const fs::path out = dir.path() / "out";
  fs::create_directories(out);
  const pid_t jvm = sharedJvm();
  ChildProcess recorder(recordArgs(jvm, (out / "app.jfr").string(), "60s", /*timing=*/true),
                        {.captureStderr = true, .extraEnv = {}});
  ASSERT_TRUE(awaitFirstChunk(out)) << recorder.readAll(1s);
  const BpfObjects bpf = bpfObjectsOf(recorder.pid());
  fs::remove_all(out);
  const Clock::time_point removed = Clock::now();
  std::optional<int> code = recorder.wait(120s);
  const double seconds = secondsSince(removed);
  const std::string output = recorder.readAll(1s);
  std::printf("[ figure ] stopped %.2f s after the directory was removed\n", seconds);
  EXPECT_EQ(code.value_or(-1), 1) << output;
  EXPECT_NE(output.find("the output directory '" + out.string() + "' was removed while recording"), std::string::npos)
      << output;
  // It checks once a second; the recording it replaced ran on for the rest of its 60 s.
  EXPECT_LT(seconds, 30.0);
  EXPECT_FALSE(fs::exists(out)) << "nothing made the directory again";
  EXPECT_EQ(kill(jvm, 0), 0) << "the JVM goes on";
  EXPECT_EQ(stillLoaded(bpf).size(), 0u) << stillLoaded(bpf).describe();
  EXPECT_EQ(jfrbpfFilesOf(jvm), std::vector<std::string>{});
  expectOriginalCode(jvm, "CpuShares", "spin", /*wasInstrumented=*/true);
}

// The output directory made read-only mid-run (here a read-only bind mount over it; a file system remounted
// read-only after errors alike): jfrbpf says so at once and records on into its part file, whose descriptor
// still writes; the file cannot be renamed into place at the end, so it is kept as a part file of whole
// chunks, named in one line, and exit code 1. `jfrbpf recover` finishes it once the directory is writable.
TEST(FaultOutput, OutputDirectoryMadeReadOnlyMidRunKeepsThePartFile) {
  JAVA_E2E_REQUIRE(17);
  ScratchDir dir("faults-dir-readonly");
  const fs::path out = dir.path() / "out";
  fs::create_directories(out);
  const pid_t jvm = sharedJvm();
  ChildProcess recorder(recordArgs(jvm, (out / "app.jfr").string(), "4s", /*timing=*/false),
                        {.captureStderr = true, .extraEnv = {}});
  ASSERT_TRUE(awaitFirstChunk(out)) << recorder.readAll(1s);
  if (mount(out.c_str(), out.c_str(), nullptr, MS_BIND, nullptr) != 0) GTEST_SKIP() << "cannot bind-mount here";
  Mounted unmount{out};
  ASSERT_EQ(mount(nullptr, out.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr), 0) << strerror(errno);
  const int64_t readOnlyAt = nanosOfDayNow();
  std::optional<int> code = recorder.wait(120s);
  const std::string output = recorder.readAll(1s);
  EXPECT_EQ(code.value_or(-1), 1) << output;
  EXPECT_NE(output.find("the output directory '" + out.string() + "' became read-only"), std::string::npos)
      << output;
  EXPECT_NE(output.find("Read-only file system; the recording so far is kept in"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(out / "app.jfr"));
  std::vector<std::string> parts = partFiles(out);
  ASSERT_EQ(parts.size(), 1u) << output;
  std::vector<JfrSample> samples = printedSamples(parts[0]);  // the JDK's jfr reads it as it is
  ASSERT_FALSE(samples.empty());
  const double after = lastSampleSecondsAfter(samples, readOnlyAt);
  std::printf("[ figure ] %zu samples in the part file, the last %.2f s after the directory became read-only\n",
              samples.size(), after);
  EXPECT_GT(after, 0.0) << "the recording went on into its part file";

  umount2(out.c_str(), MNT_DETACH);
  RunResult recovered = run({jfrbpfBinary(), "recover", parts[0]});
  EXPECT_EQ(recovered.exitCode, 0) << recovered.output;
  EXPECT_EQ(readRecording((out / "app.jfr").string()).samples.size(), samples.size());
  EXPECT_EQ(kill(jvm, 0), 0) << "the JVM goes on";
}

}  // namespace
}  // namespace jfrbpf::test
