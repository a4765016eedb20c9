#include "tests/java_e2e/printed_samples.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "tests/java_e2e/workloads.h"
#include "tests/jfr/json.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {

using namespace std::chrono_literals;

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

bool JfrFrame::isJava() const {
  constexpr int32_t kAccNative = 0x0100;
  return type != "Native" || (modifiers & kAccNative) != 0;
}

const JfrFrame* JfrSample::topJavaFrame() const {
  for (const JfrFrame& f : frames) {
    if (f.isJava()) return &f;
  }
  return nullptr;
}

int JfrSample::find(const std::string& className, const std::string& method, size_t from) const {
  for (size_t i = from; i < frames.size(); ++i) {
    if (frames[i].className == className && frames[i].method == method) return static_cast<int>(i);
  }
  return -1;
}

size_t JfrSample::count(const std::string& className, const std::string& method) const {
  return static_cast<size_t>(std::count_if(
      frames.begin(), frames.end(), [&](const JfrFrame& f) { return f.className == className && f.method == method; }));
}

std::string JfrSample::describe() const {
  std::ostringstream text;
  text << "thread " << osThreadId << " (" << osName << ")" << (failed ? " failed" : "")
       << (truncated ? " truncated" : "") << "\n";
  for (const JfrFrame& f : frames) text << "    " << f.name() << " line " << f.line << " [" << f.type << "]\n";
  return text.str();
}

namespace {

int64_t integerOr(const Json& object, const char* key, int64_t fallback) {
  return object.has(key) && object[key].kind() == Json::Kind::Number ? object[key].integer() : fallback;
}

std::string stringOr(const Json& object, const char* key) {
  return object.has(key) && object[key].kind() == Json::Kind::String ? object[key].string() : "";
}

// "2026-11-22T16:55:28.308123Z" -> nanoseconds from midnight; -1 if it is not in that form.
int64_t nanosOfDay(const std::string& instant) {
  int hours = 0, minutes = 0, seconds = 0, consumed = 0;
  size_t t = instant.find('T');
  if (t == std::string::npos ||
      std::sscanf(instant.c_str() + t + 1, "%2d:%2d:%2d%n", &hours, &minutes, &seconds, &consumed) != 3) {
    return -1;
  }
  int64_t nanos = ((hours * 60 + minutes) * 60 + seconds) * 1'000'000'000LL;
  const char* fraction = instant.c_str() + t + 1 + consumed;
  if (*fraction == '.') {
    int64_t scale = 100'000'000;
    for (++fraction; *fraction >= '0' && *fraction <= '9' && scale > 0; ++fraction, scale /= 10) {
      nanos += (*fraction - '0') * scale;
    }
  }
  return nanos;
}

// An ISO-8601 duration as `jfr print --json` writes one ("PT0.025793563S", "PT1M2.5S") -> nanoseconds; -1 if
// it is not one.
int64_t durationNanos(const std::string& text) {
  if (text.rfind("PT", 0) != 0) return -1;
  int64_t nanos = 0;
  const char* p = text.c_str() + 2;
  while (*p != '\0') {
    char* end = nullptr;
    const double value = std::strtod(p, &end);
    if (end == p) return -1;
    switch (*end) {
      case 'H': nanos += static_cast<int64_t>(value * 3600e9); break;
      case 'M': nanos += static_cast<int64_t>(value * 60e9); break;
      case 'S': nanos += static_cast<int64_t>(value * 1e9 + (value >= 0 ? 0.5 : -0.5)); break;
      default: return -1;
    }
    p = end + 1;
  }
  return nanos;
}

JfrSample sampleFromJson(const Json& values) {
  JfrSample sample;
  sample.startNanosOfDay = nanosOfDay(stringOr(values, "startTime"));
  if (values.has("duration")) sample.durationNanos = durationNanos(stringOr(values, "duration"));
  if (values.has("weight")) sample.weightNanos = durationNanos(stringOr(values, "weight"));
  sample.state = stringOr(values, "state");
  if (values.has("eventThread") && !values["eventThread"].isNull()) {
    const Json& thread = values["eventThread"];
    sample.osThreadId = integerOr(thread, "osThreadId", 0);
    sample.javaThreadId = integerOr(thread, "javaThreadId", 0);
    sample.osName = stringOr(thread, "osName");
    sample.javaName = stringOr(thread, "javaName");
    sample.virtualThread = thread.has("virtual") && thread["virtual"].boolean();
  }
  sample.failed = values.has("failed") && values["failed"].boolean();
  if (values.has("stackTrace") && !values["stackTrace"].isNull()) {
    const Json& trace = values["stackTrace"];
    sample.truncated = trace["truncated"].boolean();
    for (const Json& f : trace["frames"].items()) {
      JfrFrame frame;
      const Json& method = f["method"];
      frame.className = method["type"]["name"].string();
      frame.method = method["name"].string();
      frame.descriptor = stringOr(method, "descriptor");
      frame.modifiers = static_cast<int32_t>(integerOr(method, "modifiers", 0));
      frame.hidden = method.has("hidden") && method["hidden"].boolean();
      frame.line = static_cast<int32_t>(integerOr(f, "lineNumber", -1));
      frame.type = stringOr(f, "type");
      sample.frames.push_back(std::move(frame));
    }
  }
  return sample;
}

// `jfr print --json` writes the internal class names with '/' escaped ("java\/lang\/Thread"); the parser
// unescapes them. Native frames keep their library as the class name.
std::string frameKey(const std::string& className, const std::string& method, int32_t line, const std::string& type) {
  return className + "." + method + ":" + std::to_string(line) + "[" + type + "]";
}

}  // namespace

