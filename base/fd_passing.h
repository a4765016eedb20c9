#pragma once
// Sending a copy of a file descriptor along with bytes over an AF_UNIX socket (SCM_RIGHTS).
#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>
#include <cstring>

namespace jfrbpf {

// One sendmsg of `size` bytes with `flags`; when `passedFd` >= 0 a copy of it goes with the first of them.
// Returns what sendmsg returns.
inline ssize_t sendWithFd(int socket, const void* data, size_t size, int passedFd, int flags) {
  iovec bytes{const_cast<void*>(data), size};
  msghdr message{};
  message.msg_iov = &bytes;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (passedFd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &passedFd, sizeof(int));
  }
  return ::sendmsg(socket, &message, flags);
}

}  // namespace jfrbpf
