#include "userspace/record/session/process_contexts.h"

#include <algorithm>
#include <utility>

#include "base/error.h"
#include "userspace/otel/thread_context_location.h"

namespace jfrbpf::record {
namespace {

// How often the mappings of a target that publishes no context are looked at again: reading a JVM's maps
// costs a fraction of a millisecond, so that a host of JVMs costs little.
constexpr std::chrono::seconds kLookAgain{5};

// How often a variable not located yet is looked for: a lazy TLSDESC is resolved as its thread first uses it,
// at once in a busy service; the wait doubles from a second to a minute, since each look reads every module's
// symbols and a process may never locate one.
constexpr std::chrono::seconds kLocateFirst{1};
constexpr std::chrono::seconds kLocateAtMost{60};

jfrbpf_thread_context_location kernelSide(const otel::ThreadContextLocation& location) {
  jfrbpf_thread_context_location at{};
  if (location.kind == otel::ThreadContextLocation::Kind::kStatic) {
    at.tp_offset = location.tpOffset;
  } else {
    at.module_id = location.moduleId;
    at.offset = location.offset;
  }
  return at;
}

}  // namespace

std::optional<otel::ProcessContext> readProcessContextOf(pid_t pid) {
  const std::vector<proc::Mapping> maps = proc::readMaps(pid);
  const proc::Mapping* mapping = otel::findProcessContextMapping(maps);
  if (mapping == nullptr) return std::nullopt;
  return otel::readProcessContext(unwind::ProcessMemory(pid), mapping->start);
}

void ProcessContexts::add(pid_t pid, TargetOutput& output) {
  std::lock_guard lock(mutex_);
  Target& target = targets_[pid] = Target{&output, std::nullopt, 0, {}, {}, {}, false, false};
  look(pid, target);
}

void ProcessContexts::remove(pid_t pid) {
  std::lock_guard lock(mutex_);
  targets_.erase(pid);
}

void ProcessContexts::poll() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  for (auto& [pid, target] : targets_) {
    if (published(pid, target, now)) look(pid, target);
    if (target.threadsPending && now >= target.nextLocate) {
      const std::string threadsAt = locateThreads(pid, target);
      if (target.threadsPending) continue;
      const std::string note = "process " + std::to_string(pid) + ": " + threadsAt;
      pipeline_.runOnConsumer([output = target.output, note] { output->note("info", note); });
    }
  }
}

bool ProcessContexts::published(pid_t pid, Target& target, std::chrono::steady_clock::time_point now) {
  if (!target.header) return now >= target.nextLook;
  // Eight bytes a turn: only a new timestamp is worth a read of the whole context.
  const std::optional<uint64_t> publishedAt = otel::readPublishedAt(unwind::ProcessMemory(pid), *target.header);
  if (publishedAt && *publishedAt != 0 && *publishedAt == target.publishedAtNs) return false;
  if (!publishedAt) target.header.reset();  // unmapped: look for it again
  return true;
}

void ProcessContexts::look(pid_t pid, Target& target) {
  target.nextLook = std::chrono::steady_clock::now() + kLookAgain;
  std::optional<otel::ProcessContext> context;
  try {
    if (!target.header) {
      const std::vector<proc::Mapping> maps = proc::readMaps(pid);
      const proc::Mapping* mapping = otel::findProcessContextMapping(maps);
      if (mapping == nullptr) return;
      target.header = mapping->start;
    }
    context = otel::readProcessContext(unwind::ProcessMemory(pid), *target.header);
  } catch (const Error& e) {
    target.header.reset();  // looked for again in a while: the process may have exec'd, or be mid-update
    if (target.failureSaid) return;
    target.failureSaid = true;
    const std::string note = "process " + std::to_string(pid) + ": OpenTelemetry " + e.what();
    pipeline_.runOnConsumer([output = target.output, note] { output->note("warning", note); });
    return;
  }
  if (!context || context->publishedAtNs == target.publishedAtNs) return;
  if (target.publishedAtNs == 0) {
    const std::string* service = context->resourceValue("service.name");
    tell_("process " + std::to_string(pid) + " publishes its OpenTelemetry process context" +
          (service != nullptr ? ": service " + *service : ""));
  }
  target.publishedAtNs = context->publishedAtNs;
  // As the OTEP says, the threads' variable is looked for once the process context names their schema.
  const std::string threadsAt = context->publishesThreadContext() ? locateThreads(pid, target) : "";
  pipeline_.runOnConsumer([output = target.output, pid, context = std::move(*context), threadsAt] {
    output->processContext(pid, context, threadsAt);
  });
}

std::string ProcessContexts::locateThreads(pid_t pid, Target& target) {
  target.locateWait = target.threadsPending ? std::min(2 * target.locateWait, kLocateAtMost) : kLocateFirst;
  target.nextLocate = std::chrono::steady_clock::now() + target.locateWait;
  target.threadsPending = false;
  try {
    const std::optional<otel::ThreadContextLocation> location = otel::locateThreadContext(pid, proc::readMaps(pid));
    if (!location) {
      target.threadsPending = true;
      return std::string(otel::kThreadContextSymbol) + " not found (yet)";
    }
    sampler_.setThreadContextLocation(static_cast<uint32_t>(pid), kernelSide(*location));
    return std::string(otel::kThreadContextSymbol) + " in " + location->module + ": " + otel::describe(*location);
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace jfrbpf::record