std::vector<JfrSample> printedSamples(const std::string& path, const std::string& type, int jfrFeature) {
  std::string jfr = jdkHome(jfrFeature) + "/bin/jfr";
  ChildProcess tool({jfr, "print", "--json", "--stack-depth", "512", "--events", type, path});
  std::string text = tool.readAll(120s);
  auto code = tool.wait(10s);
  std::vector<JfrSample> samples;
  if (!code || *code != 0) {
    ADD_FAILURE() << "jfr print --json failed on " << path << ": " << text.substr(0, 2000);
    return samples;
  }
  try {
    // One event at a time: the whole tree of a few seconds at 1 ms took seconds and GBs to build.
    Json::parseEach(text, {"recording", "events"}, [&](const Json& event) {
      if (event["type"].string() == type) samples.push_back(sampleFromJson(event["values"]));
    });
  } catch (const std::exception& e) {
    ADD_FAILURE() << "cannot read jfr print --json output of " << path << ": " << e.what();
  }
  return samples;
}

Recorded expectReaderAgrees(const std::string& path, const std::vector<JfrSample>& printed) {
  Recorded recorded = readRecording(path);
  std::vector<std::string> fromReader, fromJdk;
  for (const Sample& s : recorded.samples) {
    std::string key = std::to_string(s.osThreadId) + "|";
    for (const SampleFrame& f : s.frames) key += frameKey(f.className, f.methodName, f.line, f.type) + ";";
    fromReader.push_back(std::move(key));
  }
  for (const JfrSample& s : printed) {
    std::string key = std::to_string(s.osThreadId) + "|";
    for (const JfrFrame& f : s.frames) key += frameKey(f.className, f.method, f.line, f.type) + ";";
    fromJdk.push_back(std::move(key));
  }
  std::sort(fromReader.begin(), fromReader.end());
  std::sort(fromJdk.begin(), fromJdk.end());
  EXPECT_EQ(fromReader.size(), fromJdk.size()) << "the project's reader and jfr print see different sample counts";
  EXPECT_TRUE(fromReader == fromJdk) << "the project's reader and jfr print disagree about the stacks";
  return recorded;
}

int64_t nanosOfDayNow() {
  const auto sinceEpoch = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(sinceEpoch).count() % (86'400LL * 1'000'000'000);
}

double lastSampleSecondsAfter(const std::vector<JfrSample>& samples, int64_t nanosOfDay) {
  int64_t last = 0;
  for (const JfrSample& s : samples) last = std::max(last, s.startNanosOfDay);
  return static_cast<double>(last - nanosOfDay) / 1e9;
}

std::map<int64_t, std::vector<const JfrSample*>> samplesByThread(const std::vector<JfrSample>& samples) {
  std::map<int64_t, std::vector<const JfrSample*>> out;
  for (const JfrSample& s : samples) out[s.osThreadId].push_back(&s);
  return out;
}

