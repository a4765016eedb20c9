// The agent thread: opens each session handed over (hello, VM tables, a replay for it alone), then serves
// every open session at once (streaming, periodic thread-name polling, loss reports and bounded resyncs, the
// loader's commands such as method timing, whose instrumentation it removes when its holder's session ends),
// and sleeps without a timeout while no session is open.
#include <errno.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "jvmsupport/agent/agent.h"
#include "jvmsupport/agent/channel_socket.h"
#include "jvmsupport/agent/class_reporter.h"
#include "jvmsupport/agent/clock.h"
#include "jvmsupport/agent/hook_class.h"
#include "jvmsupport/agent/hook_stubs.h"
#include "jvmsupport/agent/jvmti_memory.h"

namespace jfrbpf::agent {

namespace {

constexpr int kPeriodMs = 1000;
constexpr uint64_t kPeriodNs = 1000000000ull;
constexpr int kReplayFlushTimeoutMs = 10000;
constexpr int kGoodbyeFlushTimeoutMs = 500;
// A loader that keeps losing records gets a few full replays, then only the loss counts.
constexpr int kMaxResyncs = 3;
constexpr uint64_t kResyncSpacingNs = 2 * kPeriodNs;

void drainEventFd(int fd) {
  uint64_t count = 0;
  ssize_t ignored = read(fd, &count, sizeof count);
  (void)ignored;
}

std::string_view property(jvmtiEnv* jvmti, const char* name, JvmtiString& owner) {
  if (jvmti->GetSystemProperty(name, owner.out()) != JVMTI_ERROR_NONE || owner.get() == nullptr) return {};
  return owner.get();
}

}  // namespace

void JNICALL Agent::agentThreadMain(jvmtiEnv*, JNIEnv* jni, void* arg) {
  static_cast<Agent*>(arg)->runAgentThread(jni);
}

void Agent::runAgentThread(JNIEnv* jni) {
  agentThread_.store(pthread_self(), std::memory_order_release);
  threadIdentity_.init(jni);
  jthread self = nullptr;
  if (jvmti_->GetCurrentThread(&self) == JVMTI_ERROR_NONE) {
    layout_.verifyThreadLayout(threadIdentity_.javaThreadPointer(jni, self),
                               static_cast<int32_t>(syscall(SYS_gettid)));
    jni->DeleteLocalRef(self);
  }
  layout_.verifyMethodLayout(jvmti_, jni);
  if (jdkMajor_ >= 21) continuationLayout_ = findContinuationLayout(jvmti_, jni, vmStructs_, layout_);

  for (;;) {
    if (vmDying_.load(std::memory_order_acquire)) {
      // No JNI or JVMTI calls from here on: the JVM is going away.
      for (LoaderSession& session : sessions_) {
        if (session.fd >= 0) closeSession(jni, session, !session.broken, protocol::GoodbyeReason::kVmDeath);
      }
      return;
    }
    openPending(jni);
    if (countOpen() == 0) {
      pollfd p{wakeFd_, POLLIN, 0};
      poll(&p, 1, -1);
      drainEventFd(wakeFd_);
      continue;
    }
    serveOpenSessions(jni);
  }
}

size_t Agent::countOpen() const {
  size_t open = 0;
  for (const LoaderSession& session : sessions_) open += session.fd >= 0 ? 1 : 0;
  return open;
}

void Agent::openSession(JNIEnv* jni, LoaderSession& session) {
  session.broken = false;
  session.lostReported = 0;
  session.resyncWanted = false;
  session.resyncs = 0;
  session.lastResyncNs = 0;
  session.lastPeriodicNs = monotonicNs();
  const uint32_t number = nextSessionNumber_.fetch_add(1, std::memory_order_relaxed);
  if (!session.ring.init(session.options.bufferBytes)) {
    closeSession(jni, session, false, protocol::GoodbyeReason::kAgentError);
    return;
  }
  sendHello(session, number);
  const bool first = openSessions_.fetch_add(1, std::memory_order_acq_rel) == 0;
  session.number.store(number, std::memory_order_release);
  if (first) setEventsEnabled(true);
  servedAlone_ = &session;
  sendVmTables();
  replay(jni, session, protocol::ReplayReason::kInitial);
  servedAlone_ = nullptr;
}

void Agent::serveOpenSessions(JNIEnv* jni) {
  pollfd fds[kMaxSessions + 1];
  LoaderSession* polled[kMaxSessions];
  nfds_t count = 0;
  for (LoaderSession& session : sessions_) {
    if (session.fd < 0) continue;
    if (!session.broken) {
      flushNonBlocking(session);
      servedAlone_ = &session;
      periodicWork(jni, session);
      servedAlone_ = nullptr;
    }
    if (session.broken) {
      closeSession(jni, session, false, protocol::GoodbyeReason::kAgentError);
      continue;
    }
    const short wantOut = session.ring.used() > 0 ? POLLOUT : 0;
    polled[count] = &session;
    fds[count++] = {session.fd, static_cast<short>(POLLIN | wantOut), 0};
  }
  fds[count] = {wakeFd_, POLLIN, 0};
  if (poll(fds, count + 1, kPeriodMs) < 0) return;
  if (fds[count].revents != 0) drainEventFd(wakeFd_);
  for (nfds_t i = 0; i < count; ++i) {
    LoaderSession& session = *polled[i];
    if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !receiveCommands(jni, session)) session.broken = true;
    if (session.broken) closeSession(jni, session, false, protocol::GoodbyeReason::kAgentError);
  }
}

