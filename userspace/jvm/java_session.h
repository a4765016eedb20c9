#pragma once
// One recording's connection to one JVM's agent: the channel, the stream parser and the model built from
// it. Single-threaded by design: the loader's thread polls fd() for POLLIN (or just calls drain()
// regularly) and resolves samples against model() on the same thread, so lookups take no locks. drain()
// never blocks. Everything received is hostile: a malformed stream, a wrong token or more metadata than
// the memory bound ends the session (and closes the channel, which makes the agent go quiet).
#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "jvmsupport/protocol/records.h"
#include "jvmsupport/protocol/timing_records.h"
#include "userspace/jvm/channel_listener.h"
#include "userspace/jvm/java_model.h"
#include "userspace/jvm/record_stream_parser.h"
#include "userspace/jvm/tid_translator.h"

namespace jfrbpf::jvm {

struct SessionLimits {
  uint32_t maxRecordPayload = protocol::kMaxPayload;
  size_t maxModelBytes = size_t{512} << 20;
  // With residentBytes (the loader's RSS): a model may grow past floorBytes, and past the most it held at the
  // start of any earlier drain, only while the loader is under ceilingBytes, and by no more than the room
  // left under it: no one agent takes the loader past its ceiling, and a JVM whose model regrows to the size
  // it had before (a class-churning JVM between two class unloadings) is not cut because another agent
  // floods the loader meanwhile (floorBytes <= maxModelBytes).
  std::function<size_t()> residentBytes;
  size_t ceilingBytes = SIZE_MAX;
  size_t floorBytes = 0;
};

enum class SessionEnd {
  kRunning,
  kVmExited,           // Goodbye(kVmDeath), then the channel closed
  kReplaced,           // another jfrbpf session attached to the same JVM
  kClosed,             // channel closed without Goodbye: the JVM died, or the agent failed
  kProtocolError,      // malformed or hostile stream; error() says what
  kMemoryLimit,        // the model outgrew SessionLimits::maxModelBytes, or the loader's memory budget
};

class JavaSession {
 public:
  // `channel` comes from ChannelListener::accept for `pid`; `token` is that listener's token.
  JavaSession(UniqueFd channel, pid_t pid, const std::array<uint8_t, protocol::kTokenSize>& token,
              SessionLimits limits = {});
  JavaSession(const JavaSession&) = delete;
  JavaSession& operator=(const JavaSession&) = delete;

  // Waits for the agent to connect to `listener` and for its Hello. Throws jfrbpf::Error on timeout or if
  // the stream is not a jfrbpf agent's.
  static std::unique_ptr<JavaSession> accept(ChannelListener& listener, std::chrono::milliseconds timeout,
                                             SessionLimits limits = {});

  // The channel, for poll(POLLIN); -1 once the session is over.
  int fd() const { return channel_.get(); }
  // Applies every byte available now (at most `maxBytes`) without blocking. False once the session is
  // over; end() says how.
  bool drain(size_t maxBytes = size_t{8} << 20);
  // Drains (waiting on the channel) until `done(model())` holds, the session ends, or `timeout` passes.
  // True if `done` became true.
  bool drainUntil(const std::function<bool(const JavaModel&)>& done, std::chrono::milliseconds timeout);
  // Sends a command to the agent, waiting at most `timeout` for the channel to take it; with `fd` (>= 0), a
  // copy of that descriptor goes with it. False if the session is over or the agent does not read.
  bool sendCommand(protocol::CommandType type, std::span<const uint8_t> payload, std::chrono::milliseconds timeout,
                   int fd = -1);

  // Ends the session for the memory budget (kMemoryLimit, `why`) and frees what the model held of methods
  // and code.
  void dropJavaFrames(std::string why);

  bool running() const { return end_ == SessionEnd::kRunning; }
  SessionEnd end() const { return end_; }
  const std::string& error() const { return error_; }
  pid_t pid() const { return pid_; }
  uint64_t bytesReceived() const { return bytesReceived_; }

  const JavaModel& model() const { return model_; }
  JavaModel& model() { return model_; }

 private:
  bool onRecord(protocol::RecordType type, std::span<const uint8_t> payload);
  // What the model may hold during this drain (SessionLimits).
  size_t modelAllowance() const;
  void finish(SessionEnd end, std::string error = {});

  UniqueFd channel_;
  pid_t pid_;
  std::array<uint8_t, protocol::kTokenSize> token_;
  SessionLimits limits_;
  TidTranslator tids_;
  JavaModel model_;
  RecordStreamParser parser_;
  RecordStreamParser::Sink sink_;
  std::vector<uint8_t> buffer_;
  size_t allowance_ = 0;  // modelAllowance() in this drain, 0 until records came
  size_t heldBefore_ = 0;  // the most the model held at the start of a drain
  SessionEnd end_ = SessionEnd::kRunning;
  std::string error_;
  uint64_t bytesReceived_ = 0;
};

}  // namespace jfrbpf::jvm
