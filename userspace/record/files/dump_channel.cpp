#include "userspace/record/files/dump_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>

#include "base/error.h"
#include "base/fd_passing.h"

namespace jfrbpf::record {
namespace {

constexpr int kRequestWaitMs = 1000;
constexpr size_t kMaxMessage = 4096;

sockaddr_un addressOf(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) throw Error("socket path too long: " + path);
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

// /run/jfrbpf as a directory only root can enter, refusing one someone else made.
void prepareControlDirectory() {
  if (::mkdir(kControlDirectory, 0700) != 0 && errno != EEXIST) {
    throw systemError(std::string("cannot create ") + kControlDirectory);
  }
  struct stat st {};
  if (::lstat(kControlDirectory, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0) {
    throw Error(std::string(kControlDirectory) + " is not a directory of root's (remove it)");
  }
  // A root-owned directory made wider (a container's emptyDir is 0777): only root's from now on.
  if ((st.st_mode & 077) != 0 && ::chmod(kControlDirectory, 0700) != 0) {
    throw systemError(std::string("cannot make ") + kControlDirectory + " root's only");
  }
}

// The pid a recorder's socket is named after ("1234.sock"), if `name` is one.
std::optional<pid_t> recorderPidOf(const std::string& name) {
  pid_t pid = 0;
  auto [end, parsed] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (parsed != std::errc() || std::string_view(end) != ".sock") return std::nullopt;
  return pid;
}

bool recorderLives(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// Recorders that were killed (SIGKILL, the OOM killer) could not remove their sockets: the next one does.
void removeSocketsOfDeadRecorders() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kControlDirectory, ec)) {
    std::optional<pid_t> pid = recorderPidOf(entry.path().filename().string());
    if (pid && !recorderLives(*pid)) ::unlink(entry.path().c_str());
  }
}

bool sendMessage(int fd, const std::string& text, int passedFd) {
  return sendWithFd(fd, text.data(), text.size(), passedFd, MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
}

bool waitReadable(int fd, int timeoutMs) {
  pollfd p{fd, POLLIN, 0};
  int rc;
  do rc = ::poll(&p, 1, timeoutMs);
  while (rc < 0 && errno == EINTR);
  return rc > 0;
}

}  // namespace

DumpServer::DumpServer() {
  prepareControlDirectory();
  removeSocketsOfDeadRecorders();
  path_ = std::string(kControlDirectory) + "/" + std::to_string(getpid()) + ".sock";
  ::unlink(path_.c_str());  // a recorder of this pid that died before removing it
  socket_.reset(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!socket_) throw systemError("cannot create the dump socket");
  sockaddr_un address = addressOf(path_);
  if (::bind(socket_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::chmod(path_.c_str(), 0600) != 0 || ::listen(socket_.get(), 4) != 0) {
    int err = errno;
    ::unlink(path_.c_str());
    throw systemError("cannot listen on " + path_, err);
  }
}

DumpServer::~DumpServer() { ::unlink(path_.c_str()); }

std::optional<DumpRequest> DumpServer::acceptRequest() {
  for (;;) {
    UniqueFd client(::accept4(socket_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!client) return std::nullopt;  // EAGAIN: nobody waiting
    ucred peer{};
    socklen_t length = sizeof peer;
    if (::getsockopt(client.get(), SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.uid != 0) continue;
    char request[16] = {};
    if (!waitReadable(client.get(), kRequestWaitMs)) continue;
    ssize_t got = ::recv(client.get(), request, sizeof request - 1, 0);
    if (got == 5 && std::strcmp(request, "dump\n") == 0) return DumpRequest{std::move(client), false};
    if (got == 6 && std::strcmp(request, "check\n") == 0) return DumpRequest{std::move(client), true};
  }
}

void DumpServer::replyToCheck(UniqueFd client, const std::vector<std::string>& status) {
  for (const std::string& line : status) {
    if (!sendMessage(client.get(), "status\t" + line.substr(0, kMaxMessage - 16) + "\n", -1)) return;
  }
  sendMessage(client.get(), "end\n", -1);
}

void DumpServer::reply(UniqueFd client, const std::vector<DumpFile>& files, const std::string& error) {
  if (!error.empty()) {
    sendMessage(client.get(), "error\t" + error + "\n", -1);
    return;
  }
  for (const DumpFile& file : files) {
    if (!sendMessage(client.get(), file.label + "\t" + std::to_string(file.bytes) + "\n", file.fd.get())) return;
  }
  sendMessage(client.get(), "end\n", -1);
}

std::string findRecorderSocket(std::optional<pid_t> recorderPid) {
  if (recorderPid) {
    std::string path = std::string(kControlDirectory) + "/" + std::to_string(*recorderPid) + ".sock";
    if (::access(path.c_str(), F_OK) != 0) {
      throw Error("no jfrbpf recorder with pid " + std::to_string(*recorderPid) + " (no " + path + ")",
                  ErrorKind::Target);
    }
    return path;
  }
  std::vector<std::string> live;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kControlDirectory, ec)) {
    std::optional<pid_t> pid = recorderPidOf(entry.path().filename().string());
    if (pid && recorderLives(*pid)) live.push_back(entry.path().string());
  }
  if (live.empty()) {
    throw Error("no jfrbpf recorder is running here (start one with jfrbpf record; dump needs root)",
                ErrorKind::Target);
  }
  if (live.size() > 1) {
    std::string pids;
    for (const std::string& path : live) pids += " " + std::filesystem::path(path).stem().string();
    throw Error("several jfrbpf recorders are running (pids" + pids + "): choose one with --recorder PID",
                ErrorKind::Usage);
  }
  return live.front();
}

namespace {

// Connected to the recorder at `socketPath`, with `request` sent.
UniqueFd askRecorder(const std::string& socketPath, std::string_view request) {
  UniqueFd sock(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!sock) throw systemError("cannot create a socket");
  sockaddr_un address = addressOf(socketPath);
  if (::connect(sock.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    throw systemError("cannot reach the recorder at " + socketPath + " (is it still running? dump needs root)");
  }
  if (::send(sock.get(), request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    throw systemError("cannot ask the recorder");
  }
  return sock;
}

}  // namespace

std::vector<std::string> checkRecorder(const std::string& socketPath, std::chrono::milliseconds timeout) {
  UniqueFd sock = askRecorder(socketPath, "check\n");
  std::vector<std::string> status;
  for (;;) {
    if (!waitReadable(sock.get(), static_cast<int>(timeout.count()))) {
      throw Error("the recorder did not answer within " + std::to_string(timeout.count() / 1000) + " s");
    }
    char text[kMaxMessage];
    ssize_t got = ::recv(sock.get(), text, sizeof text - 1, 0);
    if (got <= 0) throw Error("the recorder closed the connection without an answer");
    std::string line(text, static_cast<size_t>(got));
    if (line == "end\n") return status;
    if (line.starts_with("error\t")) throw Error("the recorder is not well: " + line.substr(6, line.size() - 7));
    if (!line.starts_with("status\t") || !line.ends_with("\n")) throw Error("the recorder's answer is malformed");
    status.push_back(line.substr(7, line.size() - 8));
  }
}

std::vector<DumpFile> requestDump(const std::string& socketPath, std::chrono::milliseconds timeout) {
  UniqueFd sock = askRecorder(socketPath, "dump\n");
  std::vector<DumpFile> files;
  for (;;) {
    if (!waitReadable(sock.get(), static_cast<int>(timeout.count()))) {
      throw Error("the recorder did not answer within " + std::to_string(timeout.count()) + " ms");
    }
    char text[kMaxMessage];
    iovec io{text, sizeof text - 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t got = ::recvmsg(sock.get(), &message, MSG_CMSG_CLOEXEC);
    if (got <= 0) throw Error("the recorder closed the connection before its answer was complete");
    UniqueFd passed;
    for (cmsghdr* h = CMSG_FIRSTHDR(&message); h != nullptr; h = CMSG_NXTHDR(&message, h)) {
      if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
        int fd = -1;
        std::memcpy(&fd, CMSG_DATA(h), sizeof fd);
        passed.reset(fd);
      }
    }
    std::string line(text, static_cast<size_t>(got));
    if (line == "end\n") return files;
    if (line.starts_with("error\t")) throw Error("the recorder cannot dump: " + line.substr(6, line.size() - 7));
    size_t tab = line.find('\t');
    uint64_t bytes = 0;
    if (tab == std::string::npos || !passed || line.back() != '\n' ||
        std::from_chars(line.data() + tab + 1, line.data() + line.size() - 1, bytes).ec != std::errc()) {
      throw Error("the recorder's answer is malformed");
    }
    files.push_back({line.substr(0, tab), std::move(passed), bytes});
  }
}

}  // namespace jfrbpf::record
