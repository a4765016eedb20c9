// Chunks and files: rotation by size, age and on demand (every chunk self-contained, checked with JDK 17
// `jfr`), RAII finishing, crash safety of the temporary file, errors for unwritable destinations and full
// disks, and nothing left behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/error.h"
#include "formats/jfr/writer/recording.h"
#include "tests/jfr/chunk_headers.h"
#include "tests/jfr/jdk_tools.h"
#include "tests/jfr/json.h"
#include "tests/support/durations.h"

namespace jfrbpf::jfr {
namespace {

using test::Json;

using ::jfrbpf::test::kMs;

bool haveJdk17() { return access((test::jdk17Home() + "/bin/jfr").c_str(), X_OK) == 0; }

// A recording's worth of distinct Java stacks: stack i has a leaf method named "leaf<i>" over shared callers.
struct StackPool {
  StackPool(Recording& r, int count, int depth) {
    ClassId cls = r.internClass("com/example/Pool", 1);
    std::vector<MethodId> callers;
    for (int d = 0; d < depth; ++d) callers.push_back(r.internMethod(cls, "caller" + std::to_string(d), "()V"));
    for (int i = 0; i < count; ++i) {
      std::vector<StackFrame> frames{
          {r.internMethod(cls, "leaf" + std::to_string(i), "()V"), i, 0, FrameType::JitCompiled}};
      for (int d = 1; d < depth; ++d) frames.push_back({callers[d], d, d, FrameType::Interpreted});
      stacks.push_back(std::move(frames));
    }
  }
  std::vector<std::vector<StackFrame>> stacks;
};

std::vector<std::string> partFiles(const test::TempDir& dir) {
  std::vector<std::string> parts;
  for (const auto& name : dir.entries())
    if (name.find(".part.jfr") != std::string::npos) parts.push_back(name);
  return parts;
}

TEST(JfrWriterChunks, SizeRotationKeepsEveryChunkSelfContained) {
  if (!haveJdk17()) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  test::TempDir dir;
  std::string path = dir.file("rotating.jfr");
  constexpr uint64_t kMaxChunk = 32 * 1024;
  constexpr int kSamples = 4000, kDepth = 6;
  std::vector<int> drawn;
  Ticks t0 = Recording::now();
  Recording::Stats stats{};
  {
    Recording r({.path = path, .maxChunkBytes = kMaxChunk});
    StackPool pool(r, 200, kDepth);
    ThreadId thread = r.internThread({"worker", 77, "worker", 7});
    std::mt19937 random(1);
    for (int i = 0; i < kSamples; ++i) {
      drawn.push_back(static_cast<int>(random() % pool.stacks.size()));
      r.cpuTimeSample(t0 + i * kMs, pool.stacks[drawn.back()], false, thread, false, 10 * kMs, false);
    }
    r.close();
    stats = r.stats();
  }
  std::string bytes = test::readFile(path);
  auto chunks = test::chunkHeaders(bytes);
  ASSERT_GE(chunks.size(), 4u);
  EXPECT_EQ(stats.chunks, chunks.size());
  EXPECT_EQ(stats.bytesWritten, bytes.size());
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].magic, std::string("FLR\0", 4));
    EXPECT_EQ(chunks[i].state, 0u);
    EXPECT_EQ(chunks[i].flags, i + 1 == chunks.size() ? 3u : 1u) << "final-chunk flag only on the last";
    EXPECT_LE(chunks[i].size, kMaxChunk + 256) << "rotation keeps chunks near the limit";
    if (i > 0) {
      EXPECT_GE(chunks[i].startTicks, chunks[i - 1].startTicks);
    }
  }

  auto summary = test::runJfr(test::jdk17Home(), {"summary", path});
  ASSERT_EQ(summary.exitCode, 0) << summary.err;
  EXPECT_EQ(test::summaryChunks(summary.out), static_cast<int>(chunks.size()));
  auto counts = test::summaryCounts(summary.out);
  EXPECT_EQ(counts["jdk.CPUTimeSample"], kSamples);
  EXPECT_EQ(counts["jdk.ActiveRecording"], static_cast<int64_t>(chunks.size())) << "one per chunk";
  EXPECT_EQ(counts["jdk.CPUInformation"], static_cast<int64_t>(chunks.size()));

  auto print =
      test::runJfr(test::jdk17Home(), {"print", "--json", "--stack-depth", "64", "--events", "CPUTimeSample", path});
  ASSERT_EQ(print.exitCode, 0) << print.err;
  Json document = Json::parse(print.out);
  auto samples = test::eventsOfType(document, "jdk.CPUTimeSample");
  ASSERT_EQ(samples.size(), static_cast<size_t>(kSamples));
  for (size_t i = 0; i < samples.size(); ++i) {
    const Json& s = *samples[i];
    int64_t offset =
        test::isoInstantNanos(s["startTime"].string()) - test::isoInstantNanos((*samples[0])["startTime"].string());
    size_t index = static_cast<size_t>(offset / kMs);
    ASSERT_LT(index, drawn.size());
    ASSERT_FALSE(s["stackTrace"].isNull()) << "sample " << index;
    const Json& frames = s["stackTrace"]["frames"];
    ASSERT_EQ(frames.size(), static_cast<size_t>(kDepth)) << "sample " << index;
    ASSERT_EQ(frames[0]["method"]["name"].string(), "leaf" + std::to_string(drawn[index])) << "sample " << index;
    ASSERT_EQ(frames[kDepth - 1]["method"]["type"]["name"].string(), "com/example/Pool");
    ASSERT_EQ(s["eventThread"]["javaName"].string(), "worker");
  }

  // A middle chunk cut out on its own is a complete recording.
  std::string middle = dir.file("middle.jfr");
  {
    const auto& c = chunks[chunks.size() / 2];
    std::ofstream(middle, std::ios::binary) << bytes.substr(c.fileOffset, c.size);
  }
  auto alone = test::runJfr(test::jdk17Home(), {"print", "--json", "--stack-depth", "64", middle});
  ASSERT_EQ(alone.exitCode, 0) << alone.err;
  Json aloneDocument = Json::parse(alone.out);
  auto aloneSamples = test::eventsOfType(aloneDocument, "jdk.CPUTimeSample");
  EXPECT_GT(aloneSamples.size(), 100u);
  for (const Json* s : aloneSamples) {
    ASSERT_EQ((*s)["stackTrace"]["frames"].size(), static_cast<size_t>(kDepth));
    ASSERT_EQ((*s)["stackTrace"]["frames"][1]["method"]["name"].string(), "caller1");
    ASSERT_EQ((*s)["eventThread"]["osThreadId"].integer(), 77);
  }
  EXPECT_EQ(test::eventsOfType(aloneDocument, "jdk.ActiveRecording").size(), 1u);
  EXPECT_EQ(test::eventsOfType(aloneDocument, "jdk.CPUInformation").size(), 1u);
}

