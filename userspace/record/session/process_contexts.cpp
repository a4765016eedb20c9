#include "userspace/record/session/process_contexts.h"

#include <utility>

#include "base/error.h"
#include "userspace/otel/thread_context_location.h"

namespace jfrbpf::record {
namespace {

// How often the mappings of a target that publishes no context are looked at again: reading a JVM's maps
// costs a fraction of a millisecond, so that a host of JVMs costs little.
constexpr std::chrono::seconds kLookAgain{5};

// Where process `pid`'s threads keep their context, for the file: the module and how it is reached.
std::string threadContextLocation(pid_t pid) {
  try {
    const std::optional<otel::ThreadContextLocation> location = otel::locateThreadContext(pid, proc::readMaps(pid));
    if (!location) return std::string(otel::kThreadContextSymbol) + " not found (yet)";
    return std::string(otel::kThreadContextSymbol) + " in " + location->module + ": " + otel::describe(*location);
  } catch (const Error& e) {
    return e.what();
  }
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
  Target& target = targets_[pid] = Target{&output, std::nullopt, 0, {}, false};
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
    if (target.header) {
      // Eight bytes a turn: only a new timestamp is worth a read of the whole context.
      const std::optional<uint64_t> publishedAt = otel::readPublishedAt(unwind::ProcessMemory(pid), *target.header);
      if (publishedAt && *publishedAt != 0 && *publishedAt == target.publishedAtNs) continue;
      if (!publishedAt) target.header.reset();  // unmapped: look for it again
    } else if (now < target.nextLook) {
      continue;
    }
    look(pid, target);
  }
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
  const std::string threadsAt = context->publishesThreadContext() ? threadContextLocation(pid) : "";
  pipeline_.runOnConsumer([output = target.output, pid, context = std::move(*context), threadsAt] {
    output->processContext(pid, context, threadsAt);
  });
}

}  // namespace jfrbpf::record
