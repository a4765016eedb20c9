// locks: where threads waited for locks, from the JVM's own events: blocked entering a `synchronized` monitor
// (jdk.JavaMonitorEnter), waiting in Object.wait (jdk.JavaMonitorWait), parked in LockSupport.park as
// java.util.concurrent's locks do (jdk.ThreadPark). Each kind gets a section of its own: blocking is
// contention, while a wait or a park may be a thread idle by design, so their times are not one figure.
// Rows add up the events' durations, the time waited, and count the events: the JVM records every wait
// longer than the event's threshold, so these are waits, not samples.
#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "formats/convert/saturating.h"
#include "userspace/view/text_format.h"
#include "userspace/view/text_table.h"
#include "userspace/view/views.h"
#include "userspace/view/weight_table.h"

namespace jfrbpf::view {
namespace {

using convert::LockKind;
using Align = TextTable::Align;

const WeightColumn kWaited{"Wait Time", humanDuration, "Events"};

// How a kind is named to someone who has not read the JVM's event list.
struct KindText {
  std::string_view name;         // "blocked", in the overview and the summary
  std::string_view section;      // the heading of its section
  std::string_view prefix;       // of its tables' titles: "Blocked by Thread"
  std::string_view classColumn;  // "Monitor Class"
  std::string_view siteTitle;    // "by Site (top frame)": what the site is
  std::string_view ownerTitle;   // the owner table's title; "" where the event names no other thread
  std::string_view ownerColumn;
  std::string_view noOwner;  // the row of events whose owner field is null
};

const KindText& kindText(LockKind kind) {
  static const KindText kTexts[] = {
      {"blocked", "Blocked entering synchronized (jdk.JavaMonitorEnter)", "Blocked", "Monitor Class",
       "by Site (top frame)", "Blocked by Previous Owner (the thread that held the monitor before)",
       "Previous Owner", "[not recorded]"},
      {"waiting", "Waiting in Object.wait (jdk.JavaMonitorWait)", "Waiting", "Monitor Class",
       "by Site (the caller of Object.wait)", "Waiting by Notifier (the thread whose notify ended the wait)",
       "Notifier", "[none: timed out or interrupted]"},
      {"parked", "Parked in LockSupport.park, as java.util.concurrent locks wait (jdk.ThreadPark)", "Parked",
       "Parked On (class)", "by Site (the caller of LockSupport or java.util.concurrent.locks)", "", "", ""},
  };
  return kTexts[static_cast<size_t>(kind)];
}

std::string title(const KindText& text, std::string_view what) {
  return std::string(text.prefix) + " " + std::string(what);
}

// The frames every wait of a kind passes through on its way to the JVM: Object.wait (and wait0, where it
// calls that), or LockSupport.park, Unsafe.park and java.util.concurrent.locks' own classes (a ReentrantLock
// parks in AbstractQueuedSynchronizer.acquire). A site among them would be the same for every wait.
bool waitMachinery(LockKind kind, const convert::ProfileMethod& method) {
  if (!method.java) return false;
  switch (kind) {
    case LockKind::kBlocked: break;  // the top frame is the synchronized method or block itself
    case LockKind::kWait: return method.owner == "java.lang.Object";
    case LockKind::kPark:
      return method.owner.starts_with("java.util.concurrent.locks.") || method.owner == "jdk.internal.misc.Unsafe" ||
             method.owner == "sun.misc.Unsafe";
  }
  return false;
}

// A wait's site: the innermost Java frame of the waiting stack (under the class on top) outside the kind's
// machinery, the code that chose to wait; else its innermost Java frame, else its top frame.
std::string_view site(const convert::Profile& profile, uint32_t leaf, LockKind kind) {
  uint32_t top = profile.nodes[leaf].parent;
  if (top == 0) return kNoSite;
  std::optional<uint32_t> innermostJava;
  for (uint32_t node = top; node != 0; node = profile.nodes[node].parent) {
    const convert::ProfileMethod& method = profile.methodOf(node);
    if (!method.java) continue;
    if (!waitMachinery(kind, method)) return method.name;
    if (!innermostJava) innermostJava = node;
  }
  return profile.methodOf(innermostJava.value_or(top)).name;
}

std::string byOwner(const LockKindDigest& locks, const KindText& text, const ViewOptions& options) {
  std::vector<WeightRow> rows;
  for (const convert::LockOwner& owner : locks.owners) {
    WeightTotals totals{owner.nanos, owner.events};
    if (!owner.thread) {
      rows.push_back(WeightRow{{std::string(text.noOwner), ""}, totals});
    } else {
      const convert::ProfileThread& t = *owner.thread;
      rows.push_back(WeightRow{{t.name, t.osThreadId ? std::to_string(t.osThreadId) : ""}, totals});
    }
  }
  return weightTable(std::string(text.ownerTitle), {{std::string(text.ownerColumn)}, {"TID", Align::kRight}}, kWaited,
                     std::move(rows), locks.profile.totalCpuNanos, options, "threads");
}

std::string kindLine(const convert::Profile& profile) {
  return groupThousands(profile.totalSamples) + ", " + humanDuration(profile.totalCpuNanos) + " waited";
}

std::string section(const LockKindDigest& locks, LockKind kind, const ViewOptions& options) {
  const KindText& text = kindText(kind);
  const convert::Profile& profile = locks.profile;
  std::string out = heading(std::string(text.section));
  out += formLine("Events", kindLine(profile), options.width);
  // Each stack's leaf is the lock's class; below it, the waiting thread's stack.
  std::map<std::string_view, WeightTotals> byClass, bySite;
  for (const convert::SampleGroup& group : profile.groups) {
    if (group.node == 0) continue;
    byClass[profile.methodOf(group.node).name].add(group);
    bySite[site(profile, group.node, kind)].add(group);
  }
  const int64_t total = profile.totalCpuNanos;
  out += weightTable(title(text, "by Class"), {{std::string(text.classColumn)}}, kWaited, rowsByName(byClass), total,
                     options, "classes");
  out += weightTable(title(text, text.siteTitle), {{"Method"}}, kWaited, rowsByName(bySite), total, options, "sites");
  out += weightTable(title(text, "by Thread"), {{"Thread"}, {"TID", Align::kRight}}, kWaited, rowsByThread(profile),
                     total, options, "threads");
  // jfrbpf's own recordings name no owner or notifier (JVMTI does not say): no table of nothing but nulls.
  const bool ownersKnown = std::any_of(locks.owners.begin(), locks.owners.end(),
                                       [](const convert::LockOwner& owner) { return owner.thread.has_value(); });
  if (!text.ownerTitle.empty() && ownersKnown) out += byOwner(locks, text, options);
  return out;
}

}  // namespace

std::string lockEventsLine(const RecordingDigest& digest) {
  uint64_t events = 0;
  int64_t nanos = 0;
  std::string kinds;
  for (LockKind kind : convert::kLockKinds) {
    const convert::Profile& profile = digest.locks.of(kind).profile;
    if (digest.locks.of(kind).eventsSeen == 0) continue;
    events += profile.totalSamples;
    nanos = convert::saturatingAdd(nanos, profile.totalCpuNanos);
    kinds += (kinds.empty() ? "" : ", ") + groupThousands(profile.totalSamples) + " " +
             std::string(kindText(kind).name);
  }
  return groupThousands(events) + " (" + kinds + "), " + humanDuration(nanos) + " waited";
}

std::string locksView(const RecordingDigest& digest, const ViewOptions& options) {
  std::vector<WeightRow> kinds;
  int64_t total = 0;
  for (LockKind kind : convert::kLockKinds) {
    const convert::Profile& profile = digest.locks.of(kind).profile;
    if (profile.totalSamples == 0) continue;
    const convert::LockKindInfo& info = convert::lockKindInfo(kind);
    kinds.push_back(WeightRow{{std::string(kindText(kind).name), std::string(info.event)},
                              WeightTotals{profile.totalCpuNanos, profile.totalSamples}});
    total = convert::saturatingAdd(total, profile.totalCpuNanos);
  }
  if (kinds.empty()) {
    std::string what = "No lock waits (" + std::string(convert::kMonitorEnterEvent) + ", " +
                       convert::kMonitorWaitEvent + " or " + convert::kThreadParkEvent + " events) in " + digest.path;
    std::string why = digest.locks.eventsSeen() == 0
                          ? " (the JDK's own recordings have them: waits of 20 ms or more by default)"
                          : " match the filters";
    return "\n" + fitWidth(what + why + ".", options.width) + "\n";
  }
  std::string out = heading("Lock Waits");
  out += formLine("Events", lockEventsLine(digest), options.width);
  out += weightTable("Lock Waits by Kind", {{"Kind"}, {"Event"}}, kWaited, std::move(kinds), total, options);
  for (LockKind kind : convert::kLockKinds) {
    const LockKindDigest& locks = digest.locks.of(kind);
    if (locks.profile.totalSamples > 0) out += section(locks, kind, options);
  }
  return out;
}

}  // namespace jfrbpf::view
