// The locks view and `convert --lock` on recordings the JDK itself wrote: tests/view/java/LockSeed.java (three
// threads blocking on a synchronized LockSeed$Ledger, one in Object.wait(5) on a LockSeed$Mailbox that another
// notifies now and then, two contending on a ReentrantLock) under the JDK's JFR with tests/view/java/locks.jfc.
// The checked-in seed (tests/testdata/view/seeds/locks.jfr, made that way with JDK 17) is read on every run;
// the workload is also recorded afresh by JDK 17 and, when installed, JDK 25. Every figure is compared with
// what the JDK's own `jfr print --json` reads in the same file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "formats/convert/convert.h"
#include "formats/jfr/reader/recording.h"
#include "test_config.h"
#include "tests/support/child_process.h"
#include "tests/view/lock_truth.h"
#include "tests/view/synthetic_recording.h"
#include "tests/view/view_test_support.h"
#include "userspace/view/recording_digest.h"
#include "userspace/view/text_format.h"
#include "userspace/view/views.h"
#include "userspace/view/weight_table.h"

namespace jfrbpf::test {
namespace {

using convert::LockKind;
using Rows = std::vector<std::vector<std::string>>;

// Long enough for every kind of wait to happen many times, short enough to keep the file small.
constexpr const char* kRunMillis = "300";

std::string seedPath() { return std::string(kSourceDir) + "/tests/testdata/view/seeds/locks.jfr"; }
std::string javaDir() { return std::string(kSourceDir) + "/tests/view/java"; }

bool haveJfrTool(const std::string& jdk) { return std::filesystem::exists(jdk + "/bin/jfr"); }

// The view's names of each kind's tables, and of a null owner.
struct KindTables {
  const char* prefix;
  const char* ownerTitle;  // "" where the event names no owner
  const char* noOwner;
};
const KindTables& tables(LockKind kind) {
  static const KindTables kTables[] = {
      {"Blocked", "Blocked by Previous Owner", "[not recorded]"},
      {"Waiting", "Waiting by Notifier", "[none: timed out or interrupted]"},
      {"Parked", "", ""},
  };
  return kTables[static_cast<size_t>(kind)];
}

view::ViewOptions wide() {
  view::ViewOptions options;
  options.width = 250;
  options.top = 1000;
  return options;
}

Rows sorted(Rows rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The rows a table of `byKey` should show: the key's label cells ("" as `absent`), the time, its share of
// `total` and the events.
Rows expectedRows(const std::map<std::string, WaitTotals>& byKey, int64_t total, const std::string& absent = "") {
  Rows rows;
  for (const auto& [key, totals] : byKey) {
    std::vector<std::string> row;
    std::string label = key.empty() ? absent + "\t" : key;
    for (size_t start = 0;;) {
      size_t tab = label.find('\t', start);
      row.push_back(label.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    row.insert(row.end(), {view::humanDuration(totals.nanos), view::weightShare(totals.nanos, total),
                           groupThousands(totals.events)});
    rows.push_back(std::move(row));
  }
  return sorted(std::move(rows));
}

// The shares of a table's rows ("64.52%", the next to last cell) add up to 100 %, give or take their rounding.
void expectSharesAddUp(const Rows& rows, const std::string& title) {
  double sum = 0;
  for (const auto& row : rows) sum += std::stod(row[row.size() - 2]);
  EXPECT_NEAR(sum, 100.0, 0.005 * static_cast<double>(rows.size()) + 1e-9) << title;
}

// A table of the view, checked against the rows `byKey` should give it.
void expectTable(const std::string& text, const std::string& title, const std::map<std::string, WaitTotals>& byKey,
                 int64_t total, const std::string& absent = "") {
  Rows rows = tableRows(text, title);
  EXPECT_EQ(sorted(rows), expectedRows(byKey, total, absent)) << title << "\n" << text;
  expectSharesAddUp(rows, title);
}

// The pprof of `file` converted with --lock: Go's mutex-profile sample types, and values that add up to the
// events and their durations.
void expectPprof(const std::string& file, uint64_t events, int64_t nanos) {
  if (!havePprofDecoder()) {
    std::printf("pprof not checked: protoc not installed (protobuf-compiler)\n");
    return;
  }
  TempDir dir;
  std::string out = dir.file("locks.pb.gz");
  CliResult converted = runCli({"convert", file, "--to", "pprof", "--lock", "-o", out});
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  DecodedPprof pprof = decodePprof(out);
  EXPECT_EQ(pprof.sampleTypes(), (std::vector<std::string>{"contentions/count", "delay/nanoseconds"}));
  EXPECT_EQ(pprof.defaultSampleType(), "delay");
  EXPECT_EQ(pprof.valueSums(), (std::vector<int64_t>{static_cast<int64_t>(events), nanos}));
  for (const char* name : {"samples", "cpu"}) {
    EXPECT_EQ(std::find(pprof.strings.begin(), pprof.strings.end(), name), pprof.strings.end()) << name;
  }
}

// Everything the locks view and `convert --lock` say of `file`, against `jdk`'s `jfr print --json`.
void checkAgainstJdk(const std::string& file, const std::string& jdk) {
  LockTruth truth = jfrPrintLockTruth(jdk, file);
  view::RecordingDigest digest = view::digestRecording(file, {});
  std::string text = view::locksView(digest, wide());

  uint64_t allEvents = 0;
  int64_t allNanos = 0;
  std::map<std::string, WaitTotals> byKind, byClass;
  for (LockKind kind : convert::kLockKinds) {
    const LockKindTruth& expected = truth[static_cast<size_t>(kind)];
    const view::LockKindDigest& ours = digest.locks.of(kind);
    const std::string event(convert::lockKindInfo(kind).event);
    SCOPED_TRACE(event);
    allEvents += expected.total.events;
    allNanos += expected.total.nanos;
    EXPECT_EQ(ours.eventsSeen, expected.total.events);
    EXPECT_EQ(ours.profile.totalSamples, expected.total.events);
    EXPECT_EQ(ours.profile.totalCpuNanos, expected.total.nanos);
    if (expected.total.events == 0) continue;
    for (const auto& [name, totals] : expected.byClass) {
      WaitTotals& sum = byClass[name];
      sum.events += totals.events;
      sum.nanos += totals.nanos;
    }

    // The digest, exactly: owners as the events name them, nulls included.
    std::map<std::string, WaitTotals> owners;
    for (const convert::LockOwner& owner : ours.owners) {
      std::string key = owner.thread ? owner.thread->name + "\t" + std::to_string(owner.thread->osThreadId) : "";
      owners[key] = WaitTotals{owner.events, owner.nanos};
    }
    EXPECT_EQ(owners, expected.byOwner);

    // The tables, as they print.
    const KindTables& names = tables(kind);
    const int64_t total = expected.total.nanos;
    expectTable(text, std::string(names.prefix) + " by Class", expected.byClass, total);
    expectTable(text, std::string(names.prefix) + " by Site", expected.bySite, total);
    expectTable(text, std::string(names.prefix) + " by Thread", expected.byThread, total);
    if (*names.ownerTitle) expectTable(text, names.ownerTitle, expected.byOwner, total, names.noOwner);
    std::string kindName = kind == LockKind::kBlocked ? "blocked" : kind == LockKind::kWait ? "waiting" : "parked";
    byKind[kindName + "\t" + event] = expected.total;
  }
  ASSERT_GT(allEvents, 0u) << "no lock events in " << file;
  expectTable(text, "Lock Waits by Kind", byKind, allNanos);

  // Collapsed stacks: the time waited, each stack ending in the lock's class.
  uint64_t total = 0;
  auto stacks = convertCollapsed(file, {"--lock"}, &total);
  EXPECT_EQ(total, static_cast<uint64_t>(allNanos));
  std::map<std::string, WaitTotals> collapsedByClass;
  for (const auto& [stack, nanos] : stacks) {
    std::string leaf = stack.substr(stack.rfind(';') + 1);
    EXPECT_TRUE(byClass.count(leaf)) << stack;
    collapsedByClass[leaf].nanos += static_cast<int64_t>(nanos);
  }
  for (auto& [name, totals] : byClass) totals.events = 0;  // collapsed lines carry one weight
  EXPECT_EQ(collapsedByClass, byClass);
  convertCollapsed(file, {"--lock", "--weight", "samples"}, &total);
  EXPECT_EQ(total, allEvents);
  expectPprof(file, allEvents, allNanos);
}

// LockSeed recorded by `jdk`'s JFR with locks.jfc into `dir`; "" on failure.
std::string recordLockSeed(const std::string& jdk, const TempDir& dir) {
  std::string classes = dir.file("classes");
  RunResult javac = run({std::string(kJdkHome) + "/bin/javac", "-d", classes, javaDir() + "/LockSeed.java"});
  EXPECT_EQ(javac.exitCode, 0) << javac.output;
  std::string file = dir.file("locks.jfr");
  RunResult java = run({jdk + "/bin/java", "-cp", classes,
                        "-XX:StartFlightRecording=filename=" + file + ",settings=" + javaDir() + "/locks.jfc",
                        "LockSeed", kRunMillis},
                       std::chrono::seconds(120));
  EXPECT_EQ(java.exitCode, 0) << java.output;
  return java.exitCode == 0 ? file : "";
}

// The waits LockSeed makes are all there, under their classes, threads and owners.
void expectTheWorkload(const std::string& file, const std::string& jdk) {
  LockTruth truth = jfrPrintLockTruth(jdk, file);
  const LockKindTruth& blocked = truth[static_cast<size_t>(LockKind::kBlocked)];
  const LockKindTruth& waiting = truth[static_cast<size_t>(LockKind::kWait)];
  const LockKindTruth& parked = truth[static_cast<size_t>(LockKind::kPark)];
  EXPECT_GT(blocked.byClass.count("LockSeed$Ledger"), 0u);
  EXPECT_GT(blocked.bySite.count("LockSeed$Ledger.add(long)"), 0u);
  EXPECT_GT(waiting.byClass.count("LockSeed$Mailbox"), 0u);
  EXPECT_GT(waiting.bySite.count("LockSeed.awaitMail(LockSeed$Mailbox, long)"), 0u);
  EXPECT_GT(parked.byClass.count("java.util.concurrent.locks.ReentrantLock$NonfairSync"), 0u);
  EXPECT_GT(parked.bySite.count("LockSeed.openVault(ReentrantLock, long)"), 0u);
  // Waits that ended in a notify name the poster; those that timed out name nobody.
  EXPECT_GT(waiting.byOwner.count(""), 0u);
  bool poster = std::any_of(waiting.byOwner.begin(), waiting.byOwner.end(),
                            [](const auto& owner) { return owner.first.starts_with("poster\t"); });
  EXPECT_TRUE(poster);
  // The view names them so.
  view::RecordingDigest digest = view::digestRecording(file, {});
  std::string text = view::locksView(digest, wide());
  for (const char* name : {"LockSeed$Ledger", "LockSeed$Mailbox",
                           "java.util.concurrent.locks.ReentrantLock$NonfairSync", "[none: timed out or interrupted]",
                           "ledger-1", "vault-2"}) {
    EXPECT_NE(text.find(name), std::string::npos) << name << "\n" << text;
  }
}

TEST(ViewLocksJdk, SeedMatchesJfrPrint) {
  if (!haveJfrTool(kJdkHome)) GTEST_SKIP() << "no jfr tool in " << kJdkHome;
  checkAgainstJdk(seedPath(), kJdkHome);
  expectTheWorkload(seedPath(), kJdkHome);
}

TEST(ViewLocksJdk, Jdk17RecordingMatchesJfrPrint) {
  if (!haveJfrTool(kJdkHome)) GTEST_SKIP() << "no jfr tool in " << kJdkHome;
  TempDir dir;
  std::string file = recordLockSeed(kJdkHome, dir);
  ASSERT_FALSE(file.empty());
  checkAgainstJdk(file, kJdkHome);
  expectTheWorkload(file, kJdkHome);
}

TEST(ViewLocksJdk, Jdk25RecordingMatchesJfrPrint) {
  const std::string jdk = kJdk25Home;
  if (jdk.empty() || !haveJfrTool(jdk)) {
    std::printf("skipped: no JDK 25 with a jfr tool installed (JFRBPF_JDK25_HOME)\n");
    GTEST_SKIP() << "no JDK 25 with a jfr tool installed (JFRBPF_JDK25_HOME)";
  }
  TempDir dir;
  std::string file = recordLockSeed(jdk, dir);
  ASSERT_FALSE(file.empty());
  checkAgainstJdk(file, jdk);
  expectTheWorkload(file, jdk);
}

// The rest reads the seed alone: no JDK needed.

TEST(ViewLocksSeed, ProfileTopsEveryStackWithTheLockClass) {
  auto recording = jfr::reader::Recording::open(seedPath());
  convert::Profile profile = convert::loadLockProfile(recording, {});
  EXPECT_EQ(profile.timeKind, convert::TimeKind::kLock);
  EXPECT_EQ(profile.eventName, "jdk.JavaMonitorEnter + jdk.JavaMonitorWait + jdk.ThreadPark");
  EXPECT_TRUE(profile.cpuTimeKnown);
  ASSERT_GT(profile.totalSamples, 0u);
  std::set<std::string> classes;
  int64_t sum = 0;
  for (const convert::SampleGroup& group : profile.groups) {
    EXPECT_EQ(profile.frameOf(group.node).kind, convert::FrameKind::kLockClass);
    classes.insert(profile.methodOf(group.node).name);
    int64_t timed = 0;
    for (const auto& t : group.times) timed += t.nanos;
    EXPECT_EQ(timed, group.cpuNanos);
    sum += group.cpuNanos;
  }
  EXPECT_EQ(sum, profile.totalCpuNanos);
  EXPECT_TRUE(classes.count("LockSeed$Ledger"));
  EXPECT_TRUE(classes.count("java.util.concurrent.locks.ReentrantLock$NonfairSync"));
  // The view's profiles of each kind add up to the one the converters draw.
  view::RecordingDigest digest = view::digestRecording(seedPath(), {});
  uint64_t events = 0;
  int64_t nanos = 0;
  for (const view::LockKindDigest& kind : digest.locks.kinds) {
    events += kind.profile.totalSamples;
    nanos += kind.profile.totalCpuNanos;
  }
  EXPECT_EQ(events, profile.totalSamples);
  EXPECT_EQ(nanos, profile.totalCpuNanos);
  EXPECT_EQ(digest.locks.eventsSeen(), profile.totalSamples);
  EXPECT_EQ(convert::frameKindTag(convert::FrameKind::kLockClass), "[l]");
  EXPECT_EQ(convert::frameKindName(convert::FrameKind::kLockClass), "Lock class");
}

TEST(ViewLocksSeed, SummaryThreadFilterAndAbsence) {
  view::RecordingDigest digest = view::digestRecording(seedPath(), {});
  const auto count = [&](LockKind kind) { return groupThousands(digest.locks.of(kind).profile.totalSamples); };
  std::string line = groupThousands(digest.locks.eventsSeen()) + " (" + count(LockKind::kBlocked) + " blocked, " +
                     count(LockKind::kWait) + " waiting, " + count(LockKind::kPark) + " parked), ";
  std::string summary = view::summaryView(digest, wide());
  EXPECT_NE(summary.find("Lock waits:       " + line), std::string::npos) << summary;
  EXPECT_NE(view::locksView(digest, wide()).find("Events:           " + line), std::string::npos);

  // --thread waiter: only its Object.wait calls, their shares of its own time.
  view::DigestOptions options;
  options.samples.filter.thread = "waiter";
  view::RecordingDigest waiter = view::digestRecording(seedPath(), options);
  std::string text = view::locksView(waiter, wide());
  EXPECT_EQ(waiter.locks.of(LockKind::kBlocked).profile.totalSamples, 0u);
  EXPECT_EQ(waiter.locks.of(LockKind::kPark).profile.totalSamples, 0u);
  Rows threads = tableRows(text, "Waiting by Thread");
  ASSERT_EQ(threads.size(), 1u) << text;
  EXPECT_EQ(threads[0][0], "waiter");
  EXPECT_EQ(threads[0][3], "100.00%");
  EXPECT_EQ(text.find("Blocked by"), std::string::npos) << text;
  options.samples.filter.thread = "nobody";
  EXPECT_NE(view::locksView(view::digestRecording(seedPath(), options), wide()).find("match the filters"),
            std::string::npos);

  // A recording without lock events says so, and its summary does not mention them.
  TempDir dir;
  std::string mixed = dir.file("mixed.jfr");
  writeMixedRecording(mixed);
  view::RecordingDigest none = view::digestRecording(mixed, {});
  EXPECT_EQ(view::summaryView(none, wide()).find("Lock waits"), std::string::npos);
  EXPECT_NE(view::locksView(none, wide())
                .find("No lock waits (jdk.JavaMonitorEnter, jdk.JavaMonitorWait or jdk.ThreadPark events) in"),
            std::string::npos);
}

TEST(ViewLocksSeed, HtmlIsWeightedByTimeWaited) {
  TempDir dir;
  std::string copy = dir.file("copy.jfr");
  std::filesystem::copy_file(seedPath(), copy);
  view::RecordingDigest digest = view::digestRecording(seedPath(), {});
  CliResult converted = runCli({"convert", copy, "--to", "html", "--lock"});
  ASSERT_EQ(converted.exitCode, 0) << converted.output;
  auto recording = jfr::reader::Recording::open(seedPath());
  convert::Profile profile = convert::loadLockProfile(recording, {});
  EXPECT_NE(converted.output.find("copy-lock.html (" + groupThousands(profile.totalSamples) +
                                  " lock waits (jdk.JavaMonitorEnter + jdk.JavaMonitorWait + jdk.ThreadPark), " +
                                  view::humanDuration(profile.totalCpuNanos) + " waited, "),
            std::string::npos)
      << converted.output;
  std::string html = readFile(dir.file("copy-lock.html"));
  EXPECT_NE(html.find("<title>Lock flame graph: copy.jfr</title>"), std::string::npos);
  EXPECT_NE(html.find("\"measure\":\"lock wait time\",\"unit\":\"nanoseconds\""), std::string::npos);
  EXPECT_NE(html.find("\"cpuNanos\":" + std::to_string(profile.totalCpuNanos)), std::string::npos);
  EXPECT_NE(html.find("\"LockSeed$Ledger\""), std::string::npos);
  EXPECT_NE(html.find("'Lock class'"), std::string::npos);

  // --annotate marks the class tips as it marks allocated classes.
  uint64_t total = 0;
  auto stacks = convertCollapsed(seedPath(), {"--lock", "--annotate", "--thread", "ledger-1"}, &total);
  ASSERT_FALSE(stacks.empty());
  for (const auto& [stack, nanos] : stacks) EXPECT_TRUE(stack.ends_with(";LockSeed$Ledger_[k]")) << stack;
}

TEST(ViewLocksSeed, CliRejectsMixedChoicesAndExplains) {
  const std::string seed = seedPath();
  expectCliError({"convert", seed, "--to", "html", "--lock", "--off-cpu"}, 2,
                 "jfrbpf: --lock and --off-cpu together: lock waits are a profile of their own; give one of them");
  expectCliError({"convert", seed, "--wall", "--to", "html", "--lock"}, 2,
                 "jfrbpf: --lock and --wall together: lock waits are a profile of their own; give one of them");
  expectCliError({"convert", seed, "--alloc", "--to", "html", "--lock"}, 2,
                 "jfrbpf: --lock and --alloc together: lock waits are a profile of their own; give one of them");
  expectCliError({"convert", seed, "--to", "collapsed", "--lock", "--event", "jdk.ExecutionSample"}, 2,
                 "jfrbpf: --lock with --event: it uses jdk.JavaMonitorEnter, jdk.JavaMonitorWait and jdk.ThreadPark "
                 "events; drop --event");
  expectCliError({"convert", seed, "--to", "collapsed", "--lock", "--weight", "bytes"}, 2,
                 "jfrbpf: --weight bytes without --alloc: these samples weigh time; use --weight time");
  CliResult help = runCli({"convert", "--help"});
  EXPECT_NE(help.output.find("      --lock "), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("contentions/count and delay/nanoseconds"), std::string::npos) << help.output;
  CliResult viewHelp = runCli({"view", "--help"});
  EXPECT_NE(viewHelp.output.find("  locks                 where threads waited for locks"), std::string::npos)
      << viewHelp.output;
  CliResult view = runCli({"view", seed, "locks", "--thread", "vault-1", "--width", "120"});
  EXPECT_EQ(view.exitCode, 0) << view.output;
  Rows parked = tableRows(view.output, "Parked by Class");
  ASSERT_EQ(parked.size(), 1u) << view.output;
  EXPECT_EQ(parked[0][0], "java.util.concurrent.locks.ReentrantLock$NonfairSync");
  EXPECT_EQ(parked[0][2], "100.00%");
}

}  // namespace
}  // namespace jfrbpf::test