void Agent::closeSession(JNIEnv* jni, LoaderSession& session, bool goodbye, protocol::GoodbyeReason reason) {
  const uint32_t number = session.number.load(std::memory_order_acquire);
  if (number != 0 && !vmDying_.load(std::memory_order_acquire)) {
    // Only what this session holds, before events go off: classes loading meanwhile stay as they are, and
    // the other sessions keep what they asked for.
    if (holder(Feature::kMethodTiming) == number) {
      methodTimer_.stop(*this, jni, otherSessions(number) > 0);
      release(Feature::kMethodTiming);
    }
    if (holder(Feature::kAllocations) == number) {
      allocationSampler_.stop(*this);
      release(Feature::kAllocations);
    }
    if (holder(Feature::kLocks) == number) {
      lockProfiler_.stop(*this);
      release(Feature::kLocks);
    }
  }
  if (goodbye && !session.broken) {
    emitGoodbye(session, reason);
    flushBlocking(session, kGoodbyeFlushTimeoutMs);
  }
  if (number != 0) {
    session.number.store(0, std::memory_order_release);
    if (openSessions_.fetch_sub(1, std::memory_order_acq_rel) == 1 && !vmDying_.load(std::memory_order_acquire)) {
      setEventsEnabled(false);
    }
  }
  close(session.fd);
  session.fd = -1;
  session.ring.release();
  session.namePoller.reset();
  session.commands.reset();
  markSessionClosed(session.launched);
  session.launched = false;
}

bool Agent::receiveCommands(JNIEnv* jni, LoaderSession& session) {
  CommandReader::Status status = session.commands.receive(session.fd);
  protocol::CommandType type{};
  std::span<const uint8_t> payload;
  const uint32_t number = session.number.load(std::memory_order_relaxed);
  while (status == CommandReader::Status::kOpen && session.commands.next(type, payload)) {
    // Unknown commands come from a newer loader: nothing this agent can do for them.
    if (type == protocol::CommandType::kStartTiming) methodTimer_.start(*this, jni, number, payload);
    if (type == protocol::CommandType::kStartAllocations) allocationSampler_.start(*this, jni, number, payload);
    if (type == protocol::CommandType::kStartLocks) lockProfiler_.start(*this, jni, number, payload);
    if (type == protocol::CommandType::kResume && session.launched) releaseLaunchHold();
    if (type == protocol::CommandType::kReadIterator) readIterator(session.commands.takeFd());
  }
  return status == CommandReader::Status::kOpen;
}

