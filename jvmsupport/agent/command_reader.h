#pragma once
// The loader -> agent direction of the channel: commands framed like records ({u32 payload length, u16 type,
// payload}), read without blocking into a buffer bounded by the largest command. Whatever the socket
// delivers is checked like any input: an oversized command breaks the channel rather than the agent.
#include <cstddef>
#include <cstdint>
#include <span>

#include "jvmsupport/agent/channel_socket.h"
#include "jvmsupport/protocol/timing_records.h"

namespace jfrbpf::agent {

class CommandReader {
 public:
  CommandReader() = default;
  CommandReader(const CommandReader&) = delete;
  CommandReader& operator=(const CommandReader&) = delete;
  ~CommandReader();

  enum class Status { kOpen, kClosed, kBroken };
  // Takes what the socket holds now (never blocks). kClosed once the loader closed its end; kBroken for a
  // malformed stream or when memory ran out.
  Status receive(int fd);
  // The next complete command; `payload` stays valid until the next receive() or reset().
  bool next(protocol::CommandType& type, std::span<const uint8_t>& payload);
  // The oldest descriptor received and not yet taken (the one a command like kReadIterator came with), now
  // the caller's to close; -1 if none.
  int takeFd();
  // Forgets everything (between sessions), closes the descriptors not taken and frees the buffer.
  void reset();

 private:
  bool reserve(size_t total);
  void keep(const ReceivedFds& received);

  static constexpr size_t kMaxFds = 8;
  int fds_[kMaxFds];
  size_t fdCount_ = 0;

  uint8_t* buffer_ = nullptr;
  size_t capacity_ = 0;
  size_t size_ = 0;      // bytes held
  size_t consumed_ = 0;  // bytes of whole commands already handed out
  bool broken_ = false;
};

}  // namespace jfrbpf::agent