TEST(JfrWriterChunks, ExplicitRotationRepeatsConstantsInEachChunk) {
  if (!haveJdk17()) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  test::TempDir dir;
  std::string path = dir.file("rotated.jfr");
  {
    Recording r({.path = path, .settings = {{"jdk.CPUTimeSample", "throttle", "1 ms"}}});
    ClassId cls = r.internClass("com/example/Same");
    MethodId method = r.internMethod(cls, "run", "()V");
    ThreadId thread = r.internThread({"same", 5, "same", 5});
    std::vector<StackFrame> frames{{method, 3, 4, FrameType::JitCompiled}};
    for (int chunk = 0; chunk < 4; ++chunk) {
      r.cpuTimeSample(Recording::now(), frames, false, thread, false, kMs, false);
      r.methodTiming(Recording::now(), method, chunk + 1, 10, 20, 30);
      if (chunk < 3) r.rotate();
    }
    EXPECT_EQ(r.stats().chunks, 3u) << "rotate() writes the chunk at once";
    r.close();
    EXPECT_EQ(r.stats().chunks, 4u);
    EXPECT_EQ(r.stats().stackTraces, 4u) << "the same stack is written once per chunk";
  }
  auto chunks = test::chunkHeaders(test::readFile(path));
  ASSERT_EQ(chunks.size(), 4u);

  auto summary = test::runJfr(test::jdk17Home(), {"summary", path});
  ASSERT_EQ(summary.exitCode, 0) << summary.err;
  EXPECT_EQ(test::summaryChunks(summary.out), 4);
  auto counts = test::summaryCounts(summary.out);
  EXPECT_EQ(counts["jdk.OSInformation"], 4);
  EXPECT_EQ(counts["jdk.ActiveSetting"], 4 * 3);  // throttle + enabled for the two types in use, per chunk

  auto print = test::runJfr(test::jdk17Home(),
                            {"print", "--json", "--events", "CPUTimeSample,MethodTiming,ActiveSetting", path});
  ASSERT_EQ(print.exitCode, 0) << print.err;
  Json doc = Json::parse(print.out);
  auto samples = test::eventsOfType(doc, "jdk.CPUTimeSample");
  ASSERT_EQ(samples.size(), 4u);
  for (const Json* s : samples) {
    EXPECT_EQ((*s)["stackTrace"]["frames"][0]["method"]["name"].string(), "run");
    EXPECT_EQ((*s)["stackTrace"]["frames"][0]["method"]["type"]["name"].string(), "com/example/Same");
    EXPECT_EQ((*s)["eventThread"]["osName"].string(), "same");
  }
  auto timings = test::eventsOfType(doc, "jdk.MethodTiming");
  ASSERT_EQ(timings.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ((*timings[i])["method"]["name"].string(), "run");
    EXPECT_EQ((*timings[i])["invocations"].integer(), static_cast<int64_t>(i + 1));
  }
  int throttles = 0;
  for (const Json* s : test::eventsOfType(doc, "jdk.ActiveSetting"))
    if ((*s)["name"].string() == "throttle" && (*s)["value"].string() == "1 ms") ++throttles;
  EXPECT_EQ(throttles, 4);
}

