#include "userspace/attach/exchange.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/message_text.h"

namespace jfrbpf::attach {
namespace {

using Clock = std::chrono::steady_clock;

// Waits for `events` until the deadline; false when it passed first.
bool waitFor(int fd, short events, Clock::time_point deadline) {
  while (true) {
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (remaining <= 0) return false;
    pollfd pfd{fd, events, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(remaining, 1000)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) throw systemError("poll on the attach socket");
  }
}

}  // namespace

std::string exchange(UniqueFd socket, std::string_view request, std::chrono::milliseconds timeout,
                     const std::string& whatFor, const std::string& slowHint) {
  const auto deadline = Clock::now() + timeout;
  auto timedOut = [&](const char* phase) {
    return AttachError(AttachFailure::NotResponding,
                       whatFor + " did not " + phase + " within " + inSeconds(timeout.count()) + ": " + slowHint);
  };
  while (!request.empty()) {
    ssize_t sent = ::send(socket.get(), request.data(), request.size(), MSG_NOSIGNAL);
    if (sent > 0) {
      request.remove_prefix(static_cast<size_t>(sent));
    } else if (sent < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!waitFor(socket.get(), POLLOUT, deadline)) throw timedOut("accept the request");
    } else {
      throw systemError(whatFor + ": sending the attach request failed");
    }
  }

  std::string reply;
  char buffer[16 * 1024];
  while (true) {
    ssize_t received = ::recv(socket.get(), buffer, sizeof buffer, 0);
    if (received == 0) return reply;
    if (received > 0) {
      if (reply.size() + static_cast<size_t>(received) > kMaxReplySize) {
        throw AttachError(AttachFailure::ProtocolError, whatFor + " produced a reply over " +
                                                            std::to_string(kMaxReplySize >> 20) + " MiB; giving up");
      }
      reply.append(buffer, static_cast<size_t>(received));
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!waitFor(socket.get(), POLLIN, deadline)) throw timedOut("answer");
    } else if (errno == ECONNRESET) {
      return reply;  // the JVM closed with unread request bytes; what it wrote is the reply
    } else {
      throw systemError(whatFor + ": reading the attach reply failed");
    }
  }
}

}  // namespace jfrbpf::attach
