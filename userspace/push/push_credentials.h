#pragma once
// The headers each destination is sent with, from the environment or a file (--push-credentials), never
// from the command line, which `ps` shows to every user. The names are those the ecosystem's own clients
// read:
//   OTEL_EXPORTER_OTLP_PROFILES_HEADERS, else OTEL_EXPORTER_OTLP_HEADERS: "name=value,name2=value2", values
//     percent-decoded (OpenTelemetry's exporter configuration), e.g. "authorization=Bearer%20abc";
//   PYROSCOPE_AUTH_TOKEN (a bearer token), PYROSCOPE_BASIC_AUTH_USER and PYROSCOPE_BASIC_AUTH_PASSWORD, and
//     PYROSCOPE_TENANT_ID (the X-Scope-OrgID header of a multi-tenant Pyroscope), as its Java agent reads them.
// The file holds NAME=VALUE lines (# begins a comment) with the same names and wins over the environment.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "userspace/push/push_destination.h"

namespace jfrbpf::push {

class CredentialSource {
 public:
  // The environment, and `file` when given. Throws jfrbpf::Error (usage) when the file cannot be read, is not
  // a regular file, belongs to someone but root and jfrbpf's user, can be read or written by users other than
  // its owner, or has a line that is not NAME=VALUE.
  static CredentialSource load(const std::optional<std::string>& file);
  // For tests: exactly these values.
  explicit CredentialSource(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  std::optional<std::string> get(const std::string& name) const;

 private:
  std::map<std::string, std::string> values_;
};

// "Name: value" lines for `destination`. Throws jfrbpf::Error (usage) for a header list that cannot be
// parsed, a basic-auth user without a password (or the reverse), or a value with a line break.
std::vector<std::string> headersFor(const PushDestination& destination, const CredentialSource& credentials);

}  // namespace jfrbpf::push
