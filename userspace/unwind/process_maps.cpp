#include "userspace/unwind/process_maps.h"

#include <fcntl.h>

#include <algorithm>
#include <iterator>
#include <sstream>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"
#include "userspace/proc/mapped_file.h"
#include "userspace/proc/maps.h"
#include "userspace/proc/paths.h"
#include "userspace/proc/process_dir.h"
#include "userspace/unwind/memory_reader.h"

namespace jfrbpf::unwind {
namespace {

constexpr uint64_t kMaxVdsoBytes = 1u << 20;

std::string describe(pid_t pid, const proc::Mapping& entry, const std::string& problem) {
  std::ostringstream text;
  text << "pid " << pid << " mapping " << std::hex << entry.start << '-' << entry.end << ' ' << entry.path
       << (entry.deleted ? " (deleted)" : "") << ": " << problem;
  return text.str();
}

}  // namespace

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
  auto report = [&](const proc::Mapping& entry, const std::string& problem) {
    if (problems != nullptr) problems->push_back(describe(pid, entry, problem));
  };
  for (const proc::Mapping& entry : proc::readMaps(pid)) {
    if (!entry.executable) continue;
    try {
      std::shared_ptr<const UnwindTable> table;
      uint64_t fileOffset = entry.fileOffset;
      if (entry.kind == proc::MappingKind::kVdso) {
        if (entry.end - entry.start > kMaxVdsoBytes) throw Error("vDSO larger than 1 MiB");
        std::vector<uint8_t> image(entry.end - entry.start);
        if (!ProcessMemory(pid).read(entry.start, image)) throw Error("cannot read the vDSO from memory");
        table = cache.forBytes(image);
        fileOffset = 0;
      } else if (entry.inode != 0 && entry.path.starts_with('/')) {
        UniqueFd fd = proc::openMappedFile(pid, entry);
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
