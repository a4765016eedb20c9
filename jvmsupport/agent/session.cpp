// The agent thread: waits for a channel, runs one session at a time (hello, VM tables, replay, streaming,
// periodic thread-name polling, loss reports and bounded resyncs, the loader's commands such as method
// timing, whose instrumentation it removes when the session ends), and sleeps without a timeout between
// sessions.
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
      markSessionClosed();
      return;  // no JNI or JVMTI calls from here on: the JVM is going away
    }
    int fd = -1;
    AgentOptions options;
    if (takePending(fd, options)) {
      runSession(jni, fd, options);
      continue;
    }
    pollfd p{wakeFd_, POLLIN, 0};
    poll(&p, 1, -1);
    drainEventFd(wakeFd_);
  }
}

void Agent::runSession(JNIEnv* jni, int fd, const AgentOptions& options) {
  channelFd_ = fd;
  channelBroken_ = false;
  ++sessionNumber_;
  lostReported_ = 0;
  resyncWanted_ = false;
  resyncs_ = 0;
  lastResyncNs_ = 0;
  lastPeriodicNs_ = monotonicNs();

  if (ring_.init(options.bufferBytes)) {
    sendHello(options);
    sessionActive_.store(true, std::memory_order_release);
    setEventsEnabled(true);
    sendVmTables();
    replay(jni, protocol::ReplayReason::kInitial);
  } else {
    channelBroken_ = true;
  }

  bool goodbye = false;
  protocol::GoodbyeReason reason = protocol::GoodbyeReason::kAgentError;
  while (!channelBroken_) {
    flushNonBlocking();
    if (vmDying_.load(std::memory_order_acquire)) {
      goodbye = true;
      reason = protocol::GoodbyeReason::kVmDeath;
      break;
    }
    pthread_mutex_lock(&handoffLock_);
    bool replaced = pendingFd_ >= 0;
    pthread_mutex_unlock(&handoffLock_);
    if (replaced) {
      goodbye = true;
      reason = protocol::GoodbyeReason::kReplaced;
      break;
    }
    periodicWork(jni);
    short wantOut = ring_.used() > 0 ? POLLOUT : 0;
    pollfd fds[2] = {{fd, static_cast<short>(POLLIN | wantOut), 0}, {wakeFd_, POLLIN, 0}};
    if (poll(fds, 2, kPeriodMs) < 0) continue;
    if (fds[1].revents != 0) drainEventFd(wakeFd_);
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !receiveCommands(jni)) channelBroken_ = true;
  }

  sessionActive_.store(false, std::memory_order_release);
  if (!vmDying_.load(std::memory_order_acquire)) {
    methodTimer_.stop(*this, jni);  // before events go off: classes loading meanwhile stay as they are
    allocationSampler_.stop(*this);
    lockProfiler_.stop(*this);
    setEventsEnabled(false);
  }
  if (goodbye && !channelBroken_) {
    emitGoodbye(reason);
    flushBlocking(kGoodbyeFlushTimeoutMs);
  }
  close(fd);
  channelFd_ = -1;
  ring_.release();
  namePoller_.reset();
  commands_.reset();
  markSessionClosed();
}