// Strings events refer to through the chunk's pool (an off-CPU sample's state, a context's attributes) read
// back as written in every chunk, though each chunk interns its own: the JDK keeps what it resolved for a key
// in the chunk before, so a key never names two strings.
TEST(JfrWriterChunks, PooledStringsReadBackInEveryChunk) {
  if (!haveJdk17()) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  test::TempDir dir;
  std::string path = dir.file("pooled.jfr");
  const std::vector<std::string> states = {"sleeping", "parked", "preempted", "unknown"};
  {
    Recording r({.path = path});
    ThreadId thread = r.internThread({"waiter", 7, "waiter", 7});
    for (size_t chunk = 0; chunk < states.size(); ++chunk) {
      // Each chunk's first string is another one: its key would be 1 in every chunk if keys started afresh.
      r.offCpuSample(Recording::now(), kMs, thread, {}, false, kMs, states[chunk], 0);
      r.offCpuSample(Recording::now(), kMs, thread, {}, false, kMs, states[(chunk + 1) % states.size()], 0);
      r.rotate();
    }
    r.close();
  }
  auto print = test::runJfr(test::jdk17Home(), {"print", "--json", "--events", "jfrbpf.OffCPUSample", path});
  ASSERT_EQ(print.exitCode, 0) << print.err;
  Json doc = Json::parse(print.out);
  auto waits = test::eventsOfType(doc, "jfrbpf.OffCPUSample");
  ASSERT_EQ(waits.size(), 2 * states.size());
  for (size_t i = 0; i < waits.size(); ++i) {
    const size_t chunk = i / 2;
    EXPECT_EQ((*waits[i])["state"].string(), states[(chunk + i % 2) % states.size()]) << "event " << i;
  }
}

