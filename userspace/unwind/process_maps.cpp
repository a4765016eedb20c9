#include "userspace/unwind/process_maps.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "userspace/base/error.h"
#include "userspace/base/unique_fd.h"
#include "userspace/unwind/memory_reader.h"

namespace jfrbpf::unwind {
namespace {

constexpr size_t kMaxMapsBytes = 64u << 20;
constexpr uint64_t kMaxVdsoBytes = 1u << 20;

bool parseHex(std::string_view& text, uint64_t& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc{}) return false;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return true;
}

bool parseDecimal(std::string_view& text, uint64_t& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  if (error != std::errc{}) return false;
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return true;
}

std::string_view nextField(std::string_view& text) {
  size_t begin = text.find_first_not_of(' ');
  if (begin == std::string_view::npos) return text = {}, std::string_view{};
  text.remove_prefix(begin);
  size_t end = std::min(text.find(' '), text.size());
  std::string_view field = text.substr(0, end);
  text.remove_prefix(end);
  return field;
}

std::optional<MapsEntry> parseLine(std::string_view line) {
  MapsEntry entry;
  std::string_view range = nextField(line);
  if (!parseHex(range, entry.start) || !range.starts_with('-')) return std::nullopt;
  range.remove_prefix(1);
  if (!parseHex(range, entry.end) || !range.empty() || entry.end <= entry.start) return std::nullopt;
  std::string_view perms = nextField(line);
  if (perms.size() != 4) return std::nullopt;
  entry.executable = perms[2] == 'x';
  std::string_view offset = nextField(line);
  if (!parseHex(offset, entry.offset) || !offset.empty()) return std::nullopt;
  nextField(line);  // device
  std::string_view inode = nextField(line);
  if (!parseDecimal(inode, entry.inode) || !inode.empty()) return std::nullopt;
  size_t pathStart = line.find_first_not_of(' ');
  if (pathStart != std::string_view::npos) entry.path = line.substr(pathStart);
  return entry;
}

// The file as the process sees it, resolved inside its root so that its symlinks stay inside too.
UniqueFd openInProcessRoot(pid_t pid, const std::string& path) {
  UniqueFd root(::open(("/proc/" + std::to_string(pid) + "/root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return UniqueFd();
  open_how how{};
  how.flags = O_RDONLY | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  return UniqueFd(static_cast<int>(::syscall(SYS_openat2, root.get(), path.c_str(), &how, sizeof(how))));
}

UniqueFd openMappedFile(pid_t pid, const MapsEntry& entry) {
  std::ostringstream mapFile;
  mapFile << "/proc/" << pid << "/map_files/" << std::hex << entry.start << '-' << entry.end;
  UniqueFd fd(::open(mapFile.str().c_str(), O_RDONLY | O_CLOEXEC));
  if (fd || entry.path.ends_with(" (deleted)")) return fd;
  return openInProcessRoot(pid, entry.path);
}

std::string describe(pid_t pid, const MapsEntry& entry, const std::string& problem) {
  std::ostringstream text;
  text << "pid " << pid << " mapping " << std::hex << entry.start << '-' << entry.end << ' ' << entry.path << ": "
       << problem;
  return text.str();
}

}  // namespace

std::vector<MapsEntry> parseMaps(std::string_view text) {
  std::vector<MapsEntry> entries;
  while (!text.empty()) {
    size_t end = std::min(text.find('\n'), text.size());
    if (std::optional<MapsEntry> entry = parseLine(text.substr(0, end))) entries.push_back(std::move(*entry));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return entries;
}

std::vector<MapsEntry> readProcessMaps(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/maps";
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path + ": is process " + std::to_string(pid) + " still running?");
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxMapsBytes) throw Error(path + " is larger than 64 MiB; refusing to parse it");
  }
  return parseMaps(text);
}

void AddressSpace::add(MappedTable mapping) {
  auto position = std::upper_bound(mappings_.begin(), mappings_.end(), mapping.start,
                                   [](uint64_t start, const MappedTable& m) { return start < m.start; });
  bool overlapsPrevious = position != mappings_.begin() && std::prev(position)->end > mapping.start;
  bool overlapsNext = position != mappings_.end() && position->start < mapping.end;
  if (overlapsPrevious || overlapsNext) return;
  mappings_.insert(position, std::move(mapping));
}

const MappedTable* AddressSpace::find(uint64_t pc) const {
  auto position = std::upper_bound(mappings_.begin(), mappings_.end(), pc,
                                   [](uint64_t value, const MappedTable& m) { return value < m.start; });
  if (position == mappings_.begin()) return nullptr;
  const MappedTable& mapping = *std::prev(position);
  return pc < mapping.end ? &mapping : nullptr;
}

AddressSpace AddressSpace::forProcess(pid_t pid, TableCache& cache, std::vector<std::string>* problems) {
  AddressSpace space;
  auto report = [&](const MapsEntry& entry, const std::string& problem) {
    if (problems != nullptr) problems->push_back(describe(pid, entry, problem));
  };
  for (const MapsEntry& entry : readProcessMaps(pid)) {
    if (!entry.executable) continue;
    try {
      std::shared_ptr<const UnwindTable> table;
      uint64_t fileOffset = entry.offset;
      if (entry.path == "[vdso]") {
        if (entry.end - entry.start > kMaxVdsoBytes) throw Error("vDSO larger than 1 MiB");
        std::vector<uint8_t> image(entry.end - entry.start);
        if (!ProcessMemory(pid).read(entry.start, image)) throw Error("cannot read the vDSO from memory");
        table = cache.forBytes(image);
        fileOffset = 0;
      } else if (entry.inode != 0 && entry.path.starts_with('/')) {
        UniqueFd fd = openMappedFile(pid, entry);
        if (!fd) throw systemError("cannot open the mapped file");
        table = cache.forFile(fd.get());
      } else {
        continue;  // anonymous code (JIT): described by the JVM, not by ELF files
      }
      std::optional<uint64_t> bias = table->loadBias(entry.start, fileOffset);
      if (!bias) throw Error("mapping offset lies in no load segment of the file");
      space.add({entry.start, entry.end, *bias, std::move(table), entry.path});
    } catch (const Error& error) {
      report(entry, error.what());
    }
  }
  return space;
}

}  // namespace jfrbpf::unwind