bool Agent::receiveCommands(JNIEnv* jni) {
  CommandReader::Status status = commands_.receive(channelFd_);
  protocol::CommandType type{};
  std::span<const uint8_t> payload;
  while (status == CommandReader::Status::kOpen && commands_.next(type, payload)) {
    // Unknown commands come from a newer loader: nothing this agent can do for them.
    if (type == protocol::CommandType::kStartTiming) methodTimer_.start(*this, jni, payload);
    if (type == protocol::CommandType::kStartAllocations) allocationSampler_.start(*this, jni, payload);
    if (type == protocol::CommandType::kStartLocks) lockProfiler_.start(*this, jni, payload);
    if (type == protocol::CommandType::kResume) releaseLaunchHold();
    if (type == protocol::CommandType::kReadIterator) readIterator(commands_.takeFd());
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

void Agent::sendHello(const AgentOptions& options) {
  JvmtiString vmName(jvmti_), vmVersion(jvmti_);
  protocol::Hello hello;
  hello.token = options.token;
  hello.pid = static_cast<uint32_t>(getpid());
  hello.sessionNumber = sessionNumber_;
  hello.jvmtiVersion = jvmtiVersion_;
  hello.flags = (launched_ ? protocol::kHelloLaunched : 0) |
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
  if (record.finish()) ring_.resetWith(preamble, sizeof preamble, record.data(), record.size());
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

void Agent::replay(JNIEnv* jni, protocol::ReplayReason reason) {
  replaying_ = true;
  replayedCompiled_ = 0;
  replayedCode_ = 0;
  emitRecord(*this, protocol::RecordType::kReplayBegin, protocol::ReplayBegin{static_cast<uint32_t>(reason), monotonicNs()});
  protocol::ReplayEnd end;
  end.reason = static_cast<uint32_t>(reason);
  end.threads = namePoller_.replay(*this, jni);
  replayClasses(*this, jni, end.classes, end.methods);
  // Both post their events on this thread, before returning.
  jvmti_->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD);
  jvmti_->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  end.compiledMethods = replayedCompiled_;
  end.codeBlobs = replayedCode_;
  end.time = monotonicNs();
  emitRecord(*this, protocol::RecordType::kReplayEnd, end);
  replaying_ = false;
  lastResyncNs_ = end.time;
}

void Agent::periodicWork(JNIEnv* jni) {
  uint64_t now = monotonicNs();
  if (now - lastPeriodicNs_ < kPeriodNs) return;
  lastPeriodicNs_ = now;
  namePoller_.poll(*this, jni);

  uint64_t lost = ring_.droppedRecords();
  if (lost != lostReported_) {
    emitRecord(*this, protocol::RecordType::kLostRecords, protocol::LostRecords{now, lost, ring_.droppedBytes()});
    lostReported_ = lost;
    resyncWanted_ = true;
  }
  if (resyncWanted_ && resyncs_ < kMaxResyncs && ring_.used() < ring_.capacity() / 4 &&
      now - lastResyncNs_ >= kResyncSpacingNs) {
    resyncWanted_ = false;
    ++resyncs_;
    replay(jni, protocol::ReplayReason::kResync);
  }
}

void Agent::emitGoodbye(protocol::GoodbyeReason reason) {
  RecordBuffer buffer;
  buffer.begin(protocol::RecordType::kGoodbye);
  Writer w(buffer);
  protocol::encode(w, protocol::Goodbye{static_cast<uint32_t>(reason), monotonicNs()});
  bool ignored;
  if (buffer.finish()) ring_.tryPush(buffer.data(), buffer.size(), ignored);
}

void Agent::flushNonBlocking() {
  while (!channelBroken_) {
    size_t available = 0;
    const uint8_t* data = ring_.peek(available);
    if (available == 0) return;
    size_t sent = 0;
    SendResult result = sendSome(channelFd_, data, available, sent);
    if (result == SendResult::kClosed) {
      channelBroken_ = true;
      return;
    }
    ring_.consume(sent);
    if (result == SendResult::kWouldBlock || sent < available) return;
  }
}

bool Agent::makeRoom() {
  if (!channelBroken_ && flushBlocking(kReplayFlushTimeoutMs)) return true;
  channelBroken_ = true;
  sessionActive_.store(false, std::memory_order_release);
  return false;
}

bool Agent::flushBlocking(int timeoutMs) {
  uint64_t deadline = monotonicNs() + static_cast<uint64_t>(timeoutMs) * 1000000u;
  for (;;) {
    flushNonBlocking();
    if (channelBroken_) return false;
    if (ring_.used() == 0) return true;
    uint64_t now = monotonicNs();
    if (now >= deadline) return false;
    int waitMs = static_cast<int>((deadline - now) / 1000000u) + 1;
    // Commands read here wait in the reader for the session loop; a close ends the session.
    if (!waitWritable(channelFd_, waitMs) && commands_.receive(channelFd_) != CommandReader::Status::kOpen) {
      channelBroken_ = true;
    }
  }
}

}  // namespace jfrbpf::agent
