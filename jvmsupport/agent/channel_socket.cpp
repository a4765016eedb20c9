#include "jvmsupport/agent/channel_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

namespace jfrbpf::agent {

int connectChannel(const AgentOptions& options) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  // A loader whose accept backlog is full must not hold the attaching thread for long.
  timeval timeout{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  int sendBuffer = 1 << 20;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, sizeof sendBuffer);

  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  address.sun_path[0] = '\0';
  std::memcpy(address.sun_path + 1, options.channel.data(), options.channelLength);
  socklen_t length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + options.channelLength);
  int rc;
  do {
    rc = connect(fd, reinterpret_cast<sockaddr*>(&address), length);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

SendResult sendSome(int fd, const uint8_t* data, size_t size, size_t& sent) {
  sent = 0;
  for (;;) {
    ssize_t n = send(fd, data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) {
      sent = static_cast<size_t>(n);
      return SendResult::kSent;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return SendResult::kWouldBlock;
    return SendResult::kClosed;
  }
}

bool waitWritable(int fd, int timeoutMs) {
  pollfd p{fd, POLLOUT, 0};
  int rc = poll(&p, 1, timeoutMs);
  return rc > 0 && (p.revents & POLLOUT) != 0 && (p.revents & (POLLERR | POLLHUP)) == 0;
}

namespace {
void takeDescriptors(msghdr& message, ReceivedFds& fds) {
  for (cmsghdr* h = CMSG_FIRSTHDR(&message); h != nullptr; h = CMSG_NXTHDR(&message, h)) {
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int received = -1;
      std::memcpy(&received, CMSG_DATA(h) + i * sizeof(int), sizeof received);
      if (fds.count < ReceivedFds::kMax) {
        fds.fds[fds.count++] = received;
      } else {
        close(received);
      }
    }
  }
}
}  // namespace

ReceiveResult receiveSome(int fd, uint8_t* buffer, size_t capacity, size_t& received, ReceivedFds& fds) {
  received = 0;
  for (;;) {
    iovec data{buffer, capacity};
    alignas(cmsghdr) char control[CMSG_SPACE(ReceivedFds::kMax * sizeof(int))];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t n = recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n > 0) {
      received = static_cast<size_t>(n);
      takeDescriptors(message, fds);
      return ReceiveResult::kData;
    }
    if (n == 0) return ReceiveResult::kClosed;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? ReceiveResult::kWouldBlock : ReceiveResult::kClosed;
  }
}

}  // namespace jfrbpf::agent
