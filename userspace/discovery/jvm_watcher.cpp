#include "userspace/discovery/jvm_watcher.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "userspace/discovery/jvm_mappings.h"
#include "userspace/proc/files.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/process_dir.h"
#include "userspace/proc/stat.h"

namespace jfrbpf::discovery {
namespace {

constexpr size_t kStatLimit = 4096;

std::chrono::nanoseconds sinceBoot() {
  timespec now{};
  ::clock_gettime(CLOCK_BOOTTIME, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

}  // namespace

JvmWatcher::JvmWatcher(WatcherOptions options)
    : options_(std::move(options)), ticksPerSecond_(std::max(::sysconf(_SC_CLK_TCK), 1L)) {}

std::optional<JvmWatcher::Identity> JvmWatcher::readIdentity(pid_t pid) {
  ++stats_.statReads;
  std::string path = proc::procPath(pid, "stat", options_.procRoot);
  proc::FileData text = proc::readFileAt(AT_FDCWD, path.c_str(), kStatLimit);
  if (!text.ok()) return std::nullopt;
  auto stat = proc::parseStat(text.bytes);
  if (!stat) return std::nullopt;
  return Identity{stat->startTicks, stat->startCode, stat->argStart, std::string(stat->comm), stat->kernelThread(),
                  stat->state == 'Z' || stat->state == 'X'};
}

JvmWatcher::Clock::time_point JvmWatcher::startedAt(uint64_t startTicks, Clock::time_point now) const {
  const auto startSinceBoot = std::chrono::nanoseconds(std::chrono::seconds(startTicks)) / ticksPerSecond_;
  const auto age = std::max(sinceBoot() - startSinceBoot, std::chrono::nanoseconds(0));
  return now - std::chrono::duration_cast<Clock::duration>(age);
}

bool JvmWatcher::young(const Process& process, Clock::time_point now) const {
  return now - process.bornAt < options_.youngWindow;
}

void JvmWatcher::scheduleClassify(Process& process, Clock::time_point now) const {
  // Next look when the process is twice as old as now: a handful of looks over its young life.
  const auto age = std::max<Clock::duration>(now - process.bornAt, options_.firstRecheck);
  process.nextClassify = process.bornAt + age + std::min<Clock::duration>(age, options_.maxRecheckGap);
}

bool JvmWatcher::classify(pid_t pid) {
  ++stats_.mapsReads;
  UniqueFd dir = proc::openProcessDir(options_.procRoot, pid);
  if (!dir) return false;
  JvmMappings mappings;
  return readJvmMappings(dir.get(), 0, mappings) == 0 && mappings.hotSpot();
}

bool JvmWatcher::examine(pid_t pid, Process& process, Clock::time_point now, bool execd, JvmChanges& changes) {
  auto identity = readIdentity(pid);
  if (!identity) return false;
  const bool wasJvm = process.jvm;
  process.identity = std::move(*identity);
  process.bornAt = execd ? now : startedAt(process.identity.startTicks, now);
  process.jvm = !process.identity.kernelThread && !process.identity.zombie && classify(pid);
  scheduleClassify(process, now);
  if (process.jvm && !wasJvm) changes.appeared.push_back(pid);
  if (!process.jvm && wasJvm) changes.gone.push_back(pid);
  return true;
}

bool JvmWatcher::recheck(pid_t pid, Process& process, Clock::time_point now, bool sweep, JvmChanges& changes) {
  // Kernel threads and zombies never become JVMs, but their pid may be reused by a new process before a
  // poll sees it gone: sweeps compare their start time too.
  const bool classifiable = !process.identity.kernelThread && !process.identity.zombie;
  const bool classifyDue = !process.jvm && classifiable && young(process, now) && now >= process.nextClassify;
  if (!process.jvm && !classifyDue && !sweep) return true;
  auto identity = readIdentity(pid);
  if (!identity) {
    if (process.jvm) changes.gone.push_back(pid);
    return false;
  }
  if (identity->startTicks != process.identity.startTicks) {
    // The pid was reused: the old process is gone and this is a new one.
    if (process.jvm) changes.gone.push_back(pid);
    process.jvm = false;
    return examine(pid, process, now, false, changes);
  }
  if (identity->zombie) {
    if (process.jvm) changes.gone.push_back(pid);
    process.jvm = false;
    process.identity = std::move(*identity);
    return true;
  }
  if (*identity != process.identity) return examine(pid, process, now, true, changes);  // it exec'd
  if (classifyDue) {
    process.jvm = classify(pid);
    scheduleClassify(process, now);
    if (process.jvm) changes.appeared.push_back(pid);
  }
  return true;
}

JvmChanges JvmWatcher::poll() {
  const Clock::time_point now = Clock::now();
  const bool sweep = now >= nextSweep_;
  if (sweep) {
    nextSweep_ = now + options_.execSweepInterval;
    ++stats_.sweeps;
  }
  ++stats_.polls;
  ++generation_;

  JvmChanges changes;
  for (pid_t pid : proc::listProcessIds(options_.procRoot)) {
    auto [it, inserted] = processes_.try_emplace(pid);
    Process& process = it->second;
    process.generation = generation_;
    const bool alive = inserted ? examine(pid, process, now, false, changes) : recheck(pid, process, now, sweep, changes);
    if (!alive) processes_.erase(it);
  }
  for (auto it = processes_.begin(); it != processes_.end();) {
    if (it->second.generation == generation_) {
      ++it;
      continue;
    }
    if (it->second.jvm) changes.gone.push_back(it->first);
    it = processes_.erase(it);
  }
  std::sort(changes.appeared.begin(), changes.appeared.end());
  std::sort(changes.gone.begin(), changes.gone.end());
  return changes;
}

std::vector<pid_t> JvmWatcher::jvms() const {
  std::vector<pid_t> pids;
  for (const auto& [pid, process] : processes_) {
    if (process.jvm) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

}  // namespace jfrbpf::discovery
