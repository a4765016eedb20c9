#include "formats/convert/collapsed_writer.h"

#include <map>
#include <string>
#include <vector>

#include "base/error.h"

namespace jfrbpf::convert {
namespace {

std::string_view suffix(FrameKind kind) {
  switch (kind) {
    case FrameKind::kJitCompiled: return "_[j]";
    case FrameKind::kInlined: return "_[i]";
    case FrameKind::kInterpreted: return "_[0]";
    case FrameKind::kKernel:
    case FrameKind::kAllocatedClass:
    case FrameKind::kLockClass: return "_[k]";
    default: return "";
  }
}

// The format has no escapes: ';' separates frames and a line ends the stack.
void appendFrameName(std::string& line, std::string_view name) {
  for (char c : name) line += (c == ';') ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
}

}  // namespace

void writeCollapsed(const Profile& profile, const CollapsedOptions& options, std::ostream& out) {
  if (options.weight == Weight::kCpuTime && !profile.cpuTimeKnown && profile.totalSamples > 0) {
    throw Error("the " + profile.eventName +
                    " events of this recording do not say how much CPU time a sample stands for; "
                    "use --weight samples",
                ErrorKind::Usage);
  }
  std::map<std::string, uint64_t> lines;  // distinct frames may share a name (other lines, other types)
  std::string line;
  for (const SampleGroup& group : profile.groups) {
    line.clear();
    if (options.threadRoots) {
      const ProfileThread& thread = profile.threads[group.thread];
      line += '[';
      appendFrameName(line, thread.name);
      line += " tid=" + std::to_string(thread.osThreadId) + "];";
    }
    std::vector<uint32_t> frames = profile.stackLeafFirst(group.node);
    for (size_t i = frames.size(); i-- > 0;) {
      const ProfileFrame& frame = profile.frames[frames[i]];
      appendFrameName(line, profile.methods[frame.method].name);
      if (options.annotate) line += suffix(frame.kind);
      if (i > 0) line += ';';
    }
    uint64_t weight = options.weight == Weight::kCpuTime ? static_cast<uint64_t>(group.cpuNanos) : group.samples;
    if (weight > 0) lines[line] += weight;
  }
  for (const auto& [stack, weight] : lines) out << stack << ' ' << weight << '\n';
}

}  // namespace jfrbpf::convert