// Events carry the OpenTelemetry context fields from the chunk the first context appears in: the chunk before
// keeps the metadata its events were written with, and the JDK reads both.
TEST(JfrWriterChunks, ContextFieldsStartWithTheFirstContext) {
  if (!haveJdk17()) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  test::TempDir dir;
  std::string path = dir.file("context.jfr");
  {
    Recording r({.path = path});
    ClassId cls = r.internClass("com/example/Checkout");
    MethodId method = r.internMethod(cls, "pay", "()V");
    ThreadId thread = r.internThread({"worker", 9, "worker", 9});
    std::vector<StackFrame> frames{{method, 3, 4, FrameType::JitCompiled}};
    r.cpuSample(Recording::now(), frames, false, thread, false, kMs);
    r.cpuSample(Recording::now(), frames, false, thread, false, kMs, 1,
                {.traceIdHi = 0x4bf92f3577b34da6, .traceIdLo = 0x23ce929d0e0e4736, .spanId = 0x00f067aa0ba902b7,
                 .traceFlags = 1, .attributes = "http.route=/checkout, http.method=POST"});
    r.cpuSample(Recording::now(), frames, false, thread, false, kMs, 1, {.notRead = "record unreadable"});
    r.close();
  }
  auto print = test::runJfr(test::jdk17Home(), {"print", "--json", "--events", "jdk.CPUTimeSample", path});
  ASSERT_EQ(print.exitCode, 0) << print.err;
  Json doc = Json::parse(print.out);
  auto samples = test::eventsOfType(doc, "jdk.CPUTimeSample");
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_FALSE((*samples[0]).has("spanId")) << "the first chunk has no context fields";
  EXPECT_EQ((*samples[1])["traceIdHi"].integer(), 0x4bf92f3577b34da6);
  EXPECT_EQ((*samples[1])["traceIdLo"].integer(), 0x23ce929d0e0e4736);
  EXPECT_EQ((*samples[1])["spanId"].integer(), 0x00f067aa0ba902b7);
  EXPECT_EQ((*samples[1])["traceFlags"].integer(), 1);
  EXPECT_EQ((*samples[1])["contextAttributes"].string(), "http.route=/checkout, http.method=POST");
  EXPECT_EQ((*samples[2])["spanId"].integer(), 0);
  EXPECT_EQ((*samples[2])["contextNotRead"].string(), "record unreadable");
  EXPECT_EQ((*samples[2])["stackTrace"]["frames"][0]["method"]["name"].string(), "pay");
}

