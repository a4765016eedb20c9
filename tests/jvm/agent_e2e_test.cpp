// The agent in real JVMs (JDK 17, and JDK 25 when installed): launch with -agentpath, late attach with
// jcmd JVMTI.agent_load (twice), -Xint, and JVM exit; the model is checked against the workload's source
// (line markers), /proc (thread names, tids, memory) and the JVM's own bytecode.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <thread>

#include "test_config.h"
#include "tests/support/child_process.h"
#include "tests/support/threads_named.h"
#include "userspace/jvm/java_session.h"
#include "userspace/proc/comm.h"
#include "userspace/proc/files.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/stat.h"

namespace jfrbpf::jvm::test {
namespace {

using namespace std::chrono_literals;
using jfrbpf::test::ChildProcess;
using jfrbpf::test::threadsNamed;

// The JVMs keep their stderr, for the failure messages.
const jfrbpf::test::ChildOptions kKeepStderr{.keepStderr = true};

struct Jdk {
  std::string label;
  std::string home;
};
void PrintTo(const Jdk& jdk, std::ostream* out) { *out << jdk.label; }

std::string agentPath() { return JFRBPF_AGENT_PATH; }
std::string classesDir() { return JFRBPF_JVM_TEST_CLASSES; }

uint64_t nowTicks() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// "LINE:<marker>" comments of the workload source -> their line numbers.
std::map<std::string, int> sourceMarkers() {
  std::map<std::string, int> markers;
  std::ifstream in(std::string(jfrbpf::test::kSourceDir) + "/tests/jvm/java/JvmWorkload.java");
  std::string line;
  std::regex marker("LINE:([a-z-]+)");
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    if (std::regex_search(line, m, marker)) markers[m[1]] = number;
  }
  return markers;
}

const JavaMethod* findMethod(const JavaModel& model, std::string_view className, std::string_view name) {
  const JavaMethod* found = nullptr;
  model.methods().forEachMethod([&](const JavaMethod& m) {
    if (m.name == name && m.klass->name == className) found = &m;
  });
  return found;
}

const JavaMethod* findMethodInClassStartingWith(const JavaModel& model, std::string_view prefix, std::string_view name) {
  const JavaMethod* found = nullptr;
  model.methods().forEachMethod([&](const JavaMethod& m) {
    if (m.name == name && m.klass->name.rfind(prefix, 0) == 0) found = &m;
  });
  return found;
}

// A live compiled blob of JvmWorkload.inlineRoot, preferably the optimized (highest level) one.
const CompiledBlob* rootBlob(const JavaModel& model) {
  const JavaMethod* root = findMethod(model, "JvmWorkload", "inlineRoot");
  const CompiledBlob* found = nullptr;
  model.code().forEachLiveCompiled([&](const CompiledBlob& blob) {
    if (root != nullptr && blob.methodId == root->methodId &&
        (found == nullptr || blob.blob.compLevel > found->blob.compLevel)) {
      found = &blob;
    }
  });
  return found;
}

// A compiled blob of JvmWorkload.inlineRoot whose pc table has the chain leaf <- middle <- inlineRoot.
const CompiledBlob* inlinedRootBlob(const JavaModel& model) {
  const JavaMethod* root = findMethod(model, "JvmWorkload", "inlineRoot");
  const JavaMethod* middle = findMethod(model, "JvmWorkload", "middle");
  const JavaMethod* leaf = findMethod(model, "JvmWorkload", "leaf");
  if (root == nullptr || middle == nullptr || leaf == nullptr) return nullptr;
  const CompiledBlob* found = nullptr;
  model.code().forEachLiveCompiled([&](const CompiledBlob& blob) {
    if (blob.methodId != root->methodId) return;
    for (size_t i = 0; i < blob.pcs.size(); ++i) {
      std::span<const InlineStep> chain = blob.chain(i);
      if (chain.size() == 3 && blob.methodIdOf(chain[0]) == leaf->methodId &&
          blob.methodIdOf(chain[1]) == middle->methodId) {
        found = &blob;
      }
    }
  });
  return found;
}

struct WorkloadThread {
  std::string name;
  int64_t javaId;
};

// CPU time (utime + stime, clock ticks) of a thread of `pid`, from /proc; -1 if gone.
long threadCpuTicks(pid_t pid, pid_t tid) {
  proc::FileData text = proc::readFileAt(AT_FDCWD, proc::taskPath(pid, tid, "stat").c_str(), 4096);
  std::optional<proc::ProcStat> stat = text.ok() ? proc::parseStat(text.bytes) : std::nullopt;
  if (!stat) return -1;
  return static_cast<long>(stat->userTicks + stat->systemTicks);
}

std::vector<WorkloadThread> parseThreads(const std::vector<std::string>& lines) {
  std::vector<WorkloadThread> threads;
  for (const std::string& line : lines) {
    std::istringstream in(line);
    std::string tag, name;
    int64_t id = 0;
    if (in >> tag >> name >> id && tag == "THREAD") threads.push_back({name, id});
  }
  return threads;
}

void printFigures(const std::string& label, const JavaSession& session) {
  const ChannelCounters& c = session.model().counters();
  uint64_t records = 0;
  for (uint64_t r : c.records) records += r;
  std::cout << "[ figures ] " << label << ": " << records << " records, " << session.bytesReceived() << " bytes ("
            << c.records[static_cast<size_t>(protocol::RecordType::kMethod)] << " methods in "
            << c.bytes[static_cast<size_t>(protocol::RecordType::kMethod)] << " bytes, "
            << c.records[static_cast<size_t>(protocol::RecordType::kCompiledMethodLoad)] << " nmethods in "
            << c.bytes[static_cast<size_t>(protocol::RecordType::kCompiledMethodLoad)] << " bytes, "
            << c.records[static_cast<size_t>(protocol::RecordType::kVmStructField)] +
                   c.records[static_cast<size_t>(protocol::RecordType::kVmType)] +
                   c.records[static_cast<size_t>(protocol::RecordType::kVmConstant)]
            << " VMStructs entries), agent replay " << session.model().lastReplayDurationNs() / 1000000
            << " ms, model ~" << (session.model().approximateBytes() >> 10) << " KiB, lost " << c.lostRecords
            << std::endl;
}

// A JVM launched with the agent waits at VMInit until its loader has the initial replay and says go on (as
// `jfrbpf record -- java ...` does once it can walk the JVM's stacks), or for 10 s. The tests do what jfrbpf does
// rather than wait out the hold: 10 s of each launched JVM's test.
void resumeLaunched(JavaSession& session) {
  ASSERT_TRUE(session.drainUntil([](const JavaModel& m) { return m.initialReplayDone(); }, 30s)) << session.error();
  ASSERT_TRUE(session.sendCommand(protocol::CommandType::kResume, {}, 10s)) << session.error();
}

class JvmAgentE2E : public testing::TestWithParam<Jdk> {
 protected:
  void SetUp() override {
    if (GetParam().home.empty()) GTEST_SKIP() << "no " << GetParam().label << " installed";
    java_ = GetParam().home + "/bin/java";
    jcmd_ = GetParam().home + "/bin/jcmd";
    if (access(java_.c_str(), X_OK) != 0) GTEST_SKIP() << java_ << " is not executable";
    markers_ = sourceMarkers();
    ASSERT_GE(markers_.size(), 5u) << "line markers missing from JvmWorkload.java";
  }

