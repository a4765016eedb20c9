#pragma once
// POSTs for `record --push`, through libcurl (Debian's libcurl4): HTTP/1.1 or HTTP/2, TLS with the system's
// CAs or --push-ca's, keep-alive between requests to one destination. A request never waits longer than its
// timeout, and gives up at once when `abort` is set (the recording's end passed its deadline).
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::push {

struct HttpResult {
  long status = 0;    // the HTTP status; 0 when there was no answer
  std::string error;  // why there was no answer (connection refused, timed out, closed mid-request)
  std::string body;   // the answer's first KiB, for messages
  std::string redirect;  // where a 3xx pointed to (redirects are not followed: they would take the credentials)
  bool delivered() const { return status >= 200 && status < 300; }
  // Whether the same request may succeed later: no answer, a redirect (once the URL is mended), 408, 429 and
  // 5xx but 501 and 505. The other 4xx and 5xx are the request's fault: sent again, it would fail again.
  bool retryable() const {
    return status == 0 || (status >= 300 && status < 400) || status == 408 || status == 429 ||
           (status >= 500 && status != 501 && status != 505);
  }
  // "HTTP 503: overloaded", "HTTP 301: redirected to https://...; give that URL", "no answer: Connection
  // refused". An answer's text only when it is printable (OTLP's are protobuf).
  std::string describe() const;
};

// One part of a multipart/form-data body: `data`, or the contents of the file at `path`, read as it is sent.
struct FormPart {
  std::string name;
  std::string fileName;  // "" for none
  std::string_view data;
  std::string path;
};

// Calls curl_global_init once, on the thread that makes the first client (curl's rule: before other threads
// use it).
class HttpClient {
 public:
  // `caFile`: "" for the system's CAs. `timeoutNs`: the most a request may take, connecting included.
  HttpClient(std::string caFile, int64_t timeoutNs);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResult post(const std::string& url, const std::vector<std::string>& headers, std::string_view contentType,
                  std::string_view body, const std::atomic<bool>& abort);
  HttpResult postForm(const std::string& url, const std::vector<std::string>& headers,
                      const std::vector<FormPart>& parts, const std::atomic<bool>& abort);

 private:
  struct Curl;
  HttpResult perform(const std::string& url, const std::vector<std::string>& headers, const std::atomic<bool>& abort);

  std::string caFile_;
  int64_t timeoutNs_;
  std::unique_ptr<Curl> curl_;
};

}  // namespace jfrbpf::push