// A long recording in a file per period: each file opens on its own, holds its own constants, settings and
// the events recorded while it was current, and appears under its name only when finished.
TEST(JfrWriterChunks, ContinueInFinishesTheFileAndGoesOnInANewOne) {
  if (!haveJdk17()) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  test::TempDir dir;
  const std::vector<std::string> paths{dir.file("a.jfr"), dir.file("b.jfr"), dir.file("c.jfr")};
  {
    Recording r({.path = paths[0], .settings = {{"jdk.CPUTimeSample", "throttle", "1 ms"}}});
    // Constants start afresh in each file: whoever keeps ids interns again when the generation changes.
    ThreadId thread = 0;
    std::vector<StackFrame> frames;
    auto intern = [&] {
      MethodId method = r.internMethod(r.internClass("com/example/Same"), "run", "()V");
      thread = r.internThread({"same", 5, "same", 5});
      frames = {{method, 3, 4, FrameType::JitCompiled}};
    };
    intern();
    for (size_t file = 0; file < paths.size(); ++file) {
      for (size_t i = 0; i <= file; ++i) r.cpuTimeSample(Recording::now(), frames, false, thread, false, kMs, false);
      r.rotate();  // more than one chunk in a file
      r.cpuTimeSamplesLost(Recording::now(), static_cast<int32_t>(file + 1), thread);
      if (file + 1 == paths.size()) break;
      EXPECT_EQ(partFiles(dir).size(), 1u) << "the current file is still a temporary one";
      const uint32_t generation = r.constantsGeneration();
      EXPECT_EQ(r.continueIn(paths[file + 1]), std::nullopt);
      EXPECT_NE(r.constantsGeneration(), generation) << "the new file's constants start afresh";
      intern();
      EXPECT_TRUE(std::ifstream(paths[file]).good()) << "finished, under its name";
      EXPECT_EQ(r.stats().bytesWritten, 0u) << "the new file has nothing yet";
    }
    const uint32_t generation = r.constantsGeneration();
    EXPECT_NE(r.continueIn(dir.file("missing/d.jfr")), std::nullopt) << "an uncreatable file is reported";
    EXPECT_EQ(r.constantsGeneration(), generation) << "the current file goes on with its constants";
    r.cpuTimeSample(Recording::now(), frames, false, thread, false, kMs, false);  // still goes to c.jfr
    r.close();
  }
  EXPECT_TRUE(partFiles(dir).empty());
  for (size_t file = 0; file < paths.size(); ++file) {
    auto print =
        test::runJfr(test::jdk17Home(), {"print", "--json", "--events", "CPUTimeSample,CPUTimeSamplesLost,ActiveSetting,ActiveRecording", paths[file]});
    ASSERT_EQ(print.exitCode, 0) << print.err;
    Json doc = Json::parse(print.out);
    auto samples = test::eventsOfType(doc, "jdk.CPUTimeSample");
    EXPECT_EQ(samples.size(), file + 1 + (file + 1 == paths.size() ? 1 : 0)) << paths[file];
    for (const Json* s : samples) {
      EXPECT_EQ((*s)["stackTrace"]["frames"][0]["method"]["name"].string(), "run");
      EXPECT_EQ((*s)["eventThread"]["osName"].string(), "same");
    }
    auto lost = test::eventsOfType(doc, "jdk.CPUTimeSamplesLost");
    ASSERT_EQ(lost.size(), 1u);
    EXPECT_EQ((*lost[0])["lostSamples"].integer(), static_cast<int64_t>(file + 1));
    int throttles = 0;
    for (const Json* s : test::eventsOfType(doc, "jdk.ActiveSetting"))
      if ((*s)["name"].string() == "throttle") ++throttles;
    EXPECT_EQ(throttles, 2) << "the settings, in each chunk of each file";
    for (const Json* a : test::eventsOfType(doc, "jdk.ActiveRecording"))
      EXPECT_EQ((*a)["destination"].string(), paths[file]);
  }
}

// `dump --check` shows what a file being written holds: its constants and what its chunks wrote, not the
// chunk buffer reserved up front, which stays unwritten (and not resident) until events fill it.
TEST(JfrWriterChunks, MemoryIsWhatTheChunksWroteAndTheConstantsHold) {
  test::TempDir dir;
  Recording r({.path = dir.file("a.jfr")});
  const Recording::Memory empty = r.memory();
  EXPECT_GT(empty.unwritten, size_t{8} << 20) << "a whole chunk (12 MiB by default) is reserved";
  EXPECT_LT(empty.held, size_t{1} << 20);

  std::vector<std::vector<StackFrame>> stacks;
  for (int i = 0; i < 5000; ++i) {
    const std::string name = "com/example/AClassWithAFairlyLongName" + std::to_string(i);
    stacks.push_back({{r.internMethod(r.internClass(name), "run", "()V"), i, 0, FrameType::JitCompiled}});
  }
  const ThreadId thread = r.internThread({"worker", 5, "worker", 5});
  const Recording::Memory interned = r.memory();
  EXPECT_GT(interned.held, empty.held + 5000 * 40) << "each class's name and its method";

  for (const auto& frames : stacks) r.cpuTimeSample(Recording::now(), frames, false, thread, false, kMs, false);
  const Recording::Memory written = r.memory();
  EXPECT_GT(written.held, interned.held + 5000 * 10) << "the events and their stack traces";
  EXPECT_LT(written.unwritten, empty.unwritten) << "what the events took of the reserved buffer";

  r.rotate();
  const Recording::Memory rotated = r.memory();
  EXPECT_LT(rotated.unwritten, empty.unwritten) << "a buffer once written to stays resident";
  ASSERT_EQ(r.continueIn(dir.file("b.jfr")), std::nullopt);
  // The next file's constants start afresh; the buffers keep their size.
  EXPECT_LT(r.memory().held, rotated.held - (interned.held - empty.held) / 2);
  r.close();
}

