#include "userspace/jvm/java_session.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "base/fd_passing.h"
#include "userspace/proc/time_namespace.h"

namespace jfrbpf::jvm {

namespace {
constexpr size_t kReadChunk = 256 * 1024;
}

JavaSession::JavaSession(UniqueFd channel, pid_t pid, const std::array<uint8_t, protocol::kTokenSize>& token,
                         SessionLimits limits)
    : channel_(std::move(channel)),
      pid_(pid),
      token_(token),
      limits_(limits),
      tids_(pid),
      model_(proc::monotonicOffsetNs(pid), &tids_),
      parser_(limits.maxRecordPayload),
      sink_([this](protocol::RecordType type, std::span<const uint8_t> payload) { return onRecord(type, payload); }),
      buffer_(kReadChunk) {}

std::unique_ptr<JavaSession> JavaSession::accept(ChannelListener& listener, std::chrono::milliseconds timeout,
                                                 SessionLimits limits) {
  auto start = std::chrono::steady_clock::now();
  UniqueFd channel = listener.accept(timeout);
  auto session = std::make_unique<JavaSession>(std::move(channel), listener.targetPid(), listener.token(), limits);
  auto left = timeout - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  bool hello = session->drainUntil([](const JavaModel& m) { return m.agent().has_value(); },
                                   std::max(left, std::chrono::milliseconds(1000)));
  if (!hello || !session->running()) {
    throw Error("the JVM agent of PID " + std::to_string(listener.targetPid()) + " connected but did not say hello" +
                (session->error().empty() ? std::string() : ": " + session->error()));
  }
  return session;
}

void JavaSession::finish(SessionEnd end, std::string error) {
  if (end_ != SessionEnd::kRunning) return;
  end_ = end;
  error_ = std::move(error);
  channel_.reset();  // the agent sees the close and goes quiet
  buffer_.clear();
  buffer_.shrink_to_fit();
}

void JavaSession::dropJavaFrames(std::string why) {
  finish(SessionEnd::kMemoryLimit, std::move(why));
  model_.dropJavaFrames();
}

bool JavaSession::onRecord(protocol::RecordType type, std::span<const uint8_t> payload) {
  bool hadAgent = model_.agent().has_value();
  if (!model_.apply(type, payload)) return false;
  if (allowance_ == 0) allowance_ = modelAllowance();
  if (model_.approximateBytes() > allowance_) {
    // What it held goes at once: other JVMs' allowances read the loader's RSS meanwhile.
    dropJavaFrames(allowance_ == limits_.maxModelBytes
                       ? "the JVM agent sent more than " + std::to_string(allowance_ >> 20) +
                             " MiB of metadata, a JVM's share of jfrbpf's --memory-limit"
                       : "the JVM agent sent more than " + std::to_string(allowance_ >> 20) +
                             " MiB of metadata while jfrbpf's memory was near its ceiling, " +
                             std::to_string(limits_.ceilingBytes >> 20) + " MiB of its --memory-limit");
    return false;
  }
  if (!hadAgent && model_.agent().has_value() && model_.agent()->token != token_) {
    finish(SessionEnd::kProtocolError, "the agent on the channel did not present this session's token");
    return false;
  }
  return true;
}

size_t JavaSession::modelAllowance() const {
  if (!limits_.residentBytes) return limits_.maxModelBytes;
  const size_t resident = limits_.residentBytes();
  const size_t room = resident < limits_.ceilingBytes ? limits_.ceilingBytes - resident : 0;
  const size_t entitled = std::min(std::max(limits_.floorBytes, heldBefore_), limits_.maxModelBytes);
  return std::clamp(model_.approximateBytes() + room, entitled, limits_.maxModelBytes);
}

bool JavaSession::drain(size_t maxBytes) {
  if (!running()) return false;
  tids_.allowRescan();
  allowance_ = 0;  // read once records come
  heldBefore_ = std::max(heldBefore_, model_.approximateBytes());
  size_t total = 0;
  while (total < maxBytes) {
    ssize_t n = recv(channel_.get(), buffer_.data(), buffer_.size(), MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      finish(model_.goodbye() ? SessionEnd::kVmExited : SessionEnd::kClosed);
      return false;
    }
    if (n == 0) {
      SessionEnd end = SessionEnd::kClosed;
      if (model_.goodbye() == protocol::GoodbyeReason::kVmDeath) end = SessionEnd::kVmExited;
      if (model_.goodbye() == protocol::GoodbyeReason::kReplaced) end = SessionEnd::kReplaced;
      if (parser_.pendingBytes() != 0 && end == SessionEnd::kClosed) {
        finish(end, "the channel closed in the middle of a record");
      } else {
        finish(end);
      }
      return false;
    }
    bytesReceived_ += static_cast<uint64_t>(n);
    total += static_cast<size_t>(n);
    if (!parser_.feed(std::span<const uint8_t>(buffer_.data(), static_cast<size_t>(n)), sink_)) {
      if (running()) {
        finish(SessionEnd::kProtocolError, !model_.error().empty() ? model_.error() : parser_.error());
      }
      return false;
    }
  }
  return true;
}

bool JavaSession::sendCommand(protocol::CommandType type, std::span<const uint8_t> payload,
                              std::chrono::milliseconds timeout, int fd) {
  if (!running() || payload.size() > protocol::kMaxCommandPayload) return false;
  std::vector<uint8_t> bytes(protocol::kRecordHeaderSize);
  uint32_t length = static_cast<uint32_t>(payload.size());
  uint16_t typeValue = static_cast<uint16_t>(type);
  std::memcpy(bytes.data(), &length, sizeof length);
  std::memcpy(bytes.data() + sizeof length, &typeValue, sizeof typeValue);
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  auto deadline = std::chrono::steady_clock::now() + timeout;
  size_t sent = 0;
  while (sent < bytes.size()) {
    // The descriptor goes with the command's first bytes, so the agent has it when the command is whole.
    ssize_t n = sendWithFd(channel_.get(), bytes.data() + sent, bytes.size() - sent, sent == 0 ? fd : -1,
                           MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{channel_.get(), POLLOUT, 0};
    poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
  }
  return true;
}

bool JavaSession::drainUntil(const std::function<bool(const JavaModel&)>& done, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (done(model_)) return true;
    if (!drain()) return done(model_);
    if (done(model_)) return true;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{channel_.get(), POLLIN, 0};
    poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
  }
}

}  // namespace jfrbpf::jvm