  std::vector<std::string> javaCommand(const std::vector<std::string>& vmOptions, const std::string& seconds,
                                       const std::string& burstClasses = "0", bool releaseBurst = false) const {
    std::vector<std::string> argv{java_};
    argv.insert(argv.end(), vmOptions.begin(), vmOptions.end());
    argv.insert(argv.end(), {"-cp", classesDir(), "JvmWorkload", seconds, "2", burstClasses});
    if (releaseBurst) argv.push_back("release");
    return argv;
  }

  // Checks every chain of the inlineRoot blob against the source lines. Code compiled while the agent
  // listened has debug info at every pc (DebugNonSafepoints), so there the full chain must appear.
  void checkInlineChains(const JavaModel& model, const CompiledBlob& blob, bool requireFullChain = true) {
    const JavaMethod* leaf = findMethod(model, "JvmWorkload", "leaf");
    const JavaMethod* middle = findMethod(model, "JvmWorkload", "middle");
    const JavaMethod* root = findMethod(model, "JvmWorkload", "inlineRoot");
    int fullChains = 0;
    JavaFrame frames[16];
    for (const CompiledBlob::PcRecord& pc : blob.pcs) {
      size_t n = model.compiledFrames(blob, blob.start + pc.pcOffset, nowTicks(), frames);
      ASSERT_GE(n, 1u);
      EXPECT_EQ(frames[n - 1].method, root);
      EXPECT_EQ(frames[n - 1].type, jfr::FrameType::JitCompiled);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_NE(frames[i].method, nullptr) << "unknown method in an inline chain";
        if (i + 1 < n) {
          EXPECT_EQ(frames[i].type, jfr::FrameType::Inlined);
        }
        const JavaMethod* callee = i > 0 ? frames[i - 1].method : nullptr;
        if (frames[i].method == leaf) {
          EXPECT_EQ(frames[i].line, markers_["leaf"]);
        }
        if (frames[i].method == middle && callee == leaf) {
          EXPECT_EQ(frames[i].line, markers_["middle-calls-leaf"]);
        }
        if (frames[i].method == root && callee == middle) {
          EXPECT_EQ(frames[i].line, markers_["root-calls-middle"]);
        }
      }
      if (n == 3 && frames[0].method == leaf && frames[1].method == middle) ++fullChains;
    }
    if (requireFullChain) {
      EXPECT_GE(fullChains, 1);
    }
  }

