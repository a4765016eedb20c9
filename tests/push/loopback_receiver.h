#pragma once
// Test helper: a backend on the loopback that `record --push` can be pointed at, standing in for an
// OpenTelemetry Collector and a Pyroscope server, which cannot be installed here. It speaks enough HTTP/1.1
// for libcurl (keep-alive, Content-Length bodies), keeps every request it took, and plays the faults a real
// backend shows: down (nothing listens, connections are refused), an error status, an answer that never
// comes, and a connection closed in the middle of a request.
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace jfrbpf::test {

struct ReceivedRequest {
  std::string method;
  std::string target;  // path and query, as sent
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;

  std::string path() const { return target.substr(0, target.find('?')); }
  // A query parameter, percent-decoded; "" when absent.
  std::string query(const std::string& name) const;
};

// One part of a multipart/form-data body.
struct FormPart {
  std::string name, fileName, data;
};
// The parts of `request`'s multipart/form-data body; empty when it is not one (or is malformed).
std::vector<FormPart> formParts(const ReceivedRequest& request);

enum class ReceiverFault {
  kNone,       // answers 200 and keeps the request
  kDown,       // not listening: connections are refused
  kStatus,     // answers faultStatus with the request read (not kept)
  kHang,       // reads the request and never answers
  kCloseEarly  // closes the connection after half the body
};

class LoopbackReceiver {
 public:
  // Listening on `address` (a loopback one: 127.0.0.1, or the 127.0.1.1 a host's name may resolve to), on a
  // port of the kernel's choice.
  explicit LoopbackReceiver(std::string address = "127.0.0.1");
  ~LoopbackReceiver();
  LoopbackReceiver(const LoopbackReceiver&) = delete;
  LoopbackReceiver& operator=(const LoopbackReceiver&) = delete;

  std::string url() const;  // "http://127.0.0.1:PORT"
  uint16_t port() const { return port_; }
  // Down and up take effect within 50 ms.
  void setFault(ReceiverFault fault, int status = 503);
  std::vector<ReceivedRequest> requests() const;  // taken, in order
  size_t attempts() const { return attempts_.load(); }  // requests begun, faulted ones included

 private:
  // Only the accepting thread opens and closes the listening socket.
  bool listen();
  void acceptLoop();
  void serve(int fd);

  std::string address_;
  uint16_t port_ = 0;
  int listener_ = -1;
  std::atomic<ReceiverFault> fault_{ReceiverFault::kNone};
  std::atomic<int> status_{503};
  std::atomic<bool> stopping_{false};
  std::atomic<size_t> attempts_{0};
  mutable std::mutex mutex_;
  std::vector<ReceivedRequest> requests_;
  std::vector<std::thread> threads_;
  std::vector<int> connections_;
  std::thread acceptor_;
};

}  // namespace jfrbpf::test
