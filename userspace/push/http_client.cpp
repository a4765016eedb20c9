#include "userspace/push/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>
#include <new>

#include "base/error.h"

namespace jfrbpf::push {
namespace {

constexpr size_t kKeptAnswerBytes = 1024;

size_t keepAnswer(char* data, size_t size, size_t count, void* user) {
  std::string& body = *static_cast<std::string*>(user);
  const size_t bytes = size * count;
  if (body.size() < kKeptAnswerBytes) body.append(data, std::min(bytes, kKeptAnswerBytes - body.size()));
  return bytes;
}

int abortWhenAsked(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load(std::memory_order_relaxed) ? 1 : 0;
}

// curl_slist, freed whatever happens.
class HeaderList {
 public:
  explicit HeaderList(const std::vector<std::string>& headers) {
    // No "Expect: 100-continue": a second round trip per upload for nothing, and some proxies never answer it.
    append("Expect:");
    for (const std::string& header : headers) append(header.c_str());
  }
  ~HeaderList() { curl_slist_free_all(list_); }
  HeaderList(const HeaderList&) = delete;
  HeaderList& operator=(const HeaderList&) = delete;
  curl_slist* get() const { return list_; }

 private:
  void append(const char* header) {
    curl_slist* longer = curl_slist_append(list_, header);
    if (!longer) throw std::bad_alloc();  // never send without the credentials
    list_ = longer;
  }

  curl_slist* list_ = nullptr;
};

class Form {
 public:
  explicit Form(CURL* curl) : mime_(curl_mime_init(curl)) {}
  ~Form() { curl_mime_free(mime_); }
  Form(const Form&) = delete;
  Form& operator=(const Form&) = delete;
  curl_mime* get() const { return mime_; }

 private:
  curl_mime* mime_;
};

}  // namespace

struct HttpClient::Curl {
  CURL* handle = curl_easy_init();
  Curl() = default;
  ~Curl() {
    if (handle) curl_easy_cleanup(handle);
  }
  Curl(const Curl&) = delete;
  Curl& operator=(const Curl&) = delete;
};

std::string HttpResult::describe() const {
  if (status == 0) return "no answer: " + error;
  std::string text = "HTTP " + std::to_string(status);
  if (!redirect.empty()) return text + ": redirected to " + redirect + "; give that URL to --push";
  const std::string firstLine = body.substr(0, std::min<size_t>(body.find_first_of("\r\n"), 200));
  const bool printable = std::all_of(firstLine.begin(), firstLine.end(), [](char c) { return c >= ' ' && c < 0x7f; });
  if (!firstLine.empty() && printable) text += ": " + firstLine;
  return text;
}

HttpClient::HttpClient(std::string caFile, int64_t timeoutNs) : caFile_(std::move(caFile)), timeoutNs_(timeoutNs) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = std::make_unique<Curl>();
  if (!curl_->handle) throw Error("cannot start libcurl (out of memory)");
}

HttpClient::~HttpClient() = default;

HttpResult HttpClient::perform(const std::string& url, const std::vector<std::string>& headers,
                               const std::atomic<bool>& abort) {
  CURL* curl = curl_->handle;
  HttpResult result;
  char error[CURL_ERROR_SIZE] = {};
  HeaderList list(headers);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list.get());
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts in a threaded recorder
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);  // a redirect would resend credentials elsewhere
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeoutNs_ / 1'000'000));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min<int64_t>(timeoutNs_, 10'000'000'000) / 1'000'000));
  if (!caFile_.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, caFile_.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keepAnswer);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, abortWhenAsked);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &abort);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "jfrbpf");
  const CURLcode code = curl_easy_perform(curl);
  if (code == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
    const char* location = nullptr;
    if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) result.redirect = location;
  } else {
    result.error = *error ? error : curl_easy_strerror(code);
  }
  // The handle keeps its connection for the next request, but no pointer into this call's locals.
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(curl, CURLOPT_MIMEPOST, nullptr);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, nullptr);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, nullptr);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, nullptr);
  return result;
}

HttpResult HttpClient::post(const std::string& url, const std::vector<std::string>& headers,
                            std::string_view contentType, std::string_view body, const std::atomic<bool>& abort) {
  std::vector<std::string> all = headers;
  all.push_back("Content-Type: " + std::string(contentType));
  curl_easy_setopt(curl_->handle, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl_->handle, CURLOPT_POSTFIELDS, body.data());
  return perform(url, all, abort);
}

HttpResult HttpClient::postForm(const std::string& url, const std::vector<std::string>& headers,
                                const std::vector<FormPart>& parts, const std::atomic<bool>& abort) {
  Form form(curl_->handle);
  for (const FormPart& part : parts) {
    curl_mimepart* field = curl_mime_addpart(form.get());
    curl_mime_name(field, part.name.c_str());
    if (!part.path.empty()) {
      if (curl_mime_filedata(field, part.path.c_str()) != CURLE_OK) throw Error("cannot read " + part.path);
    } else {
      curl_mime_data(field, part.data.data(), part.data.size());
    }
    curl_mime_filename(field, part.fileName.empty() ? nullptr : part.fileName.c_str());  // after filedata's own
    curl_mime_type(field, "application/octet-stream");
  }
  curl_easy_setopt(curl_->handle, CURLOPT_MIMEPOST, form.get());
  return perform(url, headers, abort);
}

}  // namespace jfrbpf::push
