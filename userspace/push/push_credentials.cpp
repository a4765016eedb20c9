#include "userspace/push/push_credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/unique_fd.h"

namespace jfrbpf::push {
namespace {

constexpr const char* kNames[] = {"OTEL_EXPORTER_OTLP_PROFILES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS",
                                  "PYROSCOPE_AUTH_TOKEN", "PYROSCOPE_BASIC_AUTH_USER",
                                  "PYROSCOPE_BASIC_AUTH_PASSWORD", "PYROSCOPE_TENANT_ID"};

std::string trim(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  const size_t last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percentDecoded(std::string_view text, const std::string& variable) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    const int high = i + 2 < text.size() ? hexDigit(text[i + 1]) : -1;
    const int low = i + 2 < text.size() ? hexDigit(text[i + 2]) : -1;
    if (high < 0 || low < 0) {
      throw Error(variable + " holds a '%' that is not followed by two hex digits (write a % as %25)",
                  ErrorKind::Usage);
    }
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

std::string header(const std::string& name, const std::string& value, const std::string& from) {
  for (char c : name + value) {
    if (c == '\r' || c == '\n' || c == '\0') throw Error(from + " holds a line break", ErrorKind::Usage);
  }
  return name + ": " + value;
}

std::string base64(std::string_view in) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t n = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) n |= static_cast<unsigned char>(in[i + 2]);
    out += kDigits[(n >> 18) & 63];
    out += kDigits[(n >> 12) & 63];
    out += i + 1 < in.size() ? kDigits[(n >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kDigits[n & 63] : '=';
  }
  return out;
}

// OTEL_EXPORTER_OTLP_HEADERS: "name=value,name=value" (W3C baggage's list form, values percent-encoded).
std::vector<std::string> otlpHeaders(const std::string& list, const std::string& variable) {
  std::vector<std::string> headers;
  std::stringstream items(list);
  std::string item;
  for (int position = 1; std::getline(items, item, ','); ++position) {
    if (trim(item).empty()) continue;
    const size_t equals = item.find('=');
    const std::string name = trim(std::string_view(item).substr(0, equals));
    if (equals == std::string::npos || name.empty() || name.find_first_of(" :") != std::string::npos) {
      // Not the item itself: it may hold a secret ("Authorization: Bearer ...").
      throw Error(variable + ": item " + std::to_string(position) +
                      " is not name=value (e.g. authorization=Bearer%20TOKEN: '=' after the name, no ':')",
                  ErrorKind::Usage);
    }
    headers.push_back(header(name, percentDecoded(trim(std::string_view(item).substr(equals + 1)), variable),
                             variable));
  }
  return headers;
}

}  // namespace

CredentialSource CredentialSource::load(const std::optional<std::string>& file) {
  std::map<std::string, std::string> values;
  for (const char* name : kNames) {
    if (const char* value = std::getenv(name); value && *value) values[name] = value;
  }
  if (!file) return CredentialSource(std::move(values));
  UniqueFd fd(::open(file->c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    throw Error("cannot read --push-credentials " + *file + ": " + std::strerror(errno), ErrorKind::Usage);
  }
  if (!S_ISREG(st.st_mode)) throw Error("--push-credentials " + *file + " is not a regular file", ErrorKind::Usage);
  if (st.st_uid != 0 && st.st_uid != ::geteuid()) {
    throw Error("--push-credentials " + *file + " belongs to uid " + std::to_string(st.st_uid) +
                    ", who could change the credentials root sends: chown root " + *file,
                ErrorKind::Usage);
  }
  if ((st.st_mode & 077) != 0) {
    throw Error("--push-credentials " + *file + " can be read or changed by other users: chmod 600 " + *file,
                ErrorKind::Usage);
  }
  std::ifstream in("/proc/self/fd/" + std::to_string(fd.get()));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const size_t equals = text.find('=');
    const std::string name = equals == std::string::npos ? "" : trim(std::string_view(text).substr(0, equals));
    bool known = false;
    for (const char* k : kNames) known |= name == k;
    if (!known) {
      throw Error("--push-credentials " + *file + " line " + std::to_string(number) +
                      ": expected NAME=VALUE with a NAME of OTEL_EXPORTER_OTLP_HEADERS, "
                      "OTEL_EXPORTER_OTLP_PROFILES_HEADERS or PYROSCOPE_* (AUTH_TOKEN, BASIC_AUTH_USER, "
                      "BASIC_AUTH_PASSWORD, TENANT_ID)",
                  ErrorKind::Usage);
    }
    values[name] = trim(std::string_view(text).substr(equals + 1));
  }
  return CredentialSource(std::move(values));
}

std::optional<std::string> CredentialSource::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::vector<std::string> headersFor(const PushDestination& destination, const CredentialSource& credentials) {
  if (destination.kind == PushKind::kOtlp) {
    for (const char* variable : {"OTEL_EXPORTER_OTLP_PROFILES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"}) {
      if (auto list = credentials.get(variable)) return otlpHeaders(*list, variable);
    }
    return {};
  }
  std::vector<std::string> headers;
  const auto token = credentials.get("PYROSCOPE_AUTH_TOKEN");
  const auto user = credentials.get("PYROSCOPE_BASIC_AUTH_USER");
  const auto password = credentials.get("PYROSCOPE_BASIC_AUTH_PASSWORD");
  if (user.has_value() != password.has_value()) {
    throw Error("PYROSCOPE_BASIC_AUTH_USER and PYROSCOPE_BASIC_AUTH_PASSWORD go together: give both or neither",
                ErrorKind::Usage);
  }
  if (token && user) {
    throw Error("give either PYROSCOPE_AUTH_TOKEN or PYROSCOPE_BASIC_AUTH_USER/_PASSWORD, not both",
                ErrorKind::Usage);
  }
  if (token) headers.push_back(header("Authorization", "Bearer " + *token, "PYROSCOPE_AUTH_TOKEN"));
  if (user) {
    headers.push_back(header("Authorization", "Basic " + base64(*user + ":" + *password), "PYROSCOPE_BASIC_AUTH_USER"));
  }
  if (auto tenant = credentials.get("PYROSCOPE_TENANT_ID")) {
    headers.push_back(header("X-Scope-OrgID", *tenant, "PYROSCOPE_TENANT_ID"));
  }
  return headers;
}

}  // namespace jfrbpf::push
