#pragma once
// Test helper: the lock waits of a recording as the JDK's own `jfr print --json` reads them (jdk.JavaMonitorEnter,
// jdk.JavaMonitorWait, jdk.ThreadPark), added up the ways the locks view and `convert --lock` add them, so
// that tests compare jfrbpf's reading of the JDK's events with the JDK's.
#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "formats/convert/lock_collector.h"

namespace jfrbpf::test {

struct WaitTotals {
  uint64_t events = 0;
  int64_t nanos = 0;
  bool operator==(const WaitTotals&) const = default;
};

// The waits of one kind. Keys are a table row's label cells joined by '\t': the class ("LockSeed$Ledger",
// as Java spells it), the site (the top frame, "LockSeed$Ledger.add(long)", below Object.wait for waits, below
// LockSupport, Unsafe and java.util.concurrent.locks for parks), the thread and the owner ("ledger-1\t20631":
// Java name, else OS name, and OS thread id; "" for a null owner).
struct LockKindTruth {
  WaitTotals total;
  std::map<std::string, WaitTotals> byClass, bySite, byThread, byOwner;
};
using LockTruth = std::array<LockKindTruth, convert::kLockKinds.size()>;  // by convert::LockKind

// Runs `jdkHome`/bin/jfr print --json on `file`; fails the test (and returns what it has) when it cannot.
LockTruth jfrPrintLockTruth(const std::string& jdkHome, const std::string& file);

// "PT0.009967557S", "PT1M5.2S": java.time.Duration as `jfr print --json` writes it, in nanoseconds.
int64_t isoDurationNanos(const std::string& text);

}  // namespace jfrbpf::test
