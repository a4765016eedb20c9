// Java frames through the agent (issue 4) on JVMs started without -XX:+PreserveFramePointer: method names,
// frame types, line numbers, hidden classes and lambdas, Java thread names and ids, JNI and zlib calls, as
// `jfr print --json` shows them; on JDK 17 and JDK 25. The JVMs are attached to right after their threads
// start, so the recordings hold code compiled before and after the agent arrived.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/java_e2e/printed_samples.h"
#include "tests/java_e2e/workloads.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {
namespace {

class JavaFrames : public ::testing::TestWithParam<int> {};

// A Java native method's own frame is "Native" however it was called, as the JDK reports it.
size_t nativeMethodsNotTypedNative(const std::vector<JfrSample>& samples, std::string& example) {
  size_t wrong = 0;
  for (const JfrSample& s : samples) {
    for (const JfrFrame& f : s.frames) {
      if ((f.modifiers & 0x0100) != 0 && f.type != "Native") {
        if (wrong++ == 0) example = f.name() + " [" + f.type + "]\n" + s.describe();
      }
    }
  }
  return wrong;
}

// Every announced thread's samples carry its Java name, OS name and Java thread id.
void expectThreadIdentity(const WorkerThreads& workers, std::map<int64_t, std::vector<const JfrSample*>>& byThread,
                          size_t minSamples) {
  for (const auto& [name, worker] : workers) {
    const auto& samples = byThread[worker.tid];
    EXPECT_GE(samples.size(), minSamples) << "thread " << name << " burns CPU all the time";
    for (const JfrSample* s : samples) {
      if (s->javaName != name || s->osName != name || s->javaThreadId != worker.javaThreadId) {
        ADD_FAILURE() << "thread " << name << " (tid " << worker.tid << ", javaThreadId " << worker.javaThreadId
                      << ") recorded as javaName '" << s->javaName << "', osName '" << s->osName << "', javaThreadId "
                      << s->javaThreadId;
        break;
      }
    }
  }
}

void expectCompleteStacks(const WorkerThreads& workers, std::map<int64_t, std::vector<const JfrSample*>>& byThread,
                          int jdk, const std::string& label, double percent = 99.0) {
  for (const auto& [name, worker] : workers) {
    EXPECT_GE(rootCompletenessPercent(byThread[worker.tid], jdk, label + " " + name), percent)
        << "samples of " << name << " must walk down to Thread.run and clone3";
  }
}

// hot-primes: Hot.computePrimes on top, called from Hot.run at the tagged call site.
void expectHotPrimes(const std::vector<const JfrSample*>& samples, bool interpretedOnly) {
  const std::string file = "HotMethods.java";
  const LineRange body = bodyLines(file, "primes-decl", "primes-return");
  const std::set<int> loop = {taggedLine(file, "primes-outer"), taggedLine(file, "primes-inner"),
                              taggedLine(file, "primes-test"), taggedLine(file, "primes-count")};
  const int callSite = taggedLine(file, "hot-run-calls-primes");
  auto onTop = where(samples, [](const JfrSample& s) {
    const JfrFrame* top = s.topJavaFrame();
    return top && top->name() == "Hot.computePrimes";
  });
  EXPECT_GE(onTop.size(), samples.size() * 8 / 10) << "hot-primes runs Hot.computePrimes nearly all the time";
  EXPECT_GE(percentWithout(
                onTop,
                [&](const JfrSample& s) {
                  size_t at = static_cast<size_t>(s.find("Hot", "computePrimes"));
                  const JfrFrame& leaf = s.frames[at];
                  if (!body.contains(leaf.line)) return "computePrimes at line " + std::to_string(leaf.line);
                  if (interpretedOnly && leaf.type != "Interpreted") return "computePrimes is " + leaf.type;
                  return frameProblem(s, at + 1, "Hot.run", callSite);
                },
                "hot-primes: computePrimes in its body, called from Hot.run at its call site"),
            99.0);
  EXPECT_GE(percentWithout(
                onTop,
                [&](const JfrSample& s) {
                  int line = s.frames[static_cast<size_t>(s.find("Hot", "computePrimes"))].line;
                  return loop.count(line) ? "" : "line " + std::to_string(line) + " is not a loop line";
                },
                "hot-primes: computePrimes on its loop lines"),
            80.0);
}

// inline-chain: Inline.c called from b, a and run at their tagged call sites; C2 inlines c, b and a.
void expectInlineChain(const std::vector<const JfrSample*>& samples, bool interpretedOnly) {
  const std::string file = "HotMethods.java";
  const LineRange cBody = bodyLines(file, "c-decl", "c-return");
  const int bCallsC = taggedLine(file, "b-calls-c"), aCallsB = taggedLine(file, "a-calls-b");
  const int runCallsA = taggedLine(file, "run-calls-a"), runLoop = taggedLine(file, "run-loop");
  const LineRange runBody = bodyLines(file, "run-decl", "run-calls-a");
  // A caller at its call of a(), or at the loop's head where C2 may put the back edge's safepoint poll (0.5-1.3 %
  // of the samples on JDK 25). On top, in its own code (the loop's bookkeeping, the store to sink), any line of
  // its body: which one C2's debug information gives such a pc is the JIT's choice (line 49 for 1.7 % of the
  // samples in one JDK 25 run).
  EXPECT_GE(percentWithout(
                samples,
                [&](const JfrSample& s) {
                  int run = s.find("Inline", "run");
                  if (run < 0) return std::string("no Inline.run frame");
                  const JfrFrame& frame = s.frames[static_cast<size_t>(run)];
                  if (run == 0) {
                    return runBody.contains(frame.line) ? std::string()
                                                        : "Inline.run on top at line " + std::to_string(frame.line);
                  }
                  return frame.line == runLoop ? std::string() : lineProblem(frame, runCallsA);
                },
                "inline-chain: Inline.run at its call of a() or its loop head, or on top in its body"),
            99.0);
  auto withC = where(samples, [](const JfrSample& s) { return s.find("Inline", "c") >= 0; });
  // Without DebugNonSafepoints, code compiled before the agent arrived attributes parts of the inlined loop
  // to the caller's next safepoint (as it would for the JDK's own sampler): how many samples show c depends
  // on what the JIT compiled before the attach. Enough of them to judge the chain below is what this needs.
  ASSERT_GE(withC.size(), 30u) << "inline-chain spends nearly all its time in Inline.c";
  EXPECT_GE(percentWithout(
                withC,
                [&](const JfrSample& s) {
                  size_t at = static_cast<size_t>(s.find("Inline", "c"));
                  if (!cBody.contains(s.frames[at].line))
                    return "Inline.c at line " + std::to_string(s.frames[at].line);
                  std::string problem = frameProblem(s, at + 1, "Inline.b", bCallsC);
                  if (problem.empty()) problem = frameProblem(s, at + 2, "Inline.a", aCallsB);
                  if (problem.empty()) problem = frameProblem(s, at + 3, "Inline.run", runCallsA);
                  for (size_t i = at; problem.empty() && interpretedOnly && i <= at + 3; ++i) {
                    if (s.frames[i].type != "Interpreted") problem = s.frames[i].name() + " is " + s.frames[i].type;
                  }
                  return problem;
                },
                "inline-chain: c <- b <- a <- run at their call sites"),
            99.0);
  if (!interpretedOnly) {
    auto inlined = where(withC, [](const JfrSample& s) {
      size_t at = static_cast<size_t>(s.find("Inline", "c"));
      return at + 3 < s.frames.size() && s.frames[at].type == "Inlined" && s.frames[at + 1].type == "Inlined" &&
             (s.frames[at + 2].type == "JIT compiled" ||
              (s.frames[at + 2].type == "Inlined" && s.frames[at + 3].type == "JIT compiled"));
    });
    EXPECT_GT(inlined.size(), 0u) << "C2 inlines c and b into a compiled frame of a or run";
  }
}

// lambdas: the lambda's body behind its hidden Lambdas$$Lambda class, and HiddenWork.spin of a hidden class
// behind a method handle, each at its tagged call site in Lambdas.run.
void expectLambdasAndHiddenClasses(const std::vector<const JfrSample*>& samples) {
  const LineRange lambdaBody = bodyLines("HotMethods.java", "lambda-decl", "lambda-return");
  const LineRange hiddenBody = bodyLines("HiddenWork.java", "hidden-decl", "hidden-return");
  const int callsOp = taggedLine("HotMethods.java", "lambdas-calls-op");
  const int callsHidden = taggedLine("HotMethods.java", "lambdas-calls-hidden");
  auto indexOf = [](const JfrSample& s, auto&& match) {
    for (size_t i = 0; i < s.frames.size(); ++i) {
      if (match(s.frames[i])) return static_cast<int>(i);
    }
    return -1;
  };
  auto isLambdaBody = [](const JfrFrame& f) { return f.className == "Lambdas" && startsWith(f.method, "lambda$run$"); };
  auto isHiddenSpin = [](const JfrFrame& f) { return startsWith(f.className, "HiddenWork/0x") && f.method == "spin"; };

  auto inLambda = where(samples, [&](const JfrSample& s) { return indexOf(s, isLambdaBody) >= 0; });
  auto inHidden = where(samples, [&](const JfrSample& s) { return indexOf(s, isHiddenSpin) >= 0; });
  EXPECT_GE(inLambda.size(), samples.size() / 5) << "the lambda's body takes a good part of the thread's time";
  EXPECT_GE(inHidden.size(), samples.size() / 5) << "the hidden class's method takes a good part of the thread's time";
  EXPECT_GE(percentWithout(
                inLambda,
                [&](const JfrSample& s) -> std::string {
                  size_t at = static_cast<size_t>(indexOf(s, isLambdaBody));
                  if (!lambdaBody.contains(s.frames[at].line))
                    return "lambda at line " + std::to_string(s.frames[at].line);
                  if (at + 1 >= s.frames.size()) return "nothing below the lambda";
                  const JfrFrame& via = s.frames[at + 1];
                  if (!startsWith(via.className, "Lambdas$$Lambda") || !via.hidden || via.method != "applyAsInt") {
                    return "the lambda is not called through its hidden class but from " + via.name();
                  }
                  int run = s.find("Lambdas", "run", at);
                  return run < 0 ? "no Lambdas.run frame" : lineProblem(s.frames[static_cast<size_t>(run)], callsOp);
                },
                "lambdas: lambda body <- hidden Lambdas$$Lambda.applyAsInt <- Lambdas.run"),
            99.0);
  EXPECT_GE(percentWithout(
                inHidden,
                [&](const JfrSample& s) -> std::string {
                  size_t at = static_cast<size_t>(indexOf(s, isHiddenSpin));
                  if (!s.frames[at].hidden) return "HiddenWork.spin is not marked hidden";
                  if (!hiddenBody.contains(s.frames[at].line))
                    return "spin at line " + std::to_string(s.frames[at].line);
                  int run = s.find("Lambdas", "run", at);
                  return run < 0 ? "no Lambdas.run frame"
                                 : lineProblem(s.frames[static_cast<size_t>(run)], callsHidden);
                },
                "lambdas: hidden HiddenWork.spin <- Lambdas.run"),
            99.0);
}

std::map<std::string, size_t> javaFrameTypes(const std::vector<JfrSample>& samples) {
  std::map<std::string, size_t> types;
  for (const JfrSample& s : samples) {
    for (const JfrFrame& f : s.frames) {
      if (f.isJava()) ++types[f.type];
    }
  }
  return types;
}

TEST_P(JavaFrames, HotMethodsShowNamesTypesLinesAndThreads) {
  const int jdk = GetParam();
  JAVA_E2E_REQUIRE(jdk);
  ScratchDir dir("java-e2e-hot-" + std::to_string(jdk));
  Workload jvm(javaCommand(jdk, {}, "HotMethods"), 3);
  ASSERT_EQ(jvm.threads().size(), 3u);
  RecordedSamples recorded;
  ASSERT_NO_FATAL_FAILURE(recordAndRead(jvm.pid(), dir.file("hot.jfr"), "3s", recorded));
  auto& byThread = recorded.byThread;
  expectThreadIdentity(jvm.threads(), byThread, 50);
  expectHotPrimes(fullyResolved(byThread[jvm.tid("hot-primes")], "hot-primes"), false);
  expectInlineChain(fullyResolved(byThread[jvm.tid("inline-chain")], "inline-chain"), false);
  expectLambdasAndHiddenClasses(fullyResolved(byThread[jvm.tid("lambdas")], "lambdas"));
  auto types = javaFrameTypes(recorded.all);
  EXPECT_GT(types["JIT compiled"], 0u);
  EXPECT_GT(types["Inlined"], 0u);
  expectCompleteStacks(jvm.threads(), byThread, jdk, "HotMethods");
  // A file of one JVM describes it as the JDK's own do, in every chunk: what JMC's JVM page shows and OTLP
  // export names the process by.
  ChildProcess jfr({jdkHome(jdk) + "/bin/jfr", "print", "--events", "jdk.JVMInformation", dir.file("hot.jfr")});
  const std::string printed = jfr.readAll(std::chrono::seconds(60));
  EXPECT_NE(printed.find("pid = " + std::to_string(jvm.pid()) + "\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("javaArguments = \"HotMethods"), std::string::npos) << printed;
}

// Launch mode: the agent comes in with -agentpath before the first Java instruction, so every frame of the
// workload's threads is known from the start.
TEST_P(JavaFrames, HotMethodsLaunchedUnderJfrbpfShowTheSameFrames) {
  const int jdk = GetParam();
  JAVA_E2E_REQUIRE(jdk);
  ScratchDir dir("java-e2e-launch-" + std::to_string(jdk));
  std::string out = dir.file("launch.jfr");
  // Measured 99.0-100 %: the JVM compiles most of its code during these 3 s, and a frame caught while
  // HotSpot deoptimizes or installs it may not be named.
  constexpr double kLaunchedPercent = 98.0;
  // A thread's first milliseconds, before the agent has reported it, have walks out of VM code that cannot
  // use its JavaFrameAnchor yet: measured 0-82 incomplete samples, each within 25 ms of the thread's first
  // sample where timed. They are set aside (and counted) here; the checks are about the rest.
  constexpr int64_t kThreadStartNanos = 150'000'000;
  std::vector<std::string> argv{jfrbpfBinary(), "record", "--interval", "1ms", "-o", out, "--"};
  for (const std::string& arg : javaCommand(jdk, {}, "HotMethods", {"3"})) argv.push_back(arg);
  RunResult r = run(argv);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  WorkerThreads workers = announcedThreads(r.output);
  ASSERT_EQ(workers.size(), 3u) << r.output;

  std::vector<JfrSample> samples = printedSamples(out);
  expectReaderAgrees(out, samples);
  auto byThread = samplesByThread(samples);
  expectThreadIdentity(workers, byThread, 50);
  std::map<int64_t, std::vector<const JfrSample*>> settled;
  for (const auto& [name, worker] : workers) {
    const auto& all = byThread[worker.tid];
    int64_t first = INT64_MAX;
    for (const JfrSample* s : all) {
      if (s->startNanosOfDay >= 0) first = std::min(first, s->startNanosOfDay);
    }
    size_t early = 0, earlyIncomplete = 0;
    for (const JfrSample* s : all) {
      if (s->startNanosOfDay < 0 || s->startNanosOfDay - first >= kThreadStartNanos) {
        settled[worker.tid].push_back(s);
      } else {
        ++early;
        if (!reachesThreadRoot(*s, jdk)) ++earlyIncomplete;
      }
    }
    std::printf("[ figure ] JDK %d launched %s: %zu samples in the thread's first 150 ms set aside, %zu of them "
                "incomplete\n",
                jdk, name.c_str(), early, earlyIncomplete);
    ASSERT_GE(settled[worker.tid].size(), all.size() / 2) << name << ": most samples come after its start";
  }
  for (const auto& [name, worker] : workers) {
    EXPECT_GE(percentWithout(
                  settled[worker.tid],
                  [](const JfrSample& s) -> std::string {
                    for (const JfrFrame& f : s.frames) {
                      if (isUnresolved(f)) return "unresolved frame " + f.name() + " [" + f.type + "]";
                    }
                    return "";
                  },
                  "JDK " + std::to_string(jdk) + " launched " + name + ": every frame named"),
              kLaunchedPercent);
  }
  expectHotPrimes(fullyResolved(settled[workers["hot-primes"].tid], "hot-primes"), false);
  expectInlineChain(fullyResolved(settled[workers["inline-chain"].tid], "inline-chain"), false);
  expectLambdasAndHiddenClasses(fullyResolved(settled[workers["lambdas"].tid], "lambdas"));
  expectCompleteStacks(workers, settled, jdk, "launched HotMethods", kLaunchedPercent);
}

TEST_P(JavaFrames, InterpretedOnlyJvmShowsInterpretedFramesWithExactLines) {
  const int jdk = GetParam();
  JAVA_E2E_REQUIRE(jdk);
  ScratchDir dir("java-e2e-xint-" + std::to_string(jdk));
  Workload jvm(javaCommand(jdk, {"-Xint"}, "HotMethods"), 3);
  ASSERT_EQ(jvm.threads().size(), 3u);
  RecordedSamples recorded;
  ASSERT_NO_FATAL_FAILURE(recordAndRead(jvm.pid(), dir.file("xint.jfr"), "3s", recorded));
  auto& byThread = recorded.byThread;
  expectThreadIdentity(jvm.threads(), byThread, 50);
  expectHotPrimes(fullyResolved(byThread[jvm.tid("hot-primes")], "hot-primes"), true);
  expectInlineChain(fullyResolved(byThread[jvm.tid("inline-chain")], "inline-chain"), true);
  auto types = javaFrameTypes(recorded.all);
  EXPECT_GT(types["Interpreted"], 0u);
  EXPECT_EQ(types["JIT compiled"], 0u) << "-Xint compiles nothing";
  EXPECT_EQ(types["Inlined"], 0u) << "-Xint compiles nothing";
  expectCompleteStacks(jvm.threads(), byThread, jdk, "-Xint HotMethods");
}

// Native frames (library + symbol) above the Java native method's frame ("Native", as the JDK reports it),
// and below it the complete Java stack: for a JNI library of our own and for zlib under Deflater.
TEST_P(JavaFrames, JniAndZlibShowNativeFramesAboveTheCompleteJavaStack) {
  const int jdk = GetParam();
  JAVA_E2E_REQUIRE(jdk);
  ScratchDir dir("java-e2e-jni-" + std::to_string(jdk));
  Workload jvm(javaCommand(jdk, {"-Djava.library.path=" + jniLibraryDir()}, "NativeCalls"), 2);
  ASSERT_EQ(jvm.threads().size(), 2u);
  RecordedSamples recorded;
  ASSERT_NO_FATAL_FAILURE(recordAndRead(jvm.pid(), dir.file("jni.jfr"), "3s", recorded));
  auto& byThread = recorded.byThread;
  expectThreadIdentity(jvm.threads(), byThread, 50);

  const int callsNative = taggedLine("NativeCalls.java", "calls-native");
  const auto jni = fullyResolved(byThread[jvm.tid("jni-caller")], "jni-caller");
  auto withChain = where(jni, [](const JfrSample& s) { return s.find("libjavae2e_jni.so", "jni_inner") >= 0; });
  EXPECT_GE(withChain.size(), jni.size() * 9 / 10) << "jni-caller spends nearly all its time in jni_inner";
  EXPECT_GE(percentWithout(
                withChain,
                [&](const JfrSample& s) {
                  const std::vector<std::string> expected = {
                      "libjavae2e_jni.so.jni_inner",  "libjavae2e_jni.so.jni_middle",
                      "libjavae2e_jni.so.jni_outer",  "libjavae2e_jni.so.Java_NativeCalls_nativeSpin",
                      "NativeCalls.nativeSpin",       "NativeCalls.callNative",
                      "NativeCalls.callNativeForever"};
                  size_t inner = static_cast<size_t>(s.find("libjavae2e_jni.so", "jni_inner"));
                  for (size_t i = 0; i < expected.size(); ++i) {
                    std::string problem = frameProblem(s, inner + i, expected[i]);
                    if (!problem.empty()) return problem;
                  }
                  return lineProblem(s.frames[inner + 5], callsNative);
                },
                "jni-caller: jni_inner <- jni_middle <- jni_outer <- JNI entry <- nativeSpin <- callers"),
            99.0);

  // zlib is the system's libz.so.1 under JDK 17 and bundled into libzip.so by Temurin 25: either way its
  // deflate() sits right above libzip's JNI function, and above that only zlib's own frames (and the libc
  // and kernel functions zlib calls).
  const int callsDeflate = taggedLine("NativeCalls.java", "compress-calls-deflate");
  const auto deflater = fullyResolved(byThread[jvm.tid("deflater")], "deflater");
  auto jniFunction = [](const JfrSample& s) {
    return s.find("libzip.so", "Java_java_util_zip_Deflater_deflateBytesBytes");
  };
  auto inZlib = where(deflater, [&](const JfrSample& s) {
    int jni = jniFunction(s);
    return jni > 0 && s.frames[static_cast<size_t>(jni) - 1].method == "deflate";
  });
  EXPECT_GE(inZlib.size(), deflater.size() / 2) << "Deflater at level 9 spends most of its time in zlib";
  EXPECT_GE(percentWithout(
                inZlib,
                [&](const JfrSample& s) -> std::string {
                  size_t jni = static_cast<size_t>(jniFunction(s));
                  const std::string& zlib = s.frames[jni - 1].className;
                  if (!startsWith(zlib, "libz.so") && zlib != "libzip.so") return "deflate() is in " + zlib;
                  for (size_t i = 0; i + 1 < jni; ++i) {
                    const std::string& owner = s.frames[i].className;
                    if (owner != zlib && owner != "libc.so.6" && owner != "kernel")
                      return s.frames[i].name() + " above zlib's deflate()";
                  }
                  std::string problem = frameProblem(s, jni + 1, "java/util/zip/Deflater.deflateBytesBytes");
                  if (!problem.empty()) return problem;
                  int compress = s.find("NativeCalls", "compress", jni + 1);
                  if (compress < 0) return "no NativeCalls.compress frame";
                  for (size_t i = jni + 1; i < static_cast<size_t>(compress); ++i) {
                    if (!startsWith(s.frames[i].className, "java/util/zip/")) {
                      return s.frames[i].name() + " between Deflater.deflateBytesBytes and NativeCalls.compress";
                    }
                  }
                  return lineProblem(s.frames[static_cast<size_t>(compress)], callsDeflate);
                },
                "deflater: zlib <- Java_java_util_zip_Deflater_deflateBytesBytes <- Deflater <- compress"),
            99.0);
  std::string example;
  EXPECT_EQ(nativeMethodsNotTypedNative(recorded.all, example), 0u)
      << "Java native methods must be typed Native (as jdk.ExecutionSample does), also when called from the "
         "interpreter; first: "
      << example;
  expectCompleteStacks(jvm.threads(), byThread, jdk, "NativeCalls");
}

// Classes, methods and compiled code a few milliseconds old when sampled: the agent reports them after the
// fact, and the recording must still name every frame (no anonymous code-cache frames, no interpreter frames
// without their method).
TEST_P(JavaFrames, CodeCreatedDuringTheRecordingIsResolved) {
  const int jdk = GetParam();
  JAVA_E2E_REQUIRE(jdk);
  ScratchDir dir("java-e2e-churn-" + std::to_string(jdk));
  Workload jvm(javaCommand(jdk, {}, "ClassChurn"), 1);
  ASSERT_EQ(jvm.threads().size(), 1u);
  RecordedSamples recorded;
  ASSERT_NO_FATAL_FAILURE(recordAndRead(jvm.pid(), dir.file("churn.jfr"), "3s", recorded, {"JFRBPF_DEBUG=1"}));
  auto& byThread = recorded.byThread;
  const auto& churn = byThread[jvm.tid("churn")];
  ASSERT_GE(churn.size(), 50u);
  // The walker trusts the code blobs it checked until the JVM frees code, which a uprobe sees: the churn frees
  // hundreds of blocks a second (measured 600/s on JDK 17 and 25), and every check below runs under them.
  std::optional<uint64_t> frees = debugCounter(recorded.output, "code cache frees seen");
  ASSERT_TRUE(frees) << recorded.output;
  std::printf("[ figure ] JDK %d churn: %llu code cache frees seen\n", jdk, static_cast<unsigned long long>(*frees));
  EXPECT_GT(*frees, 100u) << "the uprobes on the code heap's frees must see the churn's frees";
  // Measured 99.5-99.9 % (JDK 17) and 99.5-99.9 % (JDK 25; 97.6-99.3 % before the walker knew the nmethod
  // entry barrier's frame). What is left: frames caught while HotSpot deoptimizes them (the interpreter frame
  // does not hold its Method* yet) and rare walks that stop in runtime stubs or a compiled method's entry.
  constexpr double kChurnPercent = 96.0;
  EXPECT_GE(rootCompletenessPercent(churn, jdk, "ClassChurn churn"), kChurnPercent);
  EXPECT_GE(percentWithout(
                churn,
                [](const JfrSample& s) -> std::string {
                  for (const JfrFrame& f : s.frames) {
                    if (isUnresolved(f)) return "unresolved frame " + f.name() + " [" + f.type + "]";
                  }
                  return s.find("ClassChurn", "churnForever") < 0 ? "no ClassChurn.churnForever frame" : "";
                },
                "JDK " + std::to_string(jdk) + " churn: every frame named, down to ClassChurn.churnForever"),
            kChurnPercent);
  // Since JDK 20, G1 arms every compiled method's entry barrier when the code cache changes: the churn's
  // threads keep passing through the barrier's slow path, whose stub frame holds a cookie word between its
  // saved rbp and its return address. Those walks go on to the root like the others.
  auto inEntryBarrier = where(churn, [](const JfrSample& s) {
    return std::any_of(s.frames.begin(), s.frames.end(),
                       [](const JfrFrame& f) { return f.method.ends_with("method_entry_barrier"); });
  });
  size_t barrierIncomplete = 0;
  for (const JfrSample* s : inEntryBarrier) barrierIncomplete += reachesThreadRoot(*s, jdk) ? 0 : 1;
  std::printf("[ figure ] JDK %d churn: %zu of %zu samples in the nmethod entry barrier reach the root\n", jdk,
              inEntryBarrier.size() - barrierIncomplete, inEntryBarrier.size());
  EXPECT_LE(barrierIncomplete, std::max<size_t>(1, inEntryBarrier.size() / 10));
  auto inSpin = where(churn, [](const JfrSample& s) {
    const JfrFrame* top = s.topJavaFrame();
    return top && startsWith(top->className, "HiddenWork/0x") && top->method == "spin" && top->hidden;
  });
  EXPECT_GE(inSpin.size(), churn.size() / 2) << "most of the time is in the fresh hidden classes' spin";

  // Where the frees cannot be watched (a libjvm without those symbols), every blob is checked in every walk:
  // as complete, only dearer.
  RecordedSamples unwatched;
  ASSERT_NO_FATAL_FAILURE(
      recordAndRead(jvm.pid(), dir.file("unwatched.jfr"), "2s", unwatched, {"JFRBPF_DEBUG=unwatched-code"}));
  EXPECT_EQ(linesWith(unwatched.output, "code frees not watched").size(), 1u) << unwatched.output;
  EXPECT_EQ(debugCounter(unwatched.output, "code cache frees seen"), std::optional<uint64_t>(0)) << unwatched.output;
  const auto& unwatchedChurn = unwatched.byThread[jvm.tid("churn")];
  ASSERT_GE(unwatchedChurn.size(), 50u);
  EXPECT_GE(rootCompletenessPercent(unwatchedChurn, jdk, "ClassChurn churn, code frees not watched"), kChurnPercent);
}

INSTANTIATE_TEST_SUITE_P(JavaE2E, JavaFrames, ::testing::Values(17, 25), jdkTestName);

}  // namespace
}  // namespace jfrbpf::test
