#include "userspace/jvm/channel_listener.h"

#include <poll.h>
#include <sched.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "base/error.h"
#include "userspace/proc/namespaces.h"

namespace jfrbpf::jvm {

namespace {

std::string hex(const uint8_t* data, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[data[i] >> 4]);
    out.push_back(kDigits[data[i] & 15]);
  }
  return out;
}

void randomBytes(uint8_t* out, size_t size) {
  size_t got = 0;
  while (got < size) {
    ssize_t n = getrandom(out + got, size - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw systemError("cannot read random bytes for the agent channel");
    got += static_cast<size_t>(n);
  }
}

bool sameNetworkNamespace(pid_t pid) {
  std::optional<proc::NamespaceId> ours = proc::ourNamespace(proc::NamespaceKind::Network);
  if (!ours) return true;
  std::optional<proc::NamespaceId> theirs = proc::namespaceOf(pid, proc::NamespaceKind::Network);
  if (!theirs) throw systemError("cannot read the network namespace of PID " + std::to_string(pid));
  return *ours == *theirs;
}

// Creates the listening socket; runs on the thread that is in the right network namespace.
int listenAbstract(const std::string& name, int& error) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return error = errno, -1;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path + 1, name.data(), name.size());
  socklen_t length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 || listen(fd, 8) != 0) {
    error = errno;
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

ChannelListener::ChannelListener(pid_t targetPid) : targetPid_(targetPid) { init(!sameNetworkNamespace(targetPid)); }

ChannelListener::ChannelListener() { init(false); }

void ChannelListener::init(bool enterTargetNamespace) {
  uint8_t nameBytes[16];
  randomBytes(nameBytes, sizeof nameBytes);
  randomBytes(token_.data(), token_.size());
  name_ = "jfrbpf-" + hex(nameBytes, sizeof nameBytes);
  const char sep = protocol::kOptionSeparator;
  options_ = std::string(protocol::kOptionChannel) + sep + name_ + "," + std::string(protocol::kOptionToken) + sep +
             hex(token_.data(), token_.size()) + "," + std::string(protocol::kOptionProtocol) + sep +
             std::to_string(protocol::kVersion);

  int error = 0;
  int fd = -1;
  if (!enterTargetNamespace) {
    fd = listenAbstract(name_, error);
  } else {
    // setns() changes only the calling thread; that thread ends right after, the socket keeps the namespace.
    UniqueFd ns = proc::openNamespace(targetPid_, proc::NamespaceKind::Network);
    if (!ns) throw systemError("cannot open the network namespace of PID " + std::to_string(targetPid_));
    bool entered = false;
    std::thread worker([&] {
      if (setns(ns.get(), CLONE_NEWNET) != 0) {
        error = errno;
        return;
      }
      entered = true;
      fd = listenAbstract(name_, error);
    });
    worker.join();
    if (!entered) {
      throw systemError("cannot enter the network namespace of PID " + std::to_string(targetPid_) +
                            " (needs CAP_SYS_ADMIN; run jfrbpf as root)",
                        error);
    }
  }
  if (fd < 0) throw systemError("cannot create the agent channel socket", error);
  socket_.reset(fd);
}

UniqueFd ChannelListener::accept(std::chrono::milliseconds timeout) {
  if (targetPid_ <= 0) throw Error("internal error: the agent channel was not told which process to expect");
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      throw Error("the JVM agent of PID " + std::to_string(targetPid_) + " did not connect within " +
                  std::to_string(timeout.count()) + " ms (was the agent loaded? see the JVM's stderr)");
    }
    pollfd p{socket_.get(), POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(left.count()));
    if (rc < 0 && errno != EINTR) throw systemError("waiting for the JVM agent");
    if (rc <= 0) continue;
    UniqueFd peer(accept4(socket_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!peer) {
      if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
      throw systemError("accepting the JVM agent's connection");
    }
    ucred cred{};
    socklen_t length = sizeof cred;
    if (getsockopt(peer.get(), SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 && cred.pid == targetPid_) return peer;
    // Someone else found the name: not our agent. Close and keep waiting.
  }
}

}  // namespace jfrbpf::jvm
