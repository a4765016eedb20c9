// The reader against recordings made by the JDK itself (JDK 17 and, when installed, JDK 25), checked
// against the JDK's own `jfr summary` and `jfr print --json` for the same files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <limits>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "formats/jfr/reader/recording.h"
#include "test_config.h"
#include "tests/jfrreader/jdk_recordings.h"
#include "tests/jfrreader/json.h"

namespace jfrbpf::jfr::reader {
namespace {

using namespace jfrbpf::jfr::testing;

// ---- How `jfr print --json` renders values -------------------------------------------------------------

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// java.time.Instant.toString: UTC, fraction in groups of three digits, trailing groups of zeros dropped.
std::string instantText(int64_t epochNanos) {
  int64_t seconds = floorDiv(epochNanos, 1'000'000'000);
  int64_t nanos = epochNanos - seconds * 1'000'000'000;
  time_t t = static_cast<time_t>(seconds);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char text[64];
  size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  if (nanos % 1'000'000'000 == 0) {
  } else if (nanos % 1'000'000 == 0) {
    n += std::snprintf(text + n, sizeof text - n, ".%03lld", static_cast<long long>(nanos / 1'000'000));
  } else if (nanos % 1'000 == 0) {
    n += std::snprintf(text + n, sizeof text - n, ".%06lld", static_cast<long long>(nanos / 1'000));
  } else {
    n += std::snprintf(text + n, sizeof text - n, ".%09lld", static_cast<long long>(nanos));
  }
  return std::string(text, n) + "Z";
}

// java.time.Duration.toString: "PT1H2M3.5S", "PT0.000001S", "PT-0.5S"; nanos in [0, 1e9).
std::string durationText(int64_t seconds, int64_t nanos) {
  if (seconds == 0 && nanos == 0) return "PT0S";
  int64_t effective = seconds < 0 && nanos > 0 ? seconds + 1 : seconds;
  int64_t hours = effective / 3600;
  int64_t minutes = (effective % 3600) / 60;
  int64_t secs = effective % 60;
  std::string out = "PT";
  if (hours != 0) out += std::to_string(hours) + "H";
  if (minutes != 0) out += std::to_string(minutes) + "M";
  if (secs == 0 && nanos == 0 && out.size() > 2) return out;
  if (seconds < 0 && nanos > 0 && secs == 0) {
    out += "-0";
  } else {
    out += std::to_string(secs);
  }
  if (nanos > 0) {
    std::string fraction = std::to_string(seconds < 0 ? 2'000'000'000 - nanos : nanos + 1'000'000'000);
    while (fraction.back() == '0') fraction.pop_back();
    out += "." + fraction.substr(1);
  }
  return out + "S";
}

std::string durationText(int64_t totalNanos) {
  int64_t seconds = floorDiv(totalNanos, 1'000'000'000);
  return durationText(seconds, totalNanos - seconds * 1'000'000'000);
}

// The Duration the JDK makes of a @Timespan value: exact in the field's unit, so no overflow to saturate.
std::optional<std::string> timespanText(const FieldInfo& field, int64_t raw, const ChunkHeader& chunk) {
  auto inUnit = [&](int64_t perSecond) {
    int64_t seconds = floorDiv(raw, perSecond);
    return durationText(seconds, (raw - seconds * perSecond) * (1'000'000'000 / perSecond));
  };
  if (field.unit == "TICKS") return durationText(chunk.ticksToNanos(raw));
  if (field.unit == "NANOSECONDS") return inUnit(1'000'000'000);
  if (field.unit == "MICROSECONDS") return inUnit(1'000'000);
  if (field.unit == "MILLISECONDS") return inUnit(1'000);
  if (field.unit == "SECONDS") return durationText(raw, 0);
  return std::nullopt;
}

class JsonComparison {
 public:
  // `jfr print` converts the ticks of every chunk with the clock of the recording's first chunk (its
  // parsers outlive the chunk when the metadata is unchanged); the reader uses each chunk's own header,
  // as the format defines. The two differ by the clocks' drift between chunk starts (< 1 µs here), so
  // timestamps are compared the JDK's way to keep the comparison exact.
  explicit JsonComparison(const ChunkHeader& firstChunk) : clock_(firstChunk) {}

  // "" when equal, else where and how they differ.
  std::string compare(const Value& value, const FieldInfo* field, const Json& json, const std::string& path,
                      int depth = 0) const {
    if (depth > 64) return "";  // deeper than any standard type nests; JSON shows the same constants again
    auto differ = [&](const std::string& mine) { return path + ": reader " + mine + ", jfr " + render(json); };
    if (value.isNull()) return json.type == Json::Type::kNull ? "" : differ("null");
    if (field && !field->array && value.kind() == Value::Kind::kLong && !field->unit.empty()) {
      int64_t raw = value.asLong();
      bool sentinel = raw == std::numeric_limits<int64_t>::min() || raw == std::numeric_limits<int64_t>::max();
      std::optional<std::string> text;
      if (field->contentType == "jdk.jfr.Timestamp") {
        if (auto nanos = timestampToEpochNanos(*field, raw, clock_)) text = instantText(*nanos);
      } else if (field->contentType == "jdk.jfr.Timespan") {
        text = timespanText(*field, raw, clock_);
      }
      if (text) {
        // JDK versions render Long.MIN_VALUE/MAX_VALUE ("no value", "forever") differently; any duration will do.
        if (sentinel && json.type == Json::Type::kString) return "";
        return json.type == Json::Type::kString && json.text == *text ? "" : differ(*text);
      }
    }
    switch (value.kind()) {
      case Value::Kind::kNull:
        break;
      case Value::Kind::kBool:
        return json.type == Json::Type::kBool && json.boolean == value.asBool() ? "" : differ(value.asBool() ? "true" : "false");
      case Value::Kind::kLong: {
        std::string mine = std::to_string(value.asLong());
        if (json.type == Json::Type::kNumber && json.text == mine) return "";
        if (field && field->unsignedValue) {  // JDK 25 shows @Unsigned bits unsigned at the declared width, JDK 17 signed
          uint64_t bits = static_cast<uint64_t>(value.asLong());
          const std::string& type = field->type->name;
          if (type == "int") bits &= 0xFFFFFFFFu;
          if (type == "short") bits &= 0xFFFFu;
          if (type == "byte") bits &= 0xFFu;
          mine = std::to_string(bits);
        }
        return json.type == Json::Type::kNumber && json.text == mine ? "" : differ(mine);
      }
      case Value::Kind::kDouble: {
        double mine = value.asDouble();
        if (json.type != Json::Type::kNumber) return differ(std::to_string(mine));
        double theirs = std::strtod(json.text.c_str(), nullptr);
        if (json.text == "NaN") return std::isnan(mine) ? "" : differ(std::to_string(mine));
        bool isFloat = field && field->type->name == "float";
        bool same = isFloat ? static_cast<float>(theirs) == static_cast<float>(mine)
                            : (mine == theirs || std::fabs(mine - theirs) <= 1e-15 * std::fabs(mine));
        return same ? "" : differ(std::to_string(mine));
      }
      case Value::Kind::kString:
        return json.type == Json::Type::kString && json.text == value.asString() ? "" : differ('"' + std::string(value.asString()) + '"');
      case Value::Kind::kArray: {
        auto items = value.asArray();
        if (json.type != Json::Type::kArray || json.items.size() != items.size()) {
          return differ("array of " + std::to_string(items.size()));
        }
        for (size_t i = 0; i < items.size(); ++i) {
          auto d = compare(items[i], field, json.items[i], path + "[" + std::to_string(i) + "]", depth + 1);
          if (!d.empty()) return d;
        }
        return "";
      }
      case Value::Kind::kObject: {
        const RecordedObject& object = *value.asObject();
        if (json.type != Json::Type::kObject) return differ("an object");
        if (json.names.size() != object.fieldCount()) {
          return differ("an object of " + std::to_string(object.fieldCount()) + " fields");
        }
        for (size_t i = 0; i < object.fieldCount(); ++i) {
          const FieldInfo& f = object.type().fields[i];
          const Json* member = json.member(f.name);
          if (!member) return path + "." + f.name + ": missing in jfr's output";
          auto d = compare(object.field(i), &f, *member, path + "." + f.name, depth + 1);
          if (!d.empty()) return d;
        }
        return "";
      }
    }
    return "";
  }

 private:
  static std::string render(const Json& json) {
    switch (json.type) {
      case Json::Type::kNull: return "null";
      case Json::Type::kBool: return json.boolean ? "true" : "false";
      case Json::Type::kNumber: return json.text;
      case Json::Type::kString: return '"' + json.text + '"';
      case Json::Type::kArray: return "array of " + std::to_string(json.items.size());
      case Json::Type::kObject: return "object of " + std::to_string(json.names.size()) + " fields";
    }
    return "?";
  }

  const ChunkHeader& clock_;
};

TEST(JfrReaderJsonText, InstantsAndDurationsRenderLikeJava) {
  EXPECT_EQ(instantText(1'795'299'751'329'326'000), "2026-11-21T22:22:31.329326Z");
  EXPECT_EQ(instantText(1'795'299'751'000'000'000), "2026-11-21T22:22:31Z");
  EXPECT_EQ(instantText(1'795'299'751'120'000'000), "2026-11-21T22:22:31.120Z");
  EXPECT_EQ(instantText(1'795'299'751'329'445'679), "2026-11-21T22:22:31.329445679Z");
  EXPECT_EQ(durationText(0), "PT0S");
  EXPECT_EQ(durationText(std::numeric_limits<int64_t>::max() / 1000, 807'000'000), "PT2562047788015H12M55.807S");
  EXPECT_EQ(durationText(2'774), "PT0.000002774S");
  EXPECT_EQ(durationText(1'000'000), "PT0.001S");
  EXPECT_EQ(durationText(3'723'500'000'000), "PT1H2M3.5S");
  EXPECT_EQ(durationText(3'600'000'000'000), "PT1H");
  EXPECT_EQ(durationText(-500'000'000), "PT-0.5S");
  EXPECT_EQ(durationText(-1'500'000'000), "PT-1.5S");
}

// The line of JfrReaderWorkload.java containing `text`.
int sourceLine(std::string_view text) {
  std::ifstream in(std::string(jfrbpf::test::kSourceDir) + "/tests/jfrreader/JfrReaderWorkload.java");
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find(text) != std::string::npos) return number;
  }
  ADD_FAILURE() << "no line with " << text;
  return -1;
}

// ---- The recordings ---------------------------------------------------------------------------------------

struct JdkCase {
  const char* name;
  bool jdk25;
};
void PrintTo(const JdkCase& c, std::ostream* out) { *out << c.name; }

class JfrReaderJdk : public ::testing::TestWithParam<JdkCase> {
 protected:
  void SetUp() override {
    std::string home = GetParam().jdk25 ? jfrbpf::test::kJdk25Home : jfrbpf::test::kJdkHome;
    if (home.empty() || !std::filesystem::exists(home + "/bin/java")) {
      GTEST_SKIP() << "no JDK 25 installed (configure with -DJFRBPF_JDK25_HOME=<jdk> to run this)";
    }
    std::string options = "settings=profile";
    if (GetParam().jdk25) options = "jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=5ms," + options;
    recording_ = recordWorkload(home, GetParam().name, options);
  }

  JdkRecording recording_;
};

TEST_P(JfrReaderJdk, EventCountsMatchJfrSummary) {
  Summary summary = jfrSummary(recording_);
  auto recording = Recording::open(recording_.path);
  EXPECT_EQ(static_cast<int>(recording.chunks().size()), summary.chunks);
  EXPECT_GE(summary.chunks, 2) << "the workload rotates chunks by starting a second recording";
  std::map<std::string, long> counts;
  recording.forEachEvent([&](const RecordedEvent& e) { ++counts[e.type().name]; });
  for (const auto& [type, count] : summary.counts) {
    EXPECT_EQ(counts.count(type) ? counts[type] : 0, count) << type;
  }
  for (const auto& [type, count] : counts) EXPECT_TRUE(summary.counts.count(type)) << type << " not in jfr summary";
  EXPECT_GT(counts["jdk.ExecutionSample"], 20);
  EXPECT_EQ(counts["jfrreader.Marker"], 11);
  if (GetParam().jdk25) {
    EXPECT_GT(counts["jdk.CPUTimeSample"], 20);
  }
}

TEST_P(JfrReaderJdk, EveryEventMatchesJfrPrintJson) {
  Json json = parseJson(jfrPrintJson(recording_));
  const Json* events = json.member("recording") ? json.member("recording")->member("events") : nullptr;
  ASSERT_NE(events, nullptr);
  auto recording = Recording::open(recording_.path);

  // `jfr print` orders each chunk's events by end time (stable); the reader delivers file order.
  struct Position {
    size_t chunk;
    int64_t endNanos;
    size_t sequence;
  };
  std::vector<Position> order;
  size_t chunkIndex = 0;
  recording.forEachChunk([&](const Chunk& chunk) {
    chunk.forEachEvent([&](const RecordedEvent& e) {
      order.push_back({chunkIndex, e.startTimeNanos() + e.durationNanos(), order.size()});
    });
    ++chunkIndex;
  });
  std::stable_sort(order.begin(), order.end(), [](const Position& a, const Position& b) {
    return std::tie(a.chunk, a.endNanos) < std::tie(b.chunk, b.endNanos);
  });
  std::vector<size_t> jsonIndex(order.size());
  for (size_t i = 0; i < order.size(); ++i) jsonIndex[order[i].sequence] = i;
  ASSERT_EQ(order.size(), events->items.size());

  size_t sequence = 0;
  std::vector<std::string> differences;
  std::set<std::string> typesCompared;
  recording.forEachEvent([&](const RecordedEvent& e) {
    size_t i = jsonIndex[sequence++];
    const Json& theirs = events->items[i];
    const Json* type = theirs.member("type");
    const Json* values = theirs.member("values");
    if (!type || type->text != e.type().name || !values) {
      differences.push_back("event " + std::to_string(i) + ": reader " + e.type().name + ", jfr " + (type ? type->text : "?"));
      return;
    }
    typesCompared.insert(e.type().name);
    auto d = JsonComparison(recording.chunks().front()).compare(Value::ofObject(&e), nullptr, *values, e.type().name);
    if (!d.empty()) differences.push_back("event " + std::to_string(i) + " " + d);
  });
  std::map<std::string, std::string> byField;  // one example per differing field
  for (const std::string& d : differences) byField.emplace(d.substr(d.find(' ', 6) + 1, d.find(':', 6) - d.find(' ', 6) - 1), d);
  std::string examples;
  for (const auto& [where, example] : byField) examples += "\n  " + example;
  EXPECT_TRUE(differences.empty()) << differences.size() << " of " << order.size() << " events differ:" << examples;
  for (const char* type : {"jdk.ExecutionSample", "jdk.ThreadStart", "jdk.ActiveSetting", "jdk.JVMInformation",
                           "jdk.SafepointBegin", "jfrreader.Marker"}) {
    EXPECT_TRUE(typesCompared.count(type)) << type;
  }
  if (GetParam().jdk25) {
    EXPECT_TRUE(typesCompared.count("jdk.CPUTimeSample"));
  }
}

TEST_P(JfrReaderJdk, SamplesCarryWorkloadStacksAndThreads) {
  auto recording = Recording::open(recording_.path);
  std::map<std::string, int> samplesByThread;
  std::set<std::string> frameTypes;
  std::set<std::pair<std::string, int>> workloadLines;
  int samples = 0;
  int workloadSamples = 0;
  int threadless = 0;
  std::string sampleType = GetParam().jdk25 ? "jdk.CPUTimeSample" : "jdk.ExecutionSample";
  recording.forEachEvent(
      [&](const RecordedEvent& e) {
        ++samples;
        auto thread = threadOf(e);
        // The JDK itself now and then writes a sample whose thread constant it never wrote (a thread
        // exiting as the recording ends): `jfr print` shows null there too, which the parity test checks.
        if (!thread) {
          ++threadless;
          return;
        }
        EXPECT_GT(thread->osThreadId, 0);
        StackTraceView stack(e.get("stackTrace"));
        bool inWorkload = false;
        for (const Frame& f : stack.frames()) {
          frameTypes.insert(std::string(f.type));
          if (f.className != "JfrReaderWorkload") continue;
          inWorkload = true;
          workloadLines.emplace(std::string(f.methodName), f.lineNumber);
          if (f.methodName == "compute" || f.methodName == "recurse") {
            EXPECT_EQ(f.descriptor, "(I)J");
          }
        }
        if (inWorkload) {
          ++workloadSamples;
          ++samplesByThread[std::string(thread->javaName)];
          EXPECT_EQ(thread->osName, thread->javaName);
          EXPECT_GT(thread->javaThreadId, 0);
        }
      },
      [&](const TypeInfo& type) { return type.name == sampleType; });
  EXPECT_GT(samples, 20);
  EXPECT_LE(threadless, std::max(2, samples / 100)) << "samples without a thread are the JDK's rare exception";
  EXPECT_GT(workloadSamples, samples / 2) << "the workload burns CPU in its own methods";
  EXPECT_GT(samplesByThread["main"], 0);
  EXPECT_GT(samplesByThread["jfrreader-worker"], 0);
  int loopLine = sourceLine("acc += (i * 31L)");
  EXPECT_TRUE(workloadLines.count({"compute", loopLine}) || workloadLines.count({"compute", loopLine - 1}))
      << "samples land in the loop of compute(), lines " << loopLine - 1 << "-" << loopLine;
  EXPECT_TRUE(workloadLines.count({"recurse", sourceLine("return recurse(depth - 1)")}));
  for (const std::string& type : frameTypes) {
    EXPECT_TRUE(type == "Interpreted" || type == "JIT compiled" || type == "Inlined" || type == "Native") << type;
  }
  EXPECT_TRUE(frameTypes.count("JIT compiled"));
}

TEST_P(JfrReaderJdk, MarkerEventFieldsOfEveryJavaType) {
  auto recording = Recording::open(recording_.path);
  std::vector<int64_t> negativeInts;
  recording.forEachEvent(
      [&](const RecordedEvent& e) {
        std::string_view ascii = e.getString("ascii");
        ASSERT_TRUE(ascii.starts_with("marker-"));
        int64_t i = std::stoll(std::string(ascii.substr(7)));
        EXPECT_EQ(e.getLong("smallShort"), static_cast<int16_t>(-1000 * i));
        EXPECT_EQ(e.getString("latin1"), "café crème " + std::to_string(i));
        EXPECT_EQ(e.getString("unicode"), "λ→∑ 😀 " + std::to_string(i));
        EXPECT_TRUE(e.get("nothing").isNull());
        EXPECT_EQ(e.get("empty").kind(), Value::Kind::kString);
        EXPECT_EQ(e.getBool("flag"), (i & 1) == 1);
        EXPECT_EQ(e.getLong("smallByte"), static_cast<int8_t>(-i));
        EXPECT_EQ(e.getString("letter"), std::string(1, static_cast<char>('A' + i % 26)));
        EXPECT_EQ(e.getLong("negativeLong"), std::numeric_limits<int64_t>::min() + i);
        EXPECT_EQ(e.getLong("bigLong"), std::numeric_limits<int64_t>::max() - i);
        EXPECT_FLOAT_EQ(static_cast<float>(e.getDouble("ratio")), -1.5f * static_cast<float>(i));
        EXPECT_DOUBLE_EQ(e.getDouble("precise"), M_PI * static_cast<double>(i));
        EXPECT_EQ(e.timespanNanos("elapsed"), 1'000'000 * i);
        EXPECT_EQ(e.getObject("clazz")->getString("name"), "JfrReaderWorkload");
        EXPECT_EQ(threadInfo(e.get("thread"))->javaName, "main");
        const TypeInfo& type = e.type();
        EXPECT_EQ(type.label, "Reader Test Marker");
        EXPECT_EQ(type.category, (std::vector<std::string>{"jfrbpf", "Tests"}));
        negativeInts.push_back(e.getLong("negativeInt"));
      },
      [](const TypeInfo& type) { return type.name == "jfrreader.Marker"; });
  ASSERT_EQ(negativeInts.size(), 11u);
  EXPECT_EQ(negativeInts.front(), -123456);
}

INSTANTIATE_TEST_SUITE_P(JfrReader, JfrReaderJdk, ::testing::Values(JdkCase{"jdk17", false}, JdkCase{"jdk25", true}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(JfrReaderJdkFiles, ConcatenatedJdk17AndJdk25Recordings) {
  std::string home25 = jfrbpf::test::kJdk25Home;
  if (home25.empty()) GTEST_SKIP() << "no JDK 25 installed";
  auto r17 = recordWorkload(jfrbpf::test::kJdkHome, "jdk17", "settings=profile");
  auto r25 = recordWorkload(home25, "jdk25",
                            "jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=5ms,settings=profile");
  std::string both = std::filesystem::path(r17.path).parent_path() / "jdk17+jdk25.jfr";
  {
    std::ofstream out(both, std::ios::binary | std::ios::trunc);
    for (const auto& path : {r17.path, r25.path}) {
      std::ifstream in(path, std::ios::binary);
      out << in.rdbuf();
    }
  }
  auto count = [](const std::string& path) {
    auto recording = Recording::open(path);
    std::pair<size_t, size_t> out{recording.chunks().size(), 0};
    recording.forEachEvent([&](const RecordedEvent&) { ++out.second; });
    return out;
  };
  auto a = count(r17.path), b = count(r25.path), ab = count(both);
  EXPECT_EQ(ab.first, a.first + b.first);
  EXPECT_EQ(ab.second, a.second + b.second);
  Summary summary = jfrSummary({both, r25.jfrTool});
  EXPECT_EQ(summary.chunks, static_cast<int>(ab.first));
  std::filesystem::remove(both);
}

}  // namespace
}  // namespace jfrbpf::jfr::reader
