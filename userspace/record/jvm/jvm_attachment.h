#pragma once
// jfrbpf's agent attached to one JVM, on a thread of its own, for as long as the JVM lives. A JVM found while
// it starts answers "too early" in several ways: it has no SIGQUIT handler yet, HotSpot's attach listener
// serves the load before JVMTI's live phase, our agent finds no JVMTI environment yet, or the listener does
// not come up. Each is asked again, with back-off, until the JVM can take the agent. Only a real refusal
// (-XX:+DisableAttachMechanism, -XX:-EnableDynamicAgentLoading, not a HotSpot JVM, no permission) or the
// JVM's exit ends it without a connection: the JVM is then recorded with native and kernel frames.
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <semaphore>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.h"
#include "userspace/record/jvm/jvm_connection.h"

namespace jfrbpf::record {

// How many attaches a recording runs at once: an attach mostly waits for its JVM, and a host may start
// dozens of JVMs at once.
using AttachPermits = std::counting_semaphore<64>;
inline constexpr int kConcurrentAttaches = 16;

class JvmAttachment {
 public:
  JvmAttachment(pid_t pid, AttachPermits& permits, jvm::SessionLimits limits);
  // Stops asking; waits for an attempt under way (at most the attach's own timeouts).
  ~JvmAttachment();
  JvmAttachment(const JvmAttachment&) = delete;
  JvmAttachment& operator=(const JvmAttachment&) = delete;

  pid_t pid() const { return pid_; }
  bool done() const { return done_.load(std::memory_order_acquire); }
  // Whether it is done within `timeout`.
  bool waitUntilDone(std::chrono::milliseconds timeout) const;
  // Whether an attempt is under way now (the destructor then waits for it).
  bool attempting() const { return attempting_.load(std::memory_order_acquire); }

  // Once done: the connection, or null. Then failureNote() says why (one line for the user and the file),
  // unless the JVM exited.
  std::unique_ptr<JvmConnection> takeConnection();
  const std::string& failureNote() const { return failureNote_; }
  bool jvmExited() const { return jvmExited_; }
  // Whether the process turned out to be a HotSpot JVM (refused or not): its samples without Java frames
  // are then marked as such.
  bool isJvm() const { return isJvm_; }
  // Once connected: how long after the first attempt, and the JVM's first "too early" answer ("" if none).
  std::chrono::steady_clock::duration waited() const { return waited_; }
  const std::string& firstRefusal() const { return firstRefusal_; }
  // What the attach wants the user to know while it goes on (a JVM that has been starting for long):
  // each note once. Any thread.
  std::vector<std::string> takeNotes();

 private:
  void run(std::stop_token stop);
  // False when the JVM exited or we were asked to stop during `delay`.
  bool pause(std::chrono::milliseconds delay);

  pid_t pid_;
  AttachPermits& permits_;
  jvm::SessionLimits limits_;
  UniqueFd pinned_;   // pidfd: readable once the JVM exited, and its pid cannot be reused meanwhile
  UniqueFd stopped_;  // eventfd: written when the owner stops asking
  std::atomic<bool> done_{false};
  mutable std::mutex doneMutex_;  // waitUntilDone wakes as the attach ends: the first sample waits for it
  mutable std::condition_variable doneChanged_;
  std::atomic<bool> attempting_{false};
  std::unique_ptr<JvmConnection> connection_;
  std::string failureNote_;
  bool jvmExited_ = false;
  bool isJvm_ = true;
  std::chrono::steady_clock::duration waited_{};
  std::string firstRefusal_;
  std::mutex notesMutex_;
  std::vector<std::string> notes_;
  std::jthread thread_;  // last: stopped and joined before the members it uses go
};

}  // namespace jfrbpf::record
