// --push's destinations and credentials as the command line and the environment give them.
#include <gtest/gtest.h>

#include "base/error.h"
#include "userspace/push/http_client.h"
#include "userspace/push/push_credentials.h"
#include "userspace/push/push_destination.h"

namespace jfrbpf::push {
namespace {

TEST(PushDestination, AUrlWithoutAPathGetsTheSignalsOwn) {
  EXPECT_EQ(parsePushDestination("otlp=http://collector:4318").endpoint, "http://collector:4318/v1development/profiles");
  EXPECT_EQ(parsePushDestination("otlp=http://collector:4318/").endpoint, "http://collector:4318/v1development/profiles");
  EXPECT_EQ(parsePushDestination("otlp=https://gw/otlp/v1development/profiles").endpoint,
            "https://gw/otlp/v1development/profiles");
  EXPECT_EQ(parsePushDestination("pyroscope=http://pyroscope:4040").endpoint, "http://pyroscope:4040/ingest");
  EXPECT_EQ(parsePushDestination("pyroscope=https://gw/pyroscope/").endpoint, "https://gw/pyroscope/ingest");
  EXPECT_EQ(parsePushDestination("pyroscope=http://p:4040/ingest").endpoint, "http://p:4040/ingest");
}

TEST(PushDestination, SpoolNamesStayTheSameAndDifferPerEndpoint) {
  const auto a = parsePushDestination("otlp=http://a:4318");
  EXPECT_EQ(a.spoolName(), parsePushDestination("otlp=http://a:4318/").spoolName());
  EXPECT_NE(a.spoolName(), parsePushDestination("otlp=http://b:4318").spoolName());
  EXPECT_EQ(a.spoolName().rfind("otlp-", 0), 0u);
  EXPECT_EQ(a.name(), "otlp=http://a:4318");
}

TEST(PushDestination, BadInputIsNamed) {
  auto message = [](const char* text) {
    try {
      parsePushDestination(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("http://a:4318").find("expected otlp=URL or pyroscope=URL"), std::string::npos);
  EXPECT_NE(message("zipkin=http://a").find("unknown destination 'zipkin'"), std::string::npos);
  EXPECT_NE(message("otlp=ftp://a").find("http:// or https://"), std::string::npos);
  EXPECT_NE(message("otlp=http://:4318").find("names no host"), std::string::npos);
  EXPECT_NE(message("otlp=http://user:secret@a:4318").find("credentials do not go in the URL"), std::string::npos);
  EXPECT_NE(message("pyroscope=http://a/?x=1").find("no query"), std::string::npos);
  EXPECT_NE(message("otlp=http://a b").find("space"), std::string::npos);
}

TEST(PushCredentials, OtlpHeadersAreOpenTelemetrysListPercentDecoded) {
  const auto otlp = parsePushDestination("otlp=http://a");
  CredentialSource both({{"OTEL_EXPORTER_OTLP_HEADERS", "a=1"},
                         {"OTEL_EXPORTER_OTLP_PROFILES_HEADERS", "authorization=Basic%20dXM6cHc=, x-b = 2"}});
  EXPECT_EQ(headersFor(otlp, both), (std::vector<std::string>{"authorization: Basic dXM6cHc=", "x-b: 2"}));
  EXPECT_TRUE(headersFor(otlp, CredentialSource({})).empty());
  EXPECT_THROW(headersFor(otlp, CredentialSource({{"OTEL_EXPORTER_OTLP_HEADERS", "novalue"}})), Error);
  EXPECT_THROW(headersFor(otlp, CredentialSource({{"OTEL_EXPORTER_OTLP_HEADERS", "a=%zz"}})), Error);
  EXPECT_THROW(headersFor(otlp, CredentialSource({{"OTEL_EXPORTER_OTLP_HEADERS", "a=b%0Ac"}})), Error);
}

TEST(PushCredentials, PyroscopeTakesATokenOrBasicAuthAndATenant) {
  const auto pyroscope = parsePushDestination("pyroscope=http://a");
  EXPECT_EQ(headersFor(pyroscope, CredentialSource({{"PYROSCOPE_BASIC_AUTH_USER", "Aladdin"},
                                                    {"PYROSCOPE_BASIC_AUTH_PASSWORD", "open sesame"},
                                                    {"PYROSCOPE_TENANT_ID", "t1"}})),
            (std::vector<std::string>{"Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "X-Scope-OrgID: t1"}));
  EXPECT_THROW(headersFor(pyroscope, CredentialSource({{"PYROSCOPE_BASIC_AUTH_USER", "u"}})), Error);
  EXPECT_THROW(headersFor(pyroscope, CredentialSource({{"PYROSCOPE_AUTH_TOKEN", "t"},
                                                       {"PYROSCOPE_BASIC_AUTH_USER", "u"},
                                                       {"PYROSCOPE_BASIC_AUTH_PASSWORD", "p"}})),
               Error);
}

HttpResult answer(long status, std::string body = "", std::string redirect = "") {
  HttpResult result;
  result.status = status;
  result.body = std::move(body);
  result.redirect = std::move(redirect);
  return result;
}

TEST(HttpResult, WhatIsTriedAgainAndHowItIsSaid) {
  HttpResult refused = answer(0);
  refused.error = "Connection refused";
  EXPECT_TRUE(refused.retryable());
  EXPECT_EQ(refused.describe(), "no answer: Connection refused");
  const HttpResult moved = answer(301, "", "https://collector/v1development/profiles");
  EXPECT_TRUE(moved.retryable());  // the files wait while the user mends the URL
  EXPECT_EQ(moved.describe(),
            "HTTP 301: redirected to https://collector/v1development/profiles; give that URL to --push");
  for (long status : {408L, 429L, 500L, 502L, 503L, 504L}) EXPECT_TRUE(answer(status).retryable()) << status;
  for (long status : {400L, 401L, 403L, 404L, 413L, 415L, 422L, 501L, 505L}) {
    EXPECT_FALSE(answer(status).retryable()) << status;
  }
  EXPECT_EQ(answer(422, "{\"code\":\"unknown\"}\r\nmore").describe(), "HTTP 422: {\"code\":\"unknown\"}");
  // OTLP answers in protobuf, and a hostile server could send terminal escapes: neither is printed.
  EXPECT_EQ(answer(400, std::string("\x0a\x05error", 7)).describe(), "HTTP 400");
  EXPECT_EQ(answer(500, "\x1b[2Jgone").describe(), "HTTP 500");
}

}  // namespace
}  // namespace jfrbpf::push
