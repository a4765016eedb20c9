#include "userspace/attach/listener_connection.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/attach_trigger.h"
#include "userspace/attach/message_text.h"
#include "userspace/attach/run_as.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/root_files.h"

namespace jfrbpf::attach {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// HotSpot's listener is up 2-5 ms after SIGQUIT on a quiet VM (JDK 17 and 25, measured 2026-11-28): asked
// every 2 ms for a while, so that the attach, which the first samples of a JVM wait for, does not wait for
// a coarse step; then backing off for a JVM that is slow to answer.
constexpr milliseconds kFirstPolls{2};
constexpr milliseconds kFirstPollsFor{100};
constexpr milliseconds kBackoffStep{20};
constexpr milliseconds kBackoffMax{500};
constexpr timeval kConnectTimeout{2, 0};  // connect() blocks only while the listener's backlog is full

struct Directories {
  UniqueFd tmp;  // the JVM's temp directory (HotSpot always uses /tmp on Linux), seen from its root
  UniqueFd cwd;  // the JVM's working directory; invalid when it cannot be opened
};

Directories openDirectories(const TargetProcess& process) {
  UniqueFd root = process.openRoot();
  Directories dirs;
  dirs.tmp = proc::openInRoot(root.get(), "tmp", O_PATH | O_DIRECTORY);
  if (!dirs.tmp) {
    int err = errno;
    if (err == ELOOP || err == EXDEV) {
      throw AttachError(AttachFailure::UnsafeTarget, "/tmp of " + process.describe() +
                                                         " is a symbolic link, which jfrbpf does not follow inside a "
                                                         "target; make /tmp a directory in that container");
    }
    throw AttachError(AttachFailure::UnsafeTarget, "cannot open /tmp of " + process.describe() + ": " +
                                                       std::strerror(err) +
                                                       "; HotSpot needs /tmp for its attach socket");
  }
  dirs.cwd = UniqueFd(::open(proc::procPath(process.pid(), "cwd").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  return dirs;
}

enum class ConnectState { Connected, NoListener };

struct ConnectAttempt {
  ConnectState state = ConnectState::NoListener;
  UniqueFd socket;
};

// Runs with the JVM's credentials: HotSpot checks the peer's uid/gid (SO_PEERCRED) when it accepts.
ConnectAttempt connectOnce(const TargetProcess& process, int tmpFd, const Credentials& jvmUser) {
  const std::string name = ".java_pid" + std::to_string(process.target().namespacePid);
  ConnectAttempt attempt;
  // Pin the socket inode without following links, then connect to exactly that inode.
  UniqueFd node(::openat(tmpFd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!node || ::fstat(node.get(), &st) != 0 || !S_ISSOCK(st.st_mode)) return attempt;
  if (st.st_uid != jvmUser.uid) {
    throw AttachError(AttachFailure::UnsafeTarget, "/tmp/" + name + " belongs to uid " + std::to_string(st.st_uid) +
                                                       ", not to the user of " + process.describe() + " (uid " +
                                                       std::to_string(jvmUser.uid) +
                                                       "); refusing to talk to it");
  }
  UniqueFd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock) throw systemError("cannot create a unix socket");
  ::setsockopt(sock.get(), SOL_SOCKET, SO_SNDTIMEO, &kConnectTimeout, sizeof kConnectTimeout);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "/proc/self/fd/%d", node.get());
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    int err = errno;
    if (err == ECONNREFUSED || err == ENOENT) return attempt;  // a stale socket file; the listener will replace it
    if (err == EACCES || err == EPERM) {
      throw AttachError(AttachFailure::PermissionDenied, "connecting to the attach socket of " + process.describe() +
                                                             " was denied (" + std::strerror(err) +
                                                             "); run jfrbpf as root");
    }
    if (err == EAGAIN || err == ETIMEDOUT) {
      throw AttachError(AttachFailure::NotResponding, "the attach listener of " + process.describe() +
                                                          " does not accept connections (backlog full); retry later");
    }
    throw systemError("cannot connect to the attach socket of " + process.describe(), err);
  }
  ucred peer{};
  socklen_t length = sizeof peer;
  if (::getsockopt(sock.get(), SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.pid != process.pid()) {
    throw AttachError(AttachFailure::UnsafeTarget, "/tmp/" + name + " is served by pid " + std::to_string(peer.pid) +
                                                       ", not by " + process.describe() +
                                                       " (a shared /tmp with another pid namespace?); refusing it");
  }
  int flags = ::fcntl(sock.get(), F_GETFL);
  ::fcntl(sock.get(), F_SETFL, flags | O_NONBLOCK);
  attempt.state = ConnectState::Connected;
  attempt.socket = std::move(sock);
  return attempt;
}

// Whether a process listens on the socket file `name` (connected to as root, never talked to).
bool hasListener(int tmpFd, const std::string& name) {
  UniqueFd node(::openat(tmpFd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  UniqueFd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!node || !sock) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "/proc/self/fd/%d", node.get());
  return ::connect(sock.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 || errno == EAGAIN;
}

// Looking costs nothing; switching users costs a thread, so only do that once there is a socket to try.
ConnectAttempt connectAs(const TargetProcess& process, int tmpFd, const Credentials& jvmUser) {
  ConnectAttempt attempt;
  const std::string name = ".java_pid" + std::to_string(process.target().namespacePid);
  struct stat st {};
  if (::fstatat(tmpFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode)) return attempt;
  if (st.st_uid != jvmUser.uid) {
    // Not the JVM's own: left by an earlier process that had this pid (and HotSpot cannot rename its socket
    // over another user's file in the sticky /tmp), or another JVM's where /tmp is shared between pid
    // namespaces. A socket something listens on is never removed; a dead one is, so that the JVM's listener
    // can take the name.
    if (hasListener(tmpFd, name)) {
      throw AttachError(AttachFailure::UnsafeTarget,
                        "/tmp/" + name + " is the live attach socket of another process (uid " +
                            std::to_string(st.st_uid) + "), not of " + process.describe() +
                            ": its /tmp is shared with another pid namespace; give the containers their own /tmp");
    }
    if (::unlinkat(tmpFd, name.c_str(), 0) != 0 && errno != ENOENT) {
      throw AttachError(AttachFailure::UnsafeTarget,
                        "/tmp/" + name + " belongs to uid " + std::to_string(st.st_uid) + ", not to the user of " +
                            process.describe() + " (uid " + std::to_string(jvmUser.uid) +
                            "), and cannot be removed: " + std::strerror(errno) + "; remove it and retry");
    }
    return attempt;
  }
  runWithCredentials(jvmUser, [&] { attempt = connectOnce(process, tmpFd, jvmUser); });
  return attempt;
}

[[noreturn]] void throwNotResponding(const TargetProcess& process, const JvmFacts& facts, milliseconds timeout) {
  std::string why;
  if (process.stopped()) {
    why = "it is stopped (SIGSTOP or a debugger); resume it and retry";
  } else if (!facts.attachEnabled) {
    why = "it may run with -XX:+DisableAttachMechanism (its flags could not be read), or be hung";
  } else {
    why = "it may be hung or overloaded; retry, or start it with -agentpath";
  }
  throw AttachError(AttachFailure::NotResponding, process.describe() + " did not start its attach listener within " +
                                                      inSeconds(timeout.count()) + ": " + why);
}

}  // namespace

UniqueFd connectToListener(const TargetProcess& process, const JvmFacts& facts, milliseconds timeout) {
  const Target& target = process.target();
  const Credentials jvmUser{target.effectiveUid, target.effectiveGid};
  Directories dirs = openDirectories(process);

  // Fast path: a listener that is already running (earlier attach, -XX:+StartAttachListener, -Xrs).
  ConnectAttempt attempt = connectAs(process, dirs.tmp.get(), jvmUser);
  if (attempt.state == ConnectState::Connected) {
    removeLeftoverTriggers(process, dirs.cwd.get(), dirs.tmp.get());
    return std::move(attempt.socket);
  }

  if (facts.attachEnabled == false) {
    throw AttachError(AttachFailure::AttachDisabled,
                      process.describe() +
                          " runs with -XX:+DisableAttachMechanism; restart it without that flag, or "
                          "start it with -agentpath to load the jfrbpf agent at launch");
  }
  // A JVM stopped by SIGSTOP cannot start its listener before it is resumed: say so now, not after the
  // timeout (a tracer's stop, 't', is left to the timeout: it is often only a moment).
  if (process.status().state == 'T') {
    throw AttachError(AttachFailure::NotResponding,
                      process.describe() + " is stopped (SIGSTOP); resume it (kill -CONT) and retry");
  }
  // Without HotSpot's handler SIGQUIT's default action would kill the process and dump core.
  if (!process.status().catches(SIGQUIT)) {
    throw AttachError(AttachFailure::NotReady, process.describe() +
                                                   " has no SIGQUIT handler yet (still starting up?), so it cannot be "
                                                   "asked to start its attach listener; retry in a moment");
  }

  AttachTrigger trigger = placeAttachTrigger(process, dirs.cwd.get(), dirs.tmp.get());
  if (int err = process.sendSignal(SIGQUIT); err != 0) {
    if (err == ESRCH) throw AttachError(AttachFailure::NoSuchProcess, process.describe() + " has exited");
    throw AttachError(AttachFailure::PermissionDenied,
                      "cannot signal " + process.describe() + ": " + std::strerror(err) + "; run jfrbpf as root");
  }

  const auto signalled = Clock::now();
  const auto deadline = signalled + timeout;
  milliseconds delay = kFirstPolls;
  while (true) {
    auto remaining = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (remaining <= milliseconds::zero()) break;
    // Sleeping on the pidfd returns at once if the JVM dies meanwhile.
    pollfd pfd{process.pidFd(), POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(std::min(delay, remaining).count())) > 0) {
      throw AttachError(AttachFailure::NoSuchProcess, process.describe() + " exited while jfrbpf was attaching");
    }
    attempt = connectAs(process, dirs.tmp.get(), jvmUser);
    if (attempt.state == ConnectState::Connected) {
      removeLeftoverTriggers(process, dirs.cwd.get(), dirs.tmp.get());
      return std::move(attempt.socket);
    }
    if (Clock::now() - signalled >= kFirstPollsFor) delay = std::min(delay + kBackoffStep, kBackoffMax);
  }
  throwNotResponding(process, facts, timeout);
}

}  // namespace jfrbpf::attach
