#pragma once
// A recording's CPU samples as the JDK's own `jfr print --json` shows them (cross-checked against the project's
// reader), and the checks the end-to-end tests make on their stacks.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/support/recorded_samples.h"

namespace jfrbpf::test {

bool startsWith(const std::string& text, const std::string& prefix);

struct JfrFrame {
  std::string className;  // JVM internal form; the library ("libc.so.6", "kernel", "jvm") for native frames
  std::string method;
  std::string descriptor;
  std::string type;  // "Interpreted", "JIT compiled", "Inlined", "Native"
  int32_t line = -1;
  int32_t modifiers = 0;
  bool hidden = false;

  bool isJava() const;  // a Java method's frame (a Java native method included), not native code
  std::string name() const { return className + "." + method; }
};

struct JfrSample {
  int64_t osThreadId = 0;
  int64_t javaThreadId = 0;
  std::string osName;
  std::string javaName;
  bool virtualThread = false;
  bool failed = false;
  bool truncated = false;
  int64_t startNanosOfDay = -1;  // the sample's time in UTC, from midnight; -1 if jfr did not print it
  // Of events that have them (jfrbpf.OffCPUSample): -1 / empty otherwise.
  int64_t durationNanos = -1;
  int64_t weightNanos = -1;
  std::string state;
  std::vector<JfrFrame> frames;  // leaf first

  // The leaf-most Java frame (nullptr if none).
  const JfrFrame* topJavaFrame() const;
  // Index of the first frame (from the leaf) with this class and method, or -1.
  int find(const std::string& className, const std::string& method, size_t from = 0) const;
  size_t count(const std::string& className, const std::string& method) const;
  std::string describe() const;  // one frame per line, for failure messages
};

// The events of `type` as `<jdk>/bin/jfr print --json --stack-depth 512` prints them. Fails the test (and returns
// what it has) when the tool fails.
std::vector<JfrSample> printedSamples(const std::string& path, const std::string& type = "jdk.CPUTimeSample",
                                      int jfrFeature = 17);

// Reads `path` with the project's reader too and expects the same samples (threads, frames, lines, types) as
// `printed`, in any order. Returns the reader's view (notes, losses).
Recorded expectReaderAgrees(const std::string& path, const std::vector<JfrSample>& printed);

std::map<int64_t, std::vector<const JfrSample*>> samplesByThread(const std::vector<JfrSample>& samples);

// Now, as the UTC time of day that JfrSample::startNanosOfDay counts in.
int64_t nanosOfDayNow();
// Seconds from `nanosOfDay` to the latest of `samples` (negative when every sample came before it).
double lastSampleSecondsAfter(const std::vector<JfrSample>& samples, int64_t nanosOfDay);

// One recording as the tests read it. `byThread` points into `all`: neither is copied or moved.
struct RecordedSamples {
  RecordedSamples() = default;
  RecordedSamples(const RecordedSamples&) = delete;
  RecordedSamples& operator=(const RecordedSamples&) = delete;

  std::vector<JfrSample> all;
  std::map<int64_t, std::vector<const JfrSample*>> byThread;
  std::string output;  // what jfrbpf printed
};

// `jfrbpf record -p PID -d <duration> --interval 1ms -o <out>`, with `extraEnv` ("NAME=value") in its
// environment, then the file's samples as the JDK's `jfr` prints them, checked against the project's reader.
// The workload is stopped (SIGSTOP) while the file is read, and continued after. A failed recording fails the
// test fatally.
void recordAndRead(pid_t pid, const std::string& out, const std::string& duration, RecordedSamples& recorded,
                   const std::vector<std::string>& extraEnv = {});

// A frame the recording could not name: code-cache code unknown to it ("[anon]"), "[unknown]" code, or an
// interpreted frame whose method it does not know ("jvm.Interpreter").
bool isUnresolved(const JfrFrame& frame);

// `samples` without the ones holding an unresolved frame, for checks about something else (the test
// CodeCreatedDuringTheRecordingIsResolved owns those); prints how many were set aside.
std::vector<const JfrSample*> fullyResolved(const std::vector<const JfrSample*>& samples, const std::string& label);

// Whether the sample reaches its thread's root: java.lang.Thread.run (and Thread.runWith on JDK 21+) and,
// at the very bottom, libc's clone3. `why` says what is missing.
bool reachesThreadRoot(const JfrSample& sample, int feature, std::string* why = nullptr);

// Percentage of `samples` that reach their thread's root; prints the figure and the first few that do not.
double rootCompletenessPercent(const std::vector<const JfrSample*>& samples, int feature, const std::string& label);

// Problems as percentWithout() wants them: "" when the frame is as expected, else what is wrong.
std::string lineProblem(const JfrFrame& frame, int expectedLine);
// Frame `index` of `s` is `name` ("class.method") at `line` (any line if line < 0).
std::string frameProblem(const JfrSample& s, size_t index, const std::string& name, int line = -1);

// Percentage of `samples` for which `problemOf` finds nothing wrong (returns ""); prints the figure with
// `label` and the first few problems, so a failing expectation shows what the stacks looked like.
double percentWithout(const std::vector<const JfrSample*>& samples,
                      const std::function<std::string(const JfrSample&)>& problemOf, const std::string& label);

// The samples for which `keep` holds.
std::vector<const JfrSample*> where(const std::vector<const JfrSample*>& samples,
                                    const std::function<bool(const JfrSample&)>& keep);

}  // namespace jfrbpf::test