  void checkThreads(const JavaModel& model, pid_t pid, const std::vector<WorkloadThread>& threads) {
    for (const WorkloadThread& t : threads) {
      if (t.name == "jvmtest-rename-me") continue;  // checked by its new name
      const JavaThreadInfo* info = model.threads().byJavaId(t.javaId);
      ASSERT_NE(info, nullptr) << t.name;
      EXPECT_EQ(info->name, t.name);
      ASSERT_GT(info->tid, 0) << t.name;
      EXPECT_EQ(proc::readThreadComm(pid, info->tid), t.name.substr(0, 15));
      EXPECT_EQ(model.threads().byTid(info->tid, nowTicks()), info);
    }
  }

  std::string java_, jcmd_;
  std::map<std::string, int> markers_;
};

TEST_P(JvmAgentE2E, LaunchWithAgentpathResolvesInlinedCodeLambdasHiddenClassesAndThreads) {
  ChannelListener listener;
  ChildProcess jvm(
      javaCommand({"-XX:+PreserveFramePointer", "-agentpath:" + agentPath() + "=" + listener.agentOptions()}, "0"),
      kKeepStderr);
  listener.setTargetPid(jvm.pid());
  std::unique_ptr<JavaSession> session = JavaSession::accept(listener, 30s);
  ASSERT_NO_FATAL_FAILURE(resumeLaunched(*session));
  printFigures(GetParam().label + " launch (at replay end)", *session);

  std::vector<std::string> lines;
  ASSERT_TRUE(jvm.awaitLine("READY", 30s, &lines)) << jvm.stderrText();
  std::vector<WorkloadThread> threads = parseThreads(lines);
  ASSERT_EQ(threads.size(), 3u);

  const JavaModel& model = session->model();
  ASSERT_TRUE(session->drainUntil([](const JavaModel& m) { return inlinedRootBlob(m) != nullptr; }, 60s))
      << "no C2 code for inlineRoot with leaf and middle inlined: " << session->error() << jvm.stderrText();
  ASSERT_TRUE(session->drainUntil(
      [](const JavaModel& m) {
        const JavaThreadInfo* t = nullptr;
        m.threads().forEach([&](const JavaThreadInfo& info) {
          if (info.name == "jvmtest-renamed") t = &info;
        });
        return t != nullptr;
      },
      10s))
      << "the rename was not reported";

  const AgentInfo& agent = *model.agent();
  EXPECT_EQ(agent.sessionNumber, 1u);
  EXPECT_NE(agent.flags & protocol::kHelloLaunched, 0u);
  EXPECT_NE(agent.flags & protocol::kHelloMethodPointers, 0u);
  EXPECT_NE(agent.flags & protocol::kHelloThreadTids, 0u);
  EXPECT_NE(agent.flags & protocol::kHelloCodeBlobInfo, 0u);
  EXPECT_FALSE(agent.vmVersion.empty());

  // Code: the hot method with its inline chains checked against the source, and the blob's frame facts.
  const CompiledBlob* blob = inlinedRootBlob(model);
  checkInlineChains(model, *blob);
  EXPECT_GT(blob->blob.frameSizeWords, 0);
  EXPECT_GT(blob->blob.compileId, 0);
  EXPECT_GE(blob->blob.compLevel, 1);
  EXPECT_LE(blob->blob.compLevel, 4);
  EXPECT_GT(blob->loadTicks, 0u) << "compiled after the session began";
  EXPECT_EQ(model.classify(blob->start, nowTicks()).compiled, blob);

  // The interpreter and the code heaps.
  ASSERT_NE(model.code().interpreter(), nullptr);
  const StubBlob& interpreter = *model.code().interpreter();
  ASSERT_FALSE(model.codeHeaps().empty());
  bool interpreterInHeap = false;
  for (const protocol::CodeHeap& heap : model.codeHeaps()) {
    if (interpreter.start >= heap.committedLow && interpreter.end <= heap.committedHigh) interpreterInHeap = true;
  }
  EXPECT_TRUE(interpreterInHeap);
  EXPECT_EQ(model.classify(interpreter.start + 16, nowTicks()).kind, CodeKind::kInterpreter);
  EXPECT_TRUE(model.vmStructs().fieldOffset("Method", "_constMethod").has_value());
  EXPECT_NE(model.vmStructs().type("ConstMethod"), nullptr);

  // Where virtual threads' frozen frames are (JDK 21+, checked by the agent against JNI): a StackChunk's frames
  // follow all its fields. JDK 17 has no virtual threads.
  const std::optional<protocol::ContinuationLayout>& frozen = model.continuationLayout();
  if (GetParam().label == "jdk17") {
    EXPECT_FALSE(frozen.has_value());
  } else {
    ASSERT_TRUE(frozen.has_value());
    for (uint32_t field : {frozen->chunkParent, frozen->chunkSize, frozen->chunkSp, frozen->chunkBottom}) {
      EXPECT_GE(field, 8u);
      EXPECT_LT(field, frozen->chunkStack);
    }
    EXPECT_GE(frozen->virtualThreadCont, 8u);
    EXPECT_GE(frozen->continuationTail, 8u);
    EXPECT_EQ(frozen->chunkStack % 8, 0u);
    // And where a thread's name is, read back by the agent on its own thread.
    EXPECT_GE(frozen->threadTid, 8u);
    EXPECT_GE(frozen->threadName, 8u);
    EXPECT_GE(frozen->stringValue, 8u);
    EXPECT_GE(frozen->byteArrayLength, 8u);
    EXPECT_GE(frozen->byteArrayBase, frozen->byteArrayLength + 4);
  }

  // A lambda and a class defined with Lookup.defineHiddenClass, both hidden.
  const JavaMethod* lambda = findMethodInClassStartingWith(model, "JvmWorkload$$Lambda", "applyAsInt");
  ASSERT_NE(lambda, nullptr);
  EXPECT_TRUE(lambda->klass->hidden);
  EXPECT_NE(lambda->klass->name.find("/0x"), std::string::npos) << lambda->klass->name;
  const JavaMethod* hidden = findMethodInClassStartingWith(model, "HiddenPayload/0x", "compute");
  ASSERT_NE(hidden, nullptr);
  EXPECT_TRUE(hidden->klass->hidden);
  EXPECT_EQ(hidden->lineForBci(0), markers_["hidden-compute"]);

  // Threads: Java names and ids as the program printed them, tids as the kernel names them.
  checkThreads(model, jvm.pid(), threads);
  for (const WorkloadThread& t : threads) {
    if (t.name != "jvmtest-rename-me") continue;
    const JavaThreadInfo* renamed = model.threads().byJavaId(t.javaId);
    ASSERT_NE(renamed, nullptr);
    EXPECT_EQ(renamed->name, "jvmtest-renamed");
    EXPECT_EQ(proc::readThreadComm(jvm.pid(), renamed->tid), "jvmtest-renamed");
  }
  printFigures(GetParam().label + " launch (after warm-up)", *session);

  kill(jvm.pid(), SIGKILL);
  EXPECT_FALSE(session->drainUntil([](const JavaModel&) { return false; }, 10s));
  EXPECT_EQ(session->end(), SessionEnd::kClosed) << "killed JVM: the channel closes without goodbye";
}

