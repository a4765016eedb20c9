#include "tests/push/loopback_receiver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <stdexcept>

namespace jfrbpf::test {
namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

std::string percentDecoded(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out += static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Waits for `fd` to be readable for up to 100 ms; false when the receiver stops meanwhile.
bool readable(int fd, const std::atomic<bool>& stopping) {
  while (!stopping) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) return true;
  }
  return false;
}

void sendAll(int fd, const std::string& data) {
  for (size_t sent = 0; sent < data.size();) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

std::string ReceivedRequest::query(const std::string& name) const {
  const size_t q = target.find('?');
  if (q == std::string::npos) return "";
  size_t start = q + 1;
  while (start <= target.size()) {
    const size_t end = std::min(target.find('&', start), target.size());
    const std::string item = target.substr(start, end - start);
    const size_t equals = item.find('=');
    if (item.substr(0, equals) == name) return equals == std::string::npos ? "" : percentDecoded(item.substr(equals + 1));
    start = end + 1;
  }
  return "";
}

std::vector<FormPart> formParts(const ReceivedRequest& request) {
  auto type = request.headers.find("content-type");
  if (type == request.headers.end() || type->second.find("multipart/form-data") == std::string::npos) return {};
  const size_t b = type->second.find("boundary=");
  if (b == std::string::npos) return {};
  const std::string delimiter = "--" + type->second.substr(b + 9);
  const std::string& body = request.body;
  std::vector<FormPart> parts;
  size_t at = body.find(delimiter);
  while (at != std::string::npos) {
    size_t headersStart = at + delimiter.size();
    if (body.compare(headersStart, 2, "--") == 0) return parts;  // the closing delimiter
    headersStart += 2;                                           // CRLF
    const size_t headersEnd = body.find("\r\n\r\n", headersStart);
    if (headersEnd == std::string::npos) return {};
    const size_t next = body.find("\r\n" + delimiter, headersEnd + 4);
    if (next == std::string::npos) return {};
    FormPart part;
    const std::string headers = body.substr(headersStart, headersEnd - headersStart);
    auto quoted = [&](const std::string& key) {
      const size_t k = headers.find(key + "=\"");
      if (k == std::string::npos) return std::string();
      const size_t s = k + key.size() + 2;
      return headers.substr(s, headers.find('"', s) - s);
    };
    part.name = quoted("name");
    part.fileName = quoted("filename");
    part.data = body.substr(headersEnd + 4, next - headersEnd - 4);
    parts.push_back(std::move(part));
    at = next + 2;
  }
  return {};
}

LoopbackReceiver::LoopbackReceiver(std::string address) : address_(std::move(address)) {
  if (!listen()) throw std::runtime_error("loopback receiver: cannot listen on " + address_);
  acceptor_ = std::thread([this] { acceptLoop(); });
}

LoopbackReceiver::~LoopbackReceiver() {
  stopping_ = true;
  acceptor_.join();
  {
    std::lock_guard lock(mutex_);
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  }
  for (std::thread& t : threads_) t.join();
  for (int fd : connections_) ::close(fd);
  if (listener_ >= 0) ::close(listener_);
}

bool LoopbackReceiver::listen() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  ::inet_pton(AF_INET, address_.c_str(), &address.sin_addr);
  address.sin_port = htons(port_);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || ::listen(fd, 16) != 0) {
    ::close(fd);
    return false;  // the port was taken while down: tried again on the next turn
  }
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  listener_ = fd;
  return true;
}

std::string LoopbackReceiver::url() const { return "http://" + address_ + ":" + std::to_string(port_); }

void LoopbackReceiver::setFault(ReceiverFault fault, int status) {
  status_ = status;
  fault_ = fault;
  // The accepting thread sees it within its turn and waits for that turn to pass.
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
}

std::vector<ReceivedRequest> LoopbackReceiver::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void LoopbackReceiver::acceptLoop() {
  while (!stopping_) {
    // Down: nothing listens on the port (connections are refused); up again on the same port.
    const bool down = fault_ == ReceiverFault::kDown;
    if (down && listener_ >= 0) {
      ::close(listener_);
      listener_ = -1;
      // A backend that goes down drops the connections kept alive too.
      std::lock_guard lock(mutex_);
      for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
    } else if (!down && listener_ < 0) {
      listen();
    }
    if (listener_ < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard lock(mutex_);
    connections_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void LoopbackReceiver::serve(int fd) {
  std::string buffer;
  char chunk[65536];
  auto fill = [&]() {
    if (!readable(fd, stopping_)) return false;
    const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<size_t>(n));
    return true;
  };
  while (!stopping_) {
    size_t headerEnd;
    while ((headerEnd = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return;
    }
    ReceivedRequest request;
    const std::string head = buffer.substr(0, headerEnd);
    buffer.erase(0, headerEnd + 4);
    size_t lineEnd = head.find("\r\n");
    const std::string requestLine = head.substr(0, lineEnd);
    request.method = requestLine.substr(0, requestLine.find(' '));
    const size_t targetStart = requestLine.find(' ') + 1;
    request.target = requestLine.substr(targetStart, requestLine.rfind(' ') - targetStart);
    while (lineEnd != std::string::npos && lineEnd < head.size()) {
      const size_t next = head.find("\r\n", lineEnd + 2);
      const std::string line = head.substr(lineEnd + 2, next == std::string::npos ? std::string::npos : next - lineEnd - 2);
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        request.headers[lower(line.substr(0, colon))] = line.substr(line.find_first_not_of(' ', colon + 1));
      }
      lineEnd = next;
    }
    ++attempts_;
    const size_t length = request.headers.count("content-length") ? std::stoull(request.headers["content-length"]) : 0;
    const ReceiverFault fault = fault_;
    const size_t wanted = fault == ReceiverFault::kCloseEarly ? length / 2 : length;
    while (buffer.size() < wanted) {
      if (!fill()) return;
    }
    if (fault == ReceiverFault::kCloseEarly) {
      ::shutdown(fd, SHUT_RDWR);
      return;
    }
    request.body = buffer.substr(0, length);
    buffer.erase(0, length);
    if (fault == ReceiverFault::kHang) {
      while (!stopping_ && fault_ == ReceiverFault::kHang) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ::shutdown(fd, SHUT_RDWR);
      return;
    }
    if (fault == ReceiverFault::kStatus) {
      const std::string text = "injected fault";
      sendAll(fd, "HTTP/1.1 " + std::to_string(status_.load()) + " Injected\r\nContent-Length: " +
                      std::to_string(text.size()) + "\r\n\r\n" + text);
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(std::move(request));
    }
    sendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  }
}

}  // namespace jfrbpf::test
