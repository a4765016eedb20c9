#include "formats/convert/flame_graph_writer.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <vector>

#include "formats/convert/flame_graph_assets.h"
#include "formats/convert/saturating.h"
#include "formats/convert/utf8.h"

namespace jfrbpf::convert {
namespace {

// Bounds the timeline whatever a hostile chunk header claims about the recording's duration.
constexpr uint64_t kMaxTimelineSlots = 1 << 20;

// A JSON string that is also safe inside a <script> element: '<' is escaped so no "</script>" or "<!--"
// can end or change it.
void writeJsonString(std::ostream& out, std::string_view raw) {
  std::string text = validUtf8(raw);  // the page declares UTF-8
  out << '"';
  for (unsigned char c : text) {
    switch (c) {
      case '"': out << "\\\""; break;
      case '\\': out << "\\\\"; break;
      case '\n': out << "\\n"; break;
      case '\r': out << "\\r"; break;
      case '\t': out << "\\t"; break;
      case '<': out << "\\u003c"; break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
          out << escaped;
        } else {
          out << static_cast<char>(c);
        }
    }
  }
  out << '"';
}

void writeHtmlText(std::ostream& out, std::string_view raw) {
  for (char c : validUtf8(raw)) {
    switch (c) {
      case '<': out << "&lt;"; break;
      case '>': out << "&gt;"; break;
      case '&': out << "&amp;"; break;
      case '"': out << "&quot;"; break;
      default: out << c;
    }
  }
}

// The flame graph merges frames by function and type (line numbers are pprof's business), so the
// profile's call tree is folded into a smaller one.
struct Tree {
  std::vector<uint32_t> names;                       // distinct method names used, by profile method index
  std::vector<std::pair<uint32_t, uint8_t>> frames;  // (name, kind)
  std::vector<std::pair<uint32_t, uint32_t>> nodes;  // (parent, frame), node i + 1; node 0 is the root
  std::vector<uint32_t> nodeOf;                      // profile node -> tree node
};

Tree foldTree(const Profile& profile) {
  Tree tree;
  std::unordered_map<uint32_t, uint32_t> nameOfMethod;
  std::map<std::pair<uint32_t, uint8_t>, uint32_t> frameIds;
  std::unordered_map<uint64_t, uint32_t> childIds;
  tree.nodeOf.assign(profile.nodes.size(), 0);
  // Profile nodes are created after their parents, so one forward pass sees parents first.
  for (size_t i = 1; i < profile.nodes.size(); ++i) {
    const ProfileFrame& frame = profile.frames[profile.nodes[i].frame];
    auto [name, newName] = nameOfMethod.try_emplace(frame.method, static_cast<uint32_t>(tree.names.size()));
    if (newName) tree.names.push_back(frame.method);
    auto key = std::make_pair(name->second, static_cast<uint8_t>(frame.kind));
    auto [frameId, newFrame] = frameIds.try_emplace(key, static_cast<uint32_t>(tree.frames.size()));
    if (newFrame) tree.frames.push_back(key);
    uint32_t parent = tree.nodeOf[profile.nodes[i].parent];
    uint64_t childKey = (static_cast<uint64_t>(parent) << 32) | frameId->second;
    auto [child, newChild] = childIds.try_emplace(childKey, static_cast<uint32_t>(tree.nodes.size() + 1));
    if (newChild) tree.nodes.emplace_back(parent, frameId->second);
    tree.nodeOf[i] = child->second;
  }
  return tree;
}

// A box's width: samples, or for off-CPU, wall-clock, allocation and lock profiles, whose samples stand for
// very unequal amounts (a 2 s wait, a 10 ms CPU sample; 1 MB, 2 kB), the nanoseconds or bytes they stand for.
struct Group {
  uint32_t thread;
  uint32_t node;
  uint64_t value = 0;
  std::map<uint32_t, uint64_t> buckets;
};

void writeData(const Profile& profile, const FlameGraphOptions& options, std::ostream& out) {
  Tree tree = foldTree(profile);
  // The timeline covers the whole recording, not only the span that has samples.
  int64_t span = std::max<int64_t>(0, saturatingSub(profile.recordingEndNanos, profile.gridStartNanos));
  uint64_t slots = std::max<uint64_t>(profile.gridSlots, static_cast<uint64_t>(span / profile.gridNanos) + 1);
  slots = std::min<uint64_t>(slots, std::max<uint64_t>(profile.gridSlots, kMaxTimelineSlots));
  uint64_t maxBuckets = std::max<uint32_t>(1, options.maxTimeBuckets);
  uint64_t slotsPerBucket = std::max<uint64_t>(1, (slots + maxBuckets - 1) / maxBuckets);
  uint64_t buckets = std::max<uint64_t>(1, (slots + slotsPerBucket - 1) / slotsPerBucket);

  // Only threads with samples (filters may have left others without any), renumbered.
  std::vector<uint32_t> threads;
  std::unordered_map<uint32_t, uint32_t> threadIds;
  std::vector<Group> groups;
  std::unordered_map<uint64_t, size_t> groupIds;
  const std::string_view measure = timeKindNames(profile.timeKind).measure;
  const bool byTime = !measure.empty();
  for (const SampleGroup& g : profile.groups) {
    auto [thread, newThread] = threadIds.try_emplace(g.thread, static_cast<uint32_t>(threads.size()));
    if (newThread) threads.push_back(g.thread);
    uint32_t node = tree.nodeOf[g.node];
    auto [it, inserted] = groupIds.try_emplace((static_cast<uint64_t>(thread->second) << 32) | node, groups.size());
    if (inserted) groups.push_back(Group{thread->second, node, 0, {}});
    Group& group = groups[it->second];
    group.value += byTime ? static_cast<uint64_t>(g.cpuNanos) : g.samples;
    for (const TimeCount& t : g.times) {
      group.buckets[t.slot / slotsPerBucket] += byTime ? static_cast<uint64_t>(t.nanos) : t.samples;
    }
  }

  out << "{\"title\":";
  writeJsonString(out, options.title);
  out << ",\"event\":";
  writeJsonString(out, profile.eventName);
  out << ",\"start\":" << profile.gridStartNanos / 1'000'000 << ",\"duration\":"
      << std::max<int64_t>(0, saturatingSub(profile.recordingEndNanos, profile.recordingStartNanos)) / 1'000'000
      << ",\"bucketMs\":" << static_cast<double>(profile.gridNanos) * static_cast<double>(slotsPerBucket) / 1e6
      << ",\"buckets\":" << buckets << ",\"samples\":" << profile.totalSamples
      << ",\"cpuNanos\":" << profile.totalCpuNanos << ",\"cpuKnown\":" << (profile.cpuTimeKnown ? "true" : "false");
  if (byTime) {
    out << ",\"measure\":";
    writeJsonString(out, measure);
    out << ",\"unit\":";
    writeJsonString(out, timeKindNames(profile.timeKind).unit);
  }
  out << ",\n\"names\":[";
  for (size_t i = 0; i < tree.names.size(); ++i) {
    if (i) out << ',';
    writeJsonString(out, profile.methods[tree.names[i]].name);
  }
  out << "],\n\"frames\":[";
  for (size_t i = 0; i < tree.frames.size(); ++i) {
    out << (i ? "," : "") << tree.frames[i].first << ',' << static_cast<int>(tree.frames[i].second);
  }
  out << "],\n\"nodes\":[";
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    out << (i ? "," : "") << tree.nodes[i].first << ',' << tree.nodes[i].second;
  }
  out << "],\n\"threads\":[";
  for (size_t i = 0; i < threads.size(); ++i) {
    const ProfileThread& thread = profile.threads[threads[i]];
    out << (i ? "," : "") << '[';
    writeJsonString(out, thread.name);
    out << ',' << thread.osThreadId << ']';
  }
  out << "],\n\"groups\":[";
  for (size_t i = 0; i < groups.size(); ++i) {
    out << (i ? "," : "") << groups[i].thread << ',' << groups[i].node << ',' << groups[i].value;
  }
  out << "],\n\"times\":[";
  for (size_t i = 0; i < groups.size(); ++i) {
    out << (i ? ",[" : "[");
    uint32_t previous = 0;
    bool first = true;
    for (const auto& [bucket, value] : groups[i].buckets) {
      out << (first ? "" : ",") << bucket - previous << ',' << value;
      previous = bucket;
      first = false;
    }
    out << ']';
  }
  out << "]}";
}

}  // namespace

void writeFlameGraph(const Profile& profile, const FlameGraphOptions& options, std::ostream& out) {
  std::string_view page = flamegraph_assets::kPage;
  while (!page.empty()) {
    size_t open = page.find("{{");
    size_t close = open == std::string_view::npos ? open : page.find("}}", open);
    if (close == std::string_view::npos) {
      out << page;
      break;
    }
    out << page.substr(0, open);
    std::string_view key = page.substr(open + 2, close - open - 2);
    if (key == "TITLE") {
      writeHtmlText(out, options.title);
    } else if (key == "STYLE") {
      out << flamegraph_assets::kStyle;
    } else if (key == "SCRIPT") {
      out << flamegraph_assets::kScript;
    } else if (key == "DATA") {
      writeData(profile, options, out);
    } else {
      out << page.substr(open, close + 2 - open);
    }
    page.remove_prefix(close + 2);
  }
}

}  // namespace jfrbpf::convert