TEST_P(JvmAgentE2E, JvmExitEndsTheSessionCleanly) {
  ChannelListener listener;
  ChildProcess jvm(javaCommand({"-agentpath:" + agentPath() + "=" + listener.agentOptions()}, "2"), kKeepStderr);
  listener.setTargetPid(jvm.pid());
  std::unique_ptr<JavaSession> session = JavaSession::accept(listener, 30s);
  ASSERT_NO_FATAL_FAILURE(resumeLaunched(*session));
  EXPECT_FALSE(session->drainUntil([](const JavaModel&) { return false; }, 30s));
  EXPECT_EQ(session->end(), SessionEnd::kVmExited) << session->error();
  EXPECT_EQ(jvm.wait(10s), 0) << jvm.stderrText();
}

// A JVM launched with the agent whose recorder is gone before it starts (nobody listens on its channel) runs
// at once, unprofiled: it is not held at VMInit for a resume that cannot come (kLaunchHoldMs, 10 s).
TEST_P(JvmAgentE2E, ALaunchedJvmWhoseRecorderIsGoneStartsAtOnce) {
  std::string options;
  {
    ChannelListener gone;
    options = gone.agentOptions();
  }
  const auto started = std::chrono::steady_clock::now();
  ChildProcess jvm(javaCommand({"-agentpath:" + agentPath() + "=" + options}, "1"), kKeepStderr);
  EXPECT_EQ(jvm.wait(60s), 0) << jvm.stderrText();
  const auto ran = std::chrono::steady_clock::now() - started;
  EXPECT_NE(jvm.stderrText().find("not profiling"), std::string::npos) << jvm.stderrText();
  // Its 1-s run took 1.4-2.6 s here (2026-11-28, quiet and beside the other tests), 11-13 s when it was held.
  EXPECT_LT(ran, 8s) << "held for the recorder that is gone";
}