// The JDK reuses the previous chunk's thread constants by key, so renamed threads must still show their
// new names in later chunks, and in the chunk where the rename happened.
TEST(JfrWriterChunks, ThreadNamesLearntLaterShowUp) {
  if (!haveJdk17()) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  test::TempDir dir;
  std::string path = dir.file("renamed.jfr");
  Ticks t0 = Recording::now();
  {
    Recording r({.path = path});
    ThreadId thread = r.internThread({"pool-1", 4244, "", 0});
    r.cpuTimeSamplesLost(t0 + 1 * kMs, 1, thread);
    r.rotate();
    r.updateThread(thread, {"pool-1", 4244, "pool-1-thread-1", 23});
    r.cpuTimeSamplesLost(t0 + 2 * kMs, 2, thread);
    r.rotate();
    r.cpuTimeSamplesLost(t0 + 3 * kMs, 3, thread);
    r.updateThread(thread, {"pool-1", 4244, "renamed", 23});
    r.cpuTimeSamplesLost(t0 + 4 * kMs, 4, thread);
    r.close();
  }
  auto print = test::runJfr(test::jdk17Home(), {"print", "--json", "--events", "CPUTimeSamplesLost", path});
  ASSERT_EQ(print.exitCode, 0) << print.err;
  Json document = Json::parse(print.out);
  auto lost = test::eventsOfType(document, "jdk.CPUTimeSamplesLost");
  ASSERT_EQ(lost.size(), 4u);
  std::map<int64_t, const Json*> byCount;
  for (const Json* e : lost) byCount[(*e)["lostSamples"].integer()] = &(*e)["eventThread"];
  EXPECT_TRUE((*byCount[1])["javaName"].isNull()) << "before the name was known";
  EXPECT_EQ((*byCount[2])["javaName"].string(), "pool-1-thread-1");
  // Recorded before the second rename under a key the previous chunk resolved: the JDK keeps that name.
  EXPECT_EQ((*byCount[3])["javaName"].string(), "pool-1-thread-1");
  EXPECT_EQ((*byCount[4])["javaName"].string(), "renamed");
  EXPECT_EQ((*byCount[4])["javaThreadId"].integer(), 23);
  EXPECT_EQ((*byCount[1])["osThreadId"].integer(), 4244);
}