void recordAndRead(pid_t pid, const std::string& out, const std::string& duration, RecordedSamples& recorded,
                   const std::vector<std::string>& extraEnv) {
  RunResult r = recordPid(pid, out, duration, {"--interval", "1ms"}, extraEnv);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  recorded.output = r.output;
  PausedProcess paused(pid);
  recorded.all = printedSamples(out);
  expectReaderAgrees(out, recorded.all);
  recorded.byThread = samplesByThread(recorded.all);
}

bool isUnresolved(const JfrFrame& frame) {
  return frame.className == "[anon]" || frame.className == "[unknown]" || frame.name() == "jvm.Interpreter";
}

std::vector<const JfrSample*> fullyResolved(const std::vector<const JfrSample*>& samples, const std::string& label) {
  auto resolved =
      where(samples, [](const JfrSample& s) { return std::none_of(s.frames.begin(), s.frames.end(), isUnresolved); });
  std::printf("[ figure ] %s: %zu of %zu samples hold an unresolved frame (set aside here)\n", label.c_str(),
              samples.size() - resolved.size(), samples.size());
  return resolved;
}

bool reachesThreadRoot(const JfrSample& sample, int feature, std::string* why) {
  auto fail = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  if (sample.failed) return fail("the sample failed");
  if (sample.truncated) return fail("the stack is truncated");
  int run = sample.find("java/lang/Thread", "run");
  if (run < 0) return fail("no java.lang.Thread.run frame");
  if (feature >= 21 && sample.find("java/lang/Thread", "runWith") < 0) return fail("no java.lang.Thread.runWith frame");
  const JfrFrame& bottom = sample.frames.back();
  if (bottom.className != "libc.so.6" || bottom.method != "clone3") {
    return fail("the bottom frame is " + bottom.name() + ", not libc.so.6.clone3");
  }
  return true;
}

double rootCompletenessPercent(const std::vector<const JfrSample*>& samples, int feature, const std::string& label) {
  return percentWithout(
      samples,
      [&](const JfrSample& s) {
        std::string why;
        return reachesThreadRoot(s, feature, &why) ? std::string() : why;
      },
      "JDK " + std::to_string(feature) + " " + label + " reach the thread's root");
}

std::string lineProblem(const JfrFrame& frame, int expectedLine) {
  if (frame.line == expectedLine) return "";
  return frame.name() + " at line " + std::to_string(frame.line) + ", expected " + std::to_string(expectedLine);
}

std::string frameProblem(const JfrSample& s, size_t index, const std::string& name, int line) {
  if (index >= s.frames.size()) return "no frame " + std::to_string(index) + " (expected " + name + ")";
  const JfrFrame& f = s.frames[index];
  if (f.name() != name) return "frame " + std::to_string(index) + " is " + f.name() + ", expected " + name;
  return line < 0 ? "" : lineProblem(f, line);
}

double percentWithout(const std::vector<const JfrSample*>& samples,
                      const std::function<std::string(const JfrSample&)>& problemOf, const std::string& label) {
  if (samples.empty()) {
    std::printf("[ figure ] %s: no samples\n", label.c_str());
    return 0;
  }
  size_t good = 0;
  int shown = 0;
  for (const JfrSample* s : samples) {
    std::string problem = problemOf(*s);
    if (problem.empty()) {
      ++good;
    } else if (shown++ < 3) {
      std::printf("[ unexpected ] %s: %s\n%s", label.c_str(), problem.c_str(), s->describe().c_str());
    }
  }
  double percent = 100.0 * static_cast<double>(good) / static_cast<double>(samples.size());
  std::printf("[ figure ] %s: %zu of %zu samples (%.2f %%)\n", label.c_str(), good, samples.size(), percent);
  return percent;
}

std::vector<const JfrSample*> where(const std::vector<const JfrSample*>& samples,
                                    const std::function<bool(const JfrSample&)>& keep) {
  std::vector<const JfrSample*> out;
  for (const JfrSample* s : samples) {
    if (keep(*s)) out.push_back(s);
  }
  return out;
}

}  // namespace jfrbpf::test
