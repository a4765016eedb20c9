#include "tests/view/lock_truth.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "formats/convert/frame_names.h"
#include "tests/jfr/json.h"
#include "tests/support/child_process.h"

namespace jfrbpf::test {
namespace {

void add(WaitTotals& totals, int64_t nanos) {
  totals.events += 1;
  totals.nanos += nanos;
}

// "name\ttid" of a java.lang.Thread value; "" for null.
std::string threadKey(const Json& thread) {
  if (thread.isNull()) return "";
  std::string name = thread["javaName"].isNull() ? "" : thread["javaName"].string();
  if (name.empty()) name = thread["osName"].string();
  return name + "\t" + std::to_string(thread["osThreadId"].integer());
}

// Classes (internal names) whose frames every wait of a kind passes through, as the locks view skips them to
// find a wait's site: Object.wait, and LockSupport, Unsafe and java.util.concurrent.locks for parks.
bool machinery(convert::LockKind kind, const std::string& className) {
  if (kind == convert::LockKind::kWait) return className == "java/lang/Object";
  if (kind == convert::LockKind::kPark) {
    return className.starts_with("java/util/concurrent/locks/") || className == "jdk/internal/misc/Unsafe" ||
           className == "sun/misc/Unsafe";
  }
  return false;
}

}  // namespace

int64_t isoDurationNanos(const std::string& text) {
  EXPECT_TRUE(text.starts_with("PT")) << text;
  int64_t nanos = 0;
  size_t pos = 2;
  while (pos < text.size()) {
    size_t end = text.find_first_of("HMS", pos);
    if (end == std::string::npos) break;
    std::string number = text.substr(pos, end - pos);
    const bool negative = number.starts_with('-');
    if (negative) number.erase(0, 1);
    size_t dot = number.find('.');
    int64_t whole = std::stoll(number.substr(0, dot));
    int64_t fraction = 0;
    if (dot != std::string::npos) {
      std::string digits = number.substr(dot + 1);
      digits.resize(9, '0');  // nanoseconds: Duration has no finer unit
      fraction = std::stoll(digits);
    }
    int64_t unit = text[end] == 'H' ? 3'600'000'000'000 : text[end] == 'M' ? 60'000'000'000 : 1'000'000'000;
    int64_t part = whole * unit + (text[end] == 'S' ? fraction : 0);
    nanos += negative ? -part : part;
    pos = end + 1;
  }
  return nanos;
}

LockTruth jfrPrintLockTruth(const std::string& jdkHome, const std::string& file) {
  LockTruth truth;
  std::string events;
  for (convert::LockKind kind : convert::kLockKinds) {
    events += (events.empty() ? "" : ",") + std::string(convert::lockKindInfo(kind).event);
  }
  // jfr print shows 5 frames by default: too few to reach a park's site below java.util.concurrent.locks.
  ChildProcess jfr({jdkHome + "/bin/jfr", "print", "--json", "--stack-depth", "64", "--events", events, file});
  std::string text = jfr.readAll(std::chrono::seconds(120));
  EXPECT_EQ(jfr.wait(std::chrono::seconds(10)), 0) << text.substr(0, 2000);
  Json json;
  try {
    json = Json::parse(text);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "jfr print --json: " << e.what();
    return truth;
  }
  for (const Json& event : json["recording"]["events"].items()) {
    auto kind = convert::lockKindOf(event["type"].string());
    EXPECT_TRUE(kind) << event["type"].string();
    if (!kind) continue;
    const convert::LockKindInfo& info = convert::lockKindInfo(*kind);
    const Json& values = event["values"];
    LockKindTruth& k = truth[static_cast<size_t>(*kind)];
    const int64_t nanos = isoDurationNanos(values["duration"].string());
    add(k.total, nanos);
    const Json& type = values[info.classField];
    add(k.byClass[type.isNull() ? std::string(info.noClass) : convert::javaTypeName(type["name"].string())], nanos);
    const Json& frames = values["stackTrace"]["frames"];
    EXPECT_GT(frames.size(), 0u);
    if (frames.size() > 0) {
      // The JDK's stacks are all Java frames: the site is the innermost outside the kind's machinery.
      size_t at = 0;
      while (at + 1 < frames.size() && machinery(*kind, frames[at]["method"]["type"]["name"].string())) ++at;
      const Json& method = frames[at]["method"];
      add(k.bySite[convert::javaMethodName(method["type"]["name"].string(), method["name"].string(),
                                           method["descriptor"].string())],
          nanos);
    }
    add(k.byThread[threadKey(values["eventThread"])], nanos);
    if (!info.ownerField.empty()) add(k.byOwner[threadKey(values[info.ownerField])], nanos);
  }
  return truth;
}

}  // namespace jfrbpf::test
