#pragma once
// The agent's end of the channel: a connected AF_UNIX stream socket in the abstract namespace (nothing on
// disk), and the non-blocking sends that keep the agent thread responsive.
#include <cstddef>
#include <cstdint>

#include "jvmsupport/agent/agent_options.h"

namespace jfrbpf::agent {

// Connects to the loader's listening socket; -1 on failure (errno kept).
int connectChannel(const AgentOptions& options);

enum class SendResult { kSent, kWouldBlock, kClosed };
// One non-blocking send; `sent` receives the bytes accepted.
SendResult sendSome(int fd, const uint8_t* data, size_t size, size_t& sent);

// Waits until `fd` can take more bytes, the peer is gone, or `timeoutMs` passes; true if writable.
bool waitWritable(int fd, int timeoutMs);

enum class ReceiveResult { kData, kWouldBlock, kClosed };
// Descriptors that came with the bytes received (SCM_RIGHTS, close-on-exec), in order.
struct ReceivedFds {
  static constexpr size_t kMax = 4;
  int fds[kMax];
  size_t count = 0;
};
// One non-blocking receive of at most `capacity` bytes; `received` gets the count (kData only), `fds` the
// descriptors that came with them (beyond kMax: closed).
ReceiveResult receiveSome(int fd, uint8_t* buffer, size_t capacity, size_t& received, ReceivedFds& fds);

}  // namespace jfrbpf::agent