void Agent::readIterator(int fd) {
  if (fd < 0) return;
  // The program does its work as it runs (here, where the JVM's memory is the current address space); what
  // it prints, if anything, is not for the agent.
  char ignored[256];
  for (;;) {
    ssize_t n = read(fd, ignored, sizeof ignored);
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    break;
  }
  close(fd);
}

void Agent::sendHello(LoaderSession& session, uint32_t number) {
  JvmtiString vmName(jvmti_), vmVersion(jvmti_);
  protocol::Hello hello;
  hello.token = session.options.token;
  hello.pid = static_cast<uint32_t>(getpid());
  hello.sessionNumber = number;
  hello.jvmtiVersion = jvmtiVersion_;
  hello.flags = (session.launched ? protocol::kHelloLaunched : 0) |
                (layout_.methodPointersEnabled() ? protocol::kHelloMethodPointers : 0) |
                (layout_.threadTidsEnabled() ? protocol::kHelloThreadTids : 0) |
                (codeCache_.enabled() ? protocol::kHelloCodeBlobInfo : 0) | protocol::kHelloMethodHooks |
                protocol::kHelloReadsIterators | protocol::kHelloAllocations | protocol::kHelloLocks;
  hello.monotonicNs = monotonicNs();
  hello.vmName = property(jvmti_, "java.vm.name", vmName);
  hello.vmVersion = property(jvmti_, "java.vm.version", vmVersion);

  uint8_t preamble[protocol::kPreambleSize];
  struct PreambleSink {
    uint8_t* at;
    bool append(const void* data, size_t size) {
      std::memcpy(at, data, size);
      at += size;
      return true;
    }
  } sink{preamble};
  protocol::WireWriter<PreambleSink> pw(sink);
  protocol::encodePreamble(pw);

  RecordBuffer record;
  record.begin(protocol::RecordType::kHello);
  Writer w(record);
  protocol::encode(w, hello);
  if (record.finish()) session.ring.resetWith(preamble, sizeof preamble, record.data(), record.size());
}

void Agent::sendVmTables() {
  vmStructs_.forEachField([&](const VmStructEntry& e) {
    protocol::VmStructField r;
    r.typeName = e.typeName != nullptr ? e.typeName : "";
    r.fieldName = e.fieldName != nullptr ? e.fieldName : "";
    r.typeString = e.typeString != nullptr ? e.typeString : "";
    r.isStatic = e.isStatic ? 1 : 0;
    r.offset = e.offset;
    r.address = e.address;
    emitRecord(*this, protocol::RecordType::kVmStructField, r);
  });
  vmStructs_.forEachType([&](const VmTypeEntry& e) {
    protocol::VmType r;
    r.typeName = e.typeName;
    r.superclassName = e.superclassName != nullptr ? e.superclassName : "";
    r.flags = static_cast<uint8_t>((e.isOop ? protocol::kVmTypeOop : 0) | (e.isInteger ? protocol::kVmTypeInteger : 0) |
                                   (e.isUnsigned ? protocol::kVmTypeUnsigned : 0));
    r.size = e.size;
    emitRecord(*this, protocol::RecordType::kVmType, r);
  });
  vmStructs_.forEachConstant([&](const VmConstantEntry& e) {
    protocol::VmConstant r;
    r.name = e.name;
    r.isLong = e.isLong ? 1 : 0;
    r.value = e.value;
    emitRecord(*this, protocol::RecordType::kVmConstant, r);
  });
  if (continuationLayout_) emitRecord(*this, protocol::RecordType::kContinuationLayout, *continuationLayout_);
  protocol::CodeHeap heaps[16];
  size_t count = codeCache_.heaps(heaps, 16);
  for (size_t i = 0; i < count; ++i) emitRecord(*this, protocol::RecordType::kCodeHeap, heaps[i]);
  emitRecord(*this, protocol::RecordType::kHookSites,
             protocol::HookSites{traceHookSite(), kHookClassName});
}