uint64_t monotonicNowNs() {  // the model's clock
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

size_t hiddenPayloadClasses(const JavaModel& m) {
  size_t n = 0;
  m.methods().forEachMethod([&](const JavaMethod& method) {
    if (method.name == "compute" && method.klass->name.rfind("HiddenPayload/0x", 0) == 0) ++n;
  });
  return n;
}

TEST_P(JvmAgentE2E, LostRecordsAreReportedAndAResyncRestoresTheModel) {
  // A 64 KiB agent buffer and a loader that reads nothing until the workload has defined 3000 hidden
  // classes: the agent thread stalls in its replay, so the ClassPrepare callbacks must drop records.
  constexpr size_t kBurst = 3000;
  ChannelListener listener;
  ChildProcess jvm(javaCommand({"-agentpath:" + agentPath() + "=" + listener.agentOptions() + ",buffer:64"}, "0",
                               std::to_string(kBurst)), kKeepStderr);
  listener.setTargetPid(jvm.pid());
  UniqueFd channel = listener.accept(30s);
  // Go on at once rather than at the end of the launch hold (see resumeLaunched), still reading nothing: the
  // command is a record header of length 0.
  uint8_t resume[protocol::kRecordHeaderSize] = {};
  const uint16_t resumeType = static_cast<uint16_t>(protocol::CommandType::kResume);
  std::memcpy(resume + sizeof(uint32_t), &resumeType, sizeof resumeType);
  ASSERT_EQ(send(channel.get(), resume, sizeof resume, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof resume));
  std::vector<std::string> lines;
  ASSERT_TRUE(jvm.awaitLine("BURST", 60s, &lines)) << jvm.stderrText();

  JavaSession session(std::move(channel), jvm.pid(), listener.token());
  bool converged = session.drainUntil(
      [](const JavaModel& m) {
        return m.counters().lostRecords > 0 && m.counters().replays >= 2 && hiddenPayloadClasses(m) > kBurst &&
               inlinedRootBlob(m) != nullptr;
      },
      90s);
  const ChannelCounters& c = session.model().counters();
  ASSERT_TRUE(converged) << "lost " << c.lostRecords << ", replays " << c.replays << ", burst classes "
                         << hiddenPayloadClasses(session.model()) << ", " << session.error();
  EXPECT_EQ(session.model().lastReplay().reason, static_cast<uint32_t>(protocol::ReplayReason::kResync));
  checkInlineChains(session.model(), *inlinedRootBlob(session.model()));
  printFigures(GetParam().label + " 64 KiB buffer", session);
}

// The agent tags each class's mirror, so a class the JVM unloads comes back as a ClassUnload record, and the
// model lets its methods go once past the horizon (a JVM that defines classes without end stays bounded).
TEST_P(JvmAgentE2E, UnloadedClassesAreReportedAndTheirMethodsLetGo) {
  constexpr size_t kBurst = 2000;
  ChannelListener listener;
  ChildProcess jvm(javaCommand({"-agentpath:" + agentPath() + "=" + listener.agentOptions()}, "0",
                               std::to_string(kBurst), /*releaseBurst=*/true), kKeepStderr);
  listener.setTargetPid(jvm.pid());
  std::unique_ptr<JavaSession> session = JavaSession::accept(listener, 30s);
  ASSERT_NE(session, nullptr);
  ASSERT_NO_FATAL_FAILURE(resumeLaunched(*session));
  auto unloads = [](const JavaModel& m) {
    return m.counters().records[static_cast<size_t>(protocol::RecordType::kClassUnload)];
  };
  const bool unloaded = session->drainUntil([&](const JavaModel& m) { return unloads(m) >= kBurst; }, 90s);
  ASSERT_TRUE(unloaded) << unloads(session->model()) << " ClassUnload records; " << session->error() << "\n"
                        << jvm.stderrText();
  const size_t methodsBefore = session->model().methods().methodCount();
  const size_t bytesBefore = session->model().approximateBytes();
  EXPECT_GT(hiddenPayloadClasses(session->model()), kBurst) << "every burst class was reported before";

  session->model().forgetBefore(monotonicNowNs());
  const size_t left = hiddenPayloadClasses(session->model());
  std::cout << "[ figures ] " << GetParam().label << ": " << unloads(session->model()) << " classes unloaded, methods "
            << methodsBefore << " -> " << session->model().methods().methodCount() << ", model ~"
            << (bytesBefore >> 10) << " -> " << (session->model().approximateBytes() >> 10) << " KiB" << std::endl;
  EXPECT_LE(left, 1u) << "only the workload's own hidden class, still in use, keeps its method";
  EXPECT_LE(session->model().methods().methodCount() + kBurst, methodsBefore);
  EXPECT_NE(session->model().methods().byId(findMethod(session->model(), "JvmWorkload", "main")->methodId,
                                            monotonicNowNs()),
            nullptr)
      << "classes still loaded stay";
}

TEST_P(JvmAgentE2E, InterpreterOnlyRunGivesBytecodeAddresses) {
  ChannelListener listener;
  ChildProcess jvm(javaCommand({"-Xint", "-agentpath:" + agentPath() + "=" + listener.agentOptions()}, "0"),
                   kKeepStderr);
  listener.setTargetPid(jvm.pid());
  std::unique_ptr<JavaSession> session = JavaSession::accept(listener, 30s);
  ASSERT_NO_FATAL_FAILURE(resumeLaunched(*session));
  std::vector<std::string> lines;
  ASSERT_TRUE(jvm.awaitLine("READY", 30s, &lines)) << jvm.stderrText();
  ASSERT_TRUE(session->drainUntil(
      [](const JavaModel& m) { return m.initialReplayDone() && findMethod(m, "JvmWorkload", "answer") != nullptr; },
      30s));
  const JavaModel& model = session->model();
  ASSERT_NE(model.code().interpreter(), nullptr);
  model.code().forEachLiveCompiled([&](const CompiledBlob& blob) {
    // -Xint compiles no bytecode; native wrappers and method-handle intrinsics may still appear.
    const JavaMethod* m = model.methods().byId(blob.methodId, nowTicks());
    ASSERT_NE(m, nullptr);
    EXPECT_TRUE((m->modifiers & 0x0100) != 0 || m->klass->name.rfind("java/lang/invoke/", 0) == 0)
        << m->klass->name << "." << m->name << " was compiled under -Xint";
  });

  // answer() is "bipush 42; ireturn": read it where the agent says bytecode 0 is.
  const JavaMethod* answer = findMethod(model, "JvmWorkload", "answer");
  ASSERT_NE(answer, nullptr);
  ASSERT_NE(answer->codeStart, 0u);
  EXPECT_EQ(answer->codeSize, 3u);
  uint8_t code[3] = {};
  iovec local{code, sizeof code};
  iovec remote{reinterpret_cast<void*>(answer->codeStart), sizeof code};
  ASSERT_EQ(process_vm_readv(jvm.pid(), &local, 1, &remote, 1, 0), 3) << "bytecode address not readable";
  EXPECT_EQ(code[0], 0x10);
  EXPECT_EQ(code[1], 42);
  EXPECT_EQ(code[2], 0xac);

  std::optional<JavaFrame> frame = model.interpretedFrame(answer->methodPtr, answer->codeStart, nowTicks());
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->method, answer);
  EXPECT_EQ(frame->bci, 0);
  EXPECT_EQ(frame->line, markers_["answer"]);
  EXPECT_EQ(model.interpretedFrame(answer->methodPtr, answer->codeStart + 2, nowTicks())->bci, 2);
}