TEST(JfrWriterChunks, AgeRotationFollowsTheCallersClock) {
  test::TempDir dir;
  std::string aged = dir.file("aged.jfr"), unaged = dir.file("unaged.jfr");
  {
    Recording r({.path = aged, .maxChunkAge = 60'000 * kMs});
    r.rotateIfDue(Recording::now());
    EXPECT_EQ(r.stats().chunks, 0u) << "not due yet";
    r.note(Recording::now(), "info", "first chunk");
    r.rotateIfDue(Recording::now() + 61'000 * kMs);
    EXPECT_EQ(r.stats().chunks, 1u);
    r.rotateIfDue(Recording::now() + 1'000 * kMs);
    EXPECT_EQ(r.stats().chunks, 1u) << "the age counts from the new chunk's start";
    r.close();
  }
  {
    Recording r({.path = unaged});
    r.rotateIfDue(Recording::now() + 365LL * 24 * 3600 * 1000 * kMs);
    r.close();
    EXPECT_EQ(r.stats().chunks, 1u) << "maxChunkAge 0 never rotates by age";
  }
  EXPECT_EQ(test::chunkHeaders(test::readFile(aged)).size(), 2u);
  EXPECT_EQ(test::chunkHeaders(test::readFile(unaged)).size(), 1u);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"aged.jfr", "unaged.jfr"}));
}

TEST(JfrWriterChunks, DestructorFinishesAnUnclosedRecording) {
  test::TempDir dir;
  std::string path = dir.file("raii.jfr");
  {
    Recording r({.path = path});
    ThreadId thread = r.internThread({"t", 1, "", 0});
    r.cpuTimeSamplesLost(Recording::now(), 9, thread);
    EXPECT_EQ(partFiles(dir).size(), 1u) << "recording into a temporary file";
    EXPECT_EQ(dir.entries().size(), 1u) << "the destination does not exist before close";
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"raii.jfr"}) << "renamed into place, no temporary file left";
  auto chunks = test::chunkHeaders(test::readFile(path));
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].flags, 3u);
  mode_t mask = umask(0);
  umask(mask);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600 & ~mask) << "private: it holds other processes' stacks and names";
  if (!haveJdk17()) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  auto print = test::runJfr(test::jdk17Home(), {"print", "--json", "--events", "CPUTimeSamplesLost", path});
  ASSERT_EQ(print.exitCode, 0) << print.err;
  Json document = Json::parse(print.out);
  auto lost = test::eventsOfType(document, "jdk.CPUTimeSamplesLost");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ((*lost[0])["lostSamples"].integer(), 9);
}

TEST(JfrWriterChunks, CloseTwiceAndEventsAfterCloseAreHarmless) {
  test::TempDir dir;
  Recording r({.path = dir.file("closed.jfr")});
  r.note(Recording::now(), "info", "before");
  r.close();
  auto stats = r.stats();
  EXPECT_NO_THROW(r.close());
  r.note(Recording::now(), "info", "after");
  r.rotate();
  EXPECT_EQ(r.stats().events, stats.events);
  EXPECT_EQ(r.stats().chunks, stats.chunks);
  EXPECT_EQ(test::readFile(dir.file("closed.jfr")).size(), stats.bytesWritten);
}

TEST(JfrWriterChunks, AbandonLeavesNothingAndKeepsAnExistingDestination) {
  test::TempDir dir;
  std::string path = dir.file("kept.jfr");
  { std::ofstream(path) << "previous contents"; }
  {
    Recording r({.path = path});
    r.note(Recording::now(), "info", "never written");
    r.rotate();
    EXPECT_EQ(partFiles(dir).size(), 1u);
    r.abandon();
    EXPECT_NO_THROW(r.close());
    r.note(Recording::now(), "info", "ignored");
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"kept.jfr"}) << "temporary file removed";
  EXPECT_EQ(test::readFile(path), "previous contents");
}

// A crash (no destructor, no close) leaves the temporary file holding every complete chunk: a valid recording.
TEST(JfrWriterChunks, CrashLeavesOnlyCompleteChunks) {
  test::TempDir dir;
  std::string path = dir.file("crashed.jfr");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto* r = new Recording({.path = path});  // never destroyed: the process dies with it open
    ThreadId thread = r->internThread({"t", 1, "", 0});
    for (int chunk = 0; chunk < 3; ++chunk) {
      for (int i = 0; i < 10; ++i) r->cpuTimeSamplesLost(Recording::now(), chunk * 10 + i, thread);
      if (chunk < 2) r->rotate();
    }
    _exit(0);  // the third chunk is still in memory
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  auto parts = partFiles(dir);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(dir.entries().size(), 1u) << "no destination file without close";
  std::string part = dir.file(parts[0]);
  auto chunks = test::chunkHeaders(test::readFile(part));  // throws on a partial chunk
  ASSERT_EQ(chunks.size(), 2u);
  for (const auto& c : chunks) EXPECT_EQ(c.state, 0u);
  if (!haveJdk17()) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  auto summary = test::runJfr(test::jdk17Home(), {"summary", part});
  ASSERT_EQ(summary.exitCode, 0) << summary.err;
  EXPECT_EQ(test::summaryChunks(summary.out), 2);
  EXPECT_EQ(test::summaryCounts(summary.out)["jdk.CPUTimeSamplesLost"], 20);
}

