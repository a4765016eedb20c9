// A process that poses as a HotSpot JVM to attack the recorder through the attach protocol and the agent
// channel. It maps a file named libjvm.so, handles SIGQUIT and, when asked to attach, opens
// /tmp/.java_pid<pid> as HotSpot does, then answers in `mode`:
//   huge-reply     "0\n" and then 64 MiB, more than any reply may hold
//   garbled-reply  bytes with no status line
//   agent-flood    a `load` is answered as by the real agent: it connects to the channel named in the options
//                  with the right token and says Hello, then sends class records with 60 KiB names until the
//                  loader hangs up (a model that would grow without bound)
//   agent-garbage  the same Hello, then a record header claiming 4 GiB, then noise
// With `fifo`, it then mounts a FIFO over its libjvm.so in a mount namespace of its own, as
// hostile_library_workload does. Its main thread spins half the time, so the recorder has samples to write
// and other targets keep their CPU. Usage: hostile_jvm <libjvm.so> <mode> [fifo]
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "jvmsupport/protocol/records.h"
#include "tests/record/workloads/fifo_over_path.h"

namespace {

namespace protocol = jfrbpf::protocol;

std::string mode;
int signalPipe[2];

void onSigquit(int) {
  char c = 'q';
  (void)!write(signalPipe[1], &c, 1);
}

struct VectorSink {
  std::vector<uint8_t> bytes;
  bool append(const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    bytes.insert(bytes.end(), p, p + size);
    return true;
  }
};

bool sendAll(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

template <typename Record>
void appendRecord(VectorSink& out, protocol::RecordType type, const Record& record) {
  VectorSink payload;
  protocol::WireWriter<VectorSink> pw(payload);
  protocol::encode(pw, record);
  protocol::WireWriter<VectorSink> w(out);
  protocol::encodeRecordHeader(w, type, static_cast<uint32_t>(payload.bytes.size()));
  w.bytes(payload.bytes.data(), payload.bytes.size());
}

uint64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// "channel:NAME,token:HEX,protocol:N" -> the value of `key`.
std::string option(std::string_view options, std::string_view key) {
  for (size_t at = 0; at <= options.size();) {
    size_t end = options.find(',', at);
    if (end == std::string_view::npos) end = options.size();
    std::string_view item = options.substr(at, end - at);
    if (item.size() > key.size() && item.substr(0, key.size()) == key && item[key.size()] == ':') {
      return std::string(item.substr(key.size() + 1));
    }
    at = end + 1;
  }
  return {};
}

// Connects to the loader's channel as the agent would and says Hello; -1 if the options name none.
int helloAsTheAgent(std::string_view options) {
  const std::string channel = option(options, "channel");
  const std::string tokenHex = option(options, "token");
  if (channel.empty() || tokenHex.size() != 2 * protocol::kTokenSize) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path + 1, channel.data(), std::min(channel.size(), sizeof address.sun_path - 2));
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + channel.size());
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), length) != 0) {
    close(fd);
    return -1;
  }
  protocol::Hello hello;
  for (size_t i = 0; i < protocol::kTokenSize; ++i) {
    hello.token[i] = static_cast<uint8_t>(std::stoul(tokenHex.substr(2 * i, 2), nullptr, 16));
  }
  hello.pid = static_cast<uint32_t>(getpid());
  hello.sessionNumber = 1;
  hello.jvmtiVersion = 0x30190000;
  hello.monotonicNs = monotonicNs();
  hello.vmName = "OpenJDK 64-Bit Server VM";
  hello.vmVersion = "25+36";
  VectorSink out;
  protocol::WireWriter<VectorSink> w(out);
  protocol::encodePreamble(w);
  appendRecord(out, protocol::RecordType::kHello, hello);
  sendAll(fd, out.bytes.data(), out.bytes.size());
  return fd;
}

