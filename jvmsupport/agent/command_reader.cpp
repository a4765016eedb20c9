#include "jvmsupport/agent/command_reader.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "jvmsupport/agent/channel_socket.h"

namespace jfrbpf::agent {

namespace {
constexpr size_t kHeaderSize = protocol::kRecordHeaderSize;
constexpr size_t kMaxCommandSize = kHeaderSize + protocol::kMaxCommandPayload;
constexpr size_t kReadChunk = 4096;
}  // namespace

CommandReader::~CommandReader() { reset(); }

void CommandReader::reset() {
  while (fdCount_ > 0) close(fds_[--fdCount_]);
  std::free(buffer_);
  buffer_ = nullptr;
  capacity_ = size_ = consumed_ = 0;
  broken_ = false;
}

bool CommandReader::reserve(size_t total) {
  if (total <= capacity_) return true;
  size_t grown = capacity_ == 0 ? kReadChunk : capacity_;
  while (grown < total) grown *= 2;
  if (grown > kMaxCommandSize + kReadChunk) grown = kMaxCommandSize + kReadChunk;
  if (grown < total) return false;
  void* bigger = std::realloc(buffer_, grown);
  if (bigger == nullptr) return false;
  buffer_ = static_cast<uint8_t*>(bigger);
  capacity_ = grown;
  return true;
}

CommandReader::Status CommandReader::receive(int fd) {
  if (broken_) return Status::kBroken;
  if (consumed_ > 0) {  // drop what was handed out; keep a partial command at the front
    std::memmove(buffer_, buffer_ + consumed_, size_ - consumed_);
    size_ -= consumed_;
    consumed_ = 0;
  }
  for (;;) {
    if (!reserve(size_ + kReadChunk)) {
      broken_ = true;
      return Status::kBroken;
    }
    size_t received = 0;
    ReceivedFds fds;
    ReceiveResult result = receiveSome(fd, buffer_ + size_, kReadChunk, received, fds);
    keep(fds);
    if (result == ReceiveResult::kClosed) return Status::kClosed;
    if (result == ReceiveResult::kWouldBlock) return Status::kOpen;
    size_ += received;
    if (size_ >= kHeaderSize) {
      uint32_t length = 0;
      std::memcpy(&length, buffer_, sizeof length);
      if (length > protocol::kMaxCommandPayload) {
        broken_ = true;
        return Status::kBroken;
      }
    }
  }
}

void CommandReader::keep(const ReceivedFds& received) {
  for (size_t i = 0; i < received.count; ++i) {
    if (fdCount_ < kMaxFds) {
      fds_[fdCount_++] = received.fds[i];
    } else {
      close(received.fds[i]);
    }
  }
}

int CommandReader::takeFd() {
  if (fdCount_ == 0) return -1;
  int fd = fds_[0];
  std::memmove(fds_, fds_ + 1, (fdCount_ - 1) * sizeof(int));
  --fdCount_;
  return fd;
}

bool CommandReader::next(protocol::CommandType& type, std::span<const uint8_t>& payload) {
  if (broken_ || size_ - consumed_ < kHeaderSize) return false;
  const uint8_t* at = buffer_ + consumed_;
  uint32_t length = 0;
  uint16_t typeValue = 0;
  std::memcpy(&length, at, sizeof length);
  std::memcpy(&typeValue, at + 4, sizeof typeValue);
  if (length > protocol::kMaxCommandPayload) {
    broken_ = true;
    return false;
  }
  if (size_ - consumed_ - kHeaderSize < length) return false;
  type = static_cast<protocol::CommandType>(typeValue);
  payload = std::span<const uint8_t>(at + kHeaderSize, length);
  consumed_ += kHeaderSize + length;
  return true;
}

}  // namespace jfrbpf::agent