TEST_P(JvmAgentE2E, LateAttachReplaysAndASecondAttachReconnects) {
  ChildProcess jvm(javaCommand({}, "0"), kKeepStderr);
  std::vector<std::string> lines;
  ASSERT_TRUE(jvm.awaitLine("READY", 30s, &lines)) << jvm.stderrText();
  std::vector<WorkloadThread> threads = parseThreads(lines);
  std::this_thread::sleep_for(2s);  // let C2 compile the hot path before the agent arrives

  jfrbpf::test::RunResult load =
      jfrbpf::test::run({jcmd_, std::to_string(jvm.pid()), "JVMTI.agent_load", agentPath(), "channel:x"}, 60s);
  ASSERT_EQ(load.exitCode, 0) << load.output;
  EXPECT_NE(load.output.find("return code: 1"), std::string::npos) << "bad options must be refused: " << load.output;

  for (uint32_t round = 1; round <= 2; ++round) {
    ChannelListener listener(jvm.pid());
    load = jfrbpf::test::run(
        {jcmd_, std::to_string(jvm.pid()), "JVMTI.agent_load", agentPath(), listener.agentOptions()}, 60s);
    ASSERT_EQ(load.exitCode, 0) << load.output;
    EXPECT_NE(load.output.find("return code: 0"), std::string::npos) << load.output;
    std::unique_ptr<JavaSession> session = JavaSession::accept(listener, 30s);
    ASSERT_TRUE(session->drainUntil([](const JavaModel& m) { return m.initialReplayDone(); }, 60s)) << session->error();
    printFigures(GetParam().label + " attach #" + std::to_string(round), *session);

    const JavaModel& model = session->model();
    EXPECT_EQ(model.agent()->sessionNumber, round);
    EXPECT_EQ(model.agent()->flags & protocol::kHelloLaunched, 0u);
    // Compiled before the attach, so its debug info exists only at safepoints: lines must still agree.
    const CompiledBlob* blob = rootBlob(model);
    ASSERT_NE(blob, nullptr) << "code compiled before the attach was not replayed";
    EXPECT_EQ(blob->loadTicks, 0u) << "replayed code counts as present from the start";
    EXPECT_GT(blob->blob.frameSizeWords, 0);
    checkInlineChains(model, *blob, false);
    ASSERT_NE(model.code().interpreter(), nullptr);
    checkThreads(model, jvm.pid(), threads);
    EXPECT_NE(findMethodInClassStartingWith(model, "HiddenPayload/0x", "compute"), nullptr);

    session.reset();  // the recording ends: the agent must go quiet
    std::vector<pid_t> agentThreads = threadsNamed(jvm.pid(), "jfrbpf agent");
    ASSERT_EQ(agentThreads.size(), 1u);
    std::this_thread::sleep_for(500ms);
    long before = threadCpuTicks(jvm.pid(), agentThreads[0]);
    std::this_thread::sleep_for(2s);
    long after = threadCpuTicks(jvm.pid(), agentThreads[0]);
    EXPECT_LE(after - before, 2) << "the agent thread keeps running after its channel closed";
  }
}

INSTANTIATE_TEST_SUITE_P(Jvm, JvmAgentE2E,
                         testing::Values(Jdk{"jdk17", jfrbpf::test::kJdkHome}, Jdk{"jdk25", jfrbpf::test::kJdk25Home}),
                         [](const testing::TestParamInfo<Jdk>& info) { return info.param.label; });

}  // namespace
}  // namespace jfrbpf::jvm::test
