#include "userspace/push/push_destination.h"

#include <cstdint>
#include <cstdio>

#include "base/error.h"

namespace jfrbpf::push {
namespace {

constexpr std::string_view kOtlpProfilesPath = "/v1development/profiles";
constexpr std::string_view kPyroscopeIngestPath = "/ingest";

[[noreturn]] void reject(std::string_view text, const std::string& why) {
  throw Error("invalid --push '" + std::string(text) + "': " + why, ErrorKind::Usage);
}

}  // namespace

std::string PushDestination::name() const {
  return std::string(kind == PushKind::kOtlp ? "otlp=" : "pyroscope=") + url;
}

std::string PushDestination::spoolName() const {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a: stable across runs and builds, unlike std::hash
  for (unsigned char c : endpoint) hash = (hash ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  return std::string(kind == PushKind::kOtlp ? "otlp-" : "pyroscope-") + hex;
}

PushDestination parsePushDestination(std::string_view text) {
  const size_t equals = text.find('=');
  if (equals == std::string_view::npos) reject(text, "expected otlp=URL or pyroscope=URL");
  PushDestination destination;
  const std::string_view kind = text.substr(0, equals);
  if (kind == "otlp") {
    destination.kind = PushKind::kOtlp;
  } else if (kind == "pyroscope") {
    destination.kind = PushKind::kPyroscope;
  } else {
    reject(text, "unknown destination '" + std::string(kind) + "' (expected otlp or pyroscope)");
  }
  destination.url = std::string(text.substr(equals + 1));
  const std::string& url = destination.url;
  for (unsigned char c : url) {
    if (c <= ' ' || c >= 0x7f) reject(text, "the URL holds a space or a control or non-ASCII character");
  }
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos || (url.substr(0, scheme) != "http" && url.substr(0, scheme) != "https")) {
    reject(text, "the URL must begin with http:// or https://");
  }
  const size_t hostStart = scheme + 3;
  const size_t pathStart = url.find_first_of("/?#", hostStart);
  const std::string authority = url.substr(hostStart, pathStart == std::string::npos ? std::string::npos
                                                                                     : pathStart - hostStart);
  if (authority.empty() || authority.front() == ':') reject(text, "the URL names no host");
  if (authority.find('@') != std::string::npos) {
    reject(text, "credentials do not go in the URL, which ps shows: use --push-credentials or the environment");
  }
  if (url.find_first_of("?#", hostStart) != std::string::npos) reject(text, "the URL takes no query or fragment");
  const bool hasPath = pathStart != std::string::npos && url.size() > pathStart + 1;
  std::string base = url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (destination.kind == PushKind::kOtlp) {
    destination.endpoint = hasPath ? url : base + std::string(kOtlpProfilesPath);
  } else {
    // Pyroscope's server may sit under a path prefix (behind a gateway); /ingest is always its last part.
    destination.endpoint = base.ends_with(kPyroscopeIngestPath) ? base : base + std::string(kPyroscopeIngestPath);
  }
  return destination;
}

}  // namespace jfrbpf::push