void flood(int channel) {
  const std::string name = "hostile/" + std::string(60 * 1024, 'N');
  for (uint64_t id = 1;; ++id) {
    protocol::ClassInfo info;
    info.classId = id;
    info.time = monotonicNs();
    info.name = name;
    VectorSink out;
    appendRecord(out, protocol::RecordType::kClass, info);
    if (!sendAll(channel, out.bytes.data(), out.bytes.size())) break;
  }
  close(channel);
}

void garbage(int channel) {
  VectorSink out;
  protocol::WireWriter<VectorSink> w(out);
  protocol::encodeRecordHeader(w, protocol::RecordType::kClass, 0xffffff00u);
  for (uint32_t i = 0; i < (1u << 20); ++i) w.u32(i * 2654435761u);
  while (sendAll(channel, out.bytes.data(), out.bytes.size())) {
  }
  close(channel);
}

// The request: "1\0" command "\0" three arguments "\0" each.
std::vector<std::string> readRequest(int fd) {
  std::vector<std::string> fields(1);
  char c;
  while (fields.size() <= 5 && read(fd, &c, 1) == 1) {
    if (c == '\0') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

void answer(int connection) {
  std::vector<std::string> request = readRequest(connection);
  const std::string command = request.size() > 1 ? request[1] : "";
  if (mode == "huge-reply") {
    std::string reply = "0\n" + std::string(1 << 20, 'R');
    for (int i = 0; i < 64 && sendAll(connection, reply.data(), reply.size()); ++i) reply.assign(1 << 20, 'R');
  } else if (mode == "garbled-reply") {
    const std::string reply = "\x1b]0;owned\x07 no status here\n\x01\x02\x03";
    sendAll(connection, reply.data(), reply.size());
  } else if (command == "load" && request.size() > 4) {
    int channel = helloAsTheAgent(request[4]);
    const std::string reply = "0\nreturn code: 0\n";
    sendAll(connection, reply.data(), reply.size());
    if (channel >= 0) std::thread(mode == "agent-flood" ? flood : garbage, channel).detach();
  } else {
    sendAll(connection, "0\n", 2);
  }
  close(connection);
}

void serveAttach() {
  const std::string path = "/tmp/.java_pid" + std::to_string(getpid());
  int listener = -1;
  for (;;) {
    pollfd fds[2] = {{signalPipe[0], POLLIN, 0}, {listener, POLLIN, 0}};
    if (poll(fds, listener >= 0 ? 2 : 1, -1) <= 0) continue;
    if (fds[0].revents & POLLIN) {
      char c;
      (void)!read(signalPipe[0], &c, 1);
      if (listener < 0) {
        listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
        unlink(path.c_str());
        if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(listener, 8) != 0) {
          std::perror("attach listener");
          close(listener);
          listener = -1;
        }
      }
    }
    if (listener >= 0 && (fds[1].revents & POLLIN)) {
      int connection = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection >= 0) answer(connection);
    }
  }
}

}  // namespace

// Read by nobody: volatile keeps the spinning loop that gives the recorder its samples.
volatile uint64_t spun;

int main(int argc, char** argv) {
  if (argc != 3 && !(argc == 4 && std::string_view(argv[3]) == "fifo")) {
    std::fprintf(stderr, "usage: hostile_jvm <libjvm.so> <mode> [fifo]\n");
    return 2;
  }
  mode = argv[2];
  int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
  if (fd < 0 || mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) return 1;
  if (argc == 4) mountFifoOverPath((std::string(argv[1]) + ".fifo").c_str(), argv[1]);
  if (pipe2(signalPipe, O_CLOEXEC) != 0) return 1;
  struct sigaction action {};
  action.sa_handler = onSigquit;
  sigaction(SIGQUIT, &action, nullptr);
  std::thread(serveAttach).detach();
  std::printf("ready\n");
  std::fflush(stdout);
  uint64_t h = 1469598103934665603u;
  for (;;) {
    const uint64_t until = monotonicNs() + 10'000'000;
    while (monotonicNs() < until) {
      for (int i = 0; i < 10000; ++i) h = (h ^ static_cast<uint64_t>(i)) * 1099511628211u;
      spun = h;
    }
    usleep(10'000);
  }
}