void Agent::replay(JNIEnv* jni, LoaderSession& session, protocol::ReplayReason reason) {
  replaying_ = true;
  replayedCompiled_ = 0;
  replayedCode_ = 0;
  emitRecord(*this, protocol::RecordType::kReplayBegin, protocol::ReplayBegin{static_cast<uint32_t>(reason), monotonicNs()});
  protocol::ReplayEnd end;
  end.reason = static_cast<uint32_t>(reason);
  end.threads = session.namePoller.replay(*this, jni);
  replayClasses(*this, jni, end.classes, end.methods);
  // Both post their events on this thread, before returning.
  jvmti_->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD);
  jvmti_->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  end.compiledMethods = replayedCompiled_;
  end.codeBlobs = replayedCode_;
  end.time = monotonicNs();
  emitRecord(*this, protocol::RecordType::kReplayEnd, end);
  replaying_ = false;
  session.lastResyncNs = end.time;
}

void Agent::periodicWork(JNIEnv* jni, LoaderSession& session) {
  uint64_t now = monotonicNs();
  if (now - session.lastPeriodicNs < kPeriodNs) return;
  session.lastPeriodicNs = now;
  session.namePoller.poll(*this, jni);

  uint64_t lost = session.ring.droppedRecords();
  if (lost != session.lostReported) {
    emitRecord(*this, protocol::RecordType::kLostRecords,
               protocol::LostRecords{now, lost, session.ring.droppedBytes()});
    session.lostReported = lost;
    session.resyncWanted = true;
  }
  if (session.resyncWanted && session.resyncs < kMaxResyncs && session.ring.used() < session.ring.capacity() / 4 &&
      now - session.lastResyncNs >= kResyncSpacingNs) {
    session.resyncWanted = false;
    ++session.resyncs;
    replay(jni, session, protocol::ReplayReason::kResync);
  }
}

void Agent::emitGoodbye(LoaderSession& session, protocol::GoodbyeReason reason) {
  RecordBuffer buffer;
  bool ignored;
  if (encodeRecord(buffer, protocol::RecordType::kGoodbye, protocol::Goodbye{static_cast<uint32_t>(reason), monotonicNs()})) {
    session.ring.tryPush(buffer.data(), buffer.size(), ignored);
  }
}

void Agent::flushNonBlocking(LoaderSession& session) {
  while (!session.broken) {
    size_t available = 0;
    const uint8_t* data = session.ring.peek(available);
    if (available == 0) return;
    size_t sent = 0;
    SendResult result = sendSome(session.fd, data, available, sent);
    if (result == SendResult::kClosed) {
      session.broken = true;
      return;
    }
    session.ring.consume(sent);
    if (result == SendResult::kWouldBlock || sent < available) return;
  }
}

bool Agent::makeRoom(LoaderSession& session) {
  if (!session.broken && flushBlocking(session, kReplayFlushTimeoutMs)) return true;
  session.broken = true;  // its records stop at once; the agent thread closes it
  return false;
}

bool Agent::flushBlocking(LoaderSession& session, int timeoutMs) {
  uint64_t deadline = monotonicNs() + static_cast<uint64_t>(timeoutMs) * 1000000u;
  for (;;) {
    flushNonBlocking(session);
    if (session.broken) return false;
    if (session.ring.used() == 0) return true;
    uint64_t now = monotonicNs();
    if (now >= deadline) return false;
    int waitMs = static_cast<int>((deadline - now) / 1000000u) + 1;
    // Commands read here wait in the reader for the session loop; a close ends the session.
    if (!waitWritable(session.fd, waitMs) && session.commands.receive(session.fd) != CommandReader::Status::kOpen) {
      session.broken = true;
    }
  }
}

}  // namespace jfrbpf::agent
