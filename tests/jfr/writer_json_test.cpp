// The JSON reader the JDK-tool tests rely on: if it misreads, every assertion built on it is void.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/jfr/jdk_tools.h"
#include "tests/jfr/json.h"

namespace jfrbpf::test {
namespace {

TEST(JfrWriterJson, ParsesTheShapesJfrPrints) {
  Json doc = Json::parse(R"({"recording": {"events": [{"type": "jdk.X", "values": {
      "a": -12, "b": 1.5, "c": "q\"\\\/\u00e9\ud83d\ude00", "d": null, "e": true, "f": false, "g": []}}]}})");
  const Json& values = doc["recording"]["events"][0]["values"];
  EXPECT_EQ(values["a"].integer(), -12);
  EXPECT_DOUBLE_EQ(values["b"].number(), 1.5);
  EXPECT_THROW(values["b"].integer(), std::runtime_error);
  EXPECT_EQ(values["c"].string(), "q\"\\/\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_TRUE(values["d"].isNull());
  EXPECT_TRUE(values["e"].boolean());
  EXPECT_FALSE(values["f"].boolean());
  EXPECT_EQ(values["g"].size(), 0u);
  EXPECT_FALSE(values.has("h"));
  EXPECT_THROW(values["h"], std::runtime_error);
  EXPECT_EQ(eventsOfType(doc, "jdk.X").size(), 1u);
}

// parseEach hands over the elements of the array at its path one by one, as parse() would have them, and
// keeps the rest of the document.
TEST(JfrWriterJson, ParseEachHandsOverTheArrayAtItsPath) {
  const char* text = R"({"recording": {"name": "r", "events": [{"type": "a", "values": {"events": [1, 2]}},
      {"type": "b", "values": {}}, 3]}, "events": [4]})";
  std::vector<std::string> seen;
  Json doc = Json::parseEach(text, {"recording", "events"}, [&](const Json& event) {
    seen.push_back(event.kind() == Json::Kind::Object ? event["type"].string() + std::to_string(event["values"].size())
                                                      : std::to_string(event.integer()));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a1", "b0", "3"}));
  EXPECT_EQ(doc["recording"]["name"].string(), "r");
  EXPECT_EQ(doc["recording"]["events"].size(), 0u);
  EXPECT_EQ(doc["events"].size(), 1u) << "only the array at the path is handed over";
  for (const char* bad : {"{\"recording\": {\"events\": [1,]}}", "{\"recording\": {\"events\": [1]"})
    EXPECT_THROW(Json::parseEach(bad, {"recording", "events"}, [](const Json&) {}), std::runtime_error) << bad;
}

TEST(JfrWriterJson, RejectsMalformedInput) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"open", "tru", "[1] 2", "{\"a\":\"\\x\"}"})
    EXPECT_THROW(Json::parse(bad), std::runtime_error) << bad;
}

TEST(JfrWriterJson, IsoDurationsAndInstants) {
  EXPECT_EQ(isoDurationNanos("PT0.01S"), 10'000'000);
  EXPECT_EQ(isoDurationNanos("PT0.0000503S"), 50'300);
  EXPECT_EQ(isoDurationNanos("PT1M2.5S"), 62'500'000'000);
  EXPECT_EQ(isoDurationNanos("PT-0.001S"), -1'000'000);
  EXPECT_EQ(isoInstantNanos("1970-01-01T00:00:01.000000002Z"), 1'000'000'002);
  EXPECT_EQ(isoInstantNanos("2023-11-14T22:13:20Z"), 1'700'000'000'000'000'000);
}

}  // namespace
}  // namespace jfrbpf::test