TEST(JfrWriterChunks, UnwritableDestinationsThrowWithPathAndFix) {
  test::TempDir dir;
  std::string regularFile = dir.file("not-a-dir");
  { Recording(RecordingOptions{.path = regularFile}).close(); }
  struct Case {
    std::string path, expect;
  } cases[] = {
      {dir.file("missing/sub/app.jfr"), "No such file or directory"},
      {regularFile + "/app.jfr", "Not a directory"},
      {dir.path(), "is a directory"},
      {"/proc/self/app.jfr", ""},
  };
  for (const auto& c : cases) {
    try {
      Recording r({.path = c.path});
      ADD_FAILURE() << "no error for " << c.path;
    } catch (const Error& e) {
      std::string message = e.what();
      EXPECT_NE(message.find(c.path), std::string::npos) << message;
      EXPECT_NE(message.find(c.expect), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
      EXPECT_NE(message.find('('), std::string::npos) << "names a fix: " << message;
    }
  }
  EXPECT_THROW(Recording({.path = ""}), Error);
  EXPECT_THROW(Recording({.path = dir.file("zero.jfr"), .maxChunkBytes = 0}), Error);
  EXPECT_THROW(Recording({.path = dir.file("bad.jfr"), .settings = {{"jdk.GarbageCollection", "enabled", "true"}}}),
               Error);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"not-a-dir"}) << "failed constructors leave nothing behind";
}

// A write that fails mid-recording (here: RLIMIT_FSIZE, as on a full disk) loses whole chunks only; close()
// reports it and the file that remains is valid.
TEST(JfrWriterChunks, WriteFailuresLoseWholeChunksAndCloseReportsThem) {
  test::TempDir dir;
  std::string path = dir.file("limited.jfr");
  constexpr rlim_t kFileLimit = 100 * 1024;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    rlimit limit{kFileLimit, kFileLimit};
    setrlimit(RLIMIT_FSIZE, &limit);
    int code = 1;
    try {
      Recording r({.path = path, .maxChunkBytes = 32 * 1024});
      ThreadId thread = r.internThread({"t", 1, "", 0});
      for (int i = 0; i < 20000; ++i) r.cpuTimeSamplesLost(Recording::now(), i, thread);
      r.close();
    } catch (const Error& e) {
      std::string message = e.what();
      code = message.find("limited.jfr' is missing") != std::string::npos &&
                     message.find("File too large") != std::string::npos
                 ? 0
                 : 2;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "close() must throw an Error naming the file and the cause";
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"limited.jfr"}) << "what was written is still moved into place";
  std::string bytes = test::readFile(path);
  EXPECT_LE(bytes.size(), kFileLimit);
  auto chunks = test::chunkHeaders(bytes);  // only complete chunks, nothing trailing
  EXPECT_GE(chunks.size(), 2u);
  if (!haveJdk17()) GTEST_SKIP() << "no jfr tool in " << test::jdk17Home();
  auto summary = test::runJfr(test::jdk17Home(), {"summary", path});
  EXPECT_EQ(summary.exitCode, 0) << summary.err;
  EXPECT_EQ(test::summaryChunks(summary.out), static_cast<int>(chunks.size()));
}

}  // namespace
}  // namespace jfrbpf::jfr
