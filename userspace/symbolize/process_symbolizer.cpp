#include "userspace/symbolize/process_symbolizer.h"

#include <cstdio>

#include "base/error.h"
#include "userspace/proc/maps.h"
#include "userspace/proc/proc_file.h"
#include "userspace/proc/process_dir.h"
#include "userspace/symbolize/process_files.h"

namespace jfrbpf::symbolize {

ProcessSymbolizer::ProcessSymbolizer() : ProcessSymbolizer(Options{}) {}

ProcessSymbolizer::ProcessSymbolizer(Options options)
    : options_(std::move(options)), loader_(options_.debugRoots, options_.elfCacheBytes) {}

ProcessSymbolizer::~ProcessSymbolizer() = default;

NativeFrame ProcessSymbolizer::symbolize(int pid, uint64_t pc) {
  ++stats_.lookups;
  AddressSpace& space = spaceOf(pid);
  if (auto cached = space.pcCache.find(pc); cached != space.pcCache.end()) {
    ++stats_.pcCacheHits;
    return cached->second;
  }
  // "Gone" is checked again like a miss: /proc/PID/maps also fails for a moment while the process execs.
  MappedObject* object = space.gone ? nullptr : space.find(pc);
  if (object == nullptr &&
      std::chrono::steady_clock::now() - space.lastMapsRead >= options_.mapsRefreshInterval) {
    readMaps(pid, space);  // new code may have been mapped since we last looked
    object = space.gone ? nullptr : space.find(pc);
  }
  if (space.gone) return {kUnknownName, kUnknownName, pc, FrameKind::kProcessGone};
  // Not cached: the pc may become mapped later, and only a miss can trigger the re-read that finds it.
  if (object == nullptr) return {kUnknownName, kUnknownName, pc, FrameKind::kUnmapped};

  NativeFrame frame = resolve(pid, space, *object, pc);
  if (space.pcCache.size() >= options_.pcCacheEntriesPerProcess) space.pcCache.clear();
  space.pcCache.emplace(pc, frame);
  return frame;
}

void ProcessSymbolizer::refresh(int pid) {
  auto known = spaces_.find(pid);
  if (known == spaces_.end()) {
    spaceOf(pid);  // first sight reads the maps anyway
    return;
  }
  readMaps(pid, *known->second);
}

void ProcessSymbolizer::forgetProcess(int pid) {
  spaces_.erase(pid);
  if (lastPid_ == pid) {
    lastPid_ = -1;
    lastSpace_ = nullptr;
  }
}

void ProcessSymbolizer::dropCaches() {
  spaces_.clear();
  lastPid_ = -1;
  lastSpace_ = nullptr;
  demangled_.clear();
  names_.clear();
  loader_.dropCache();
}

ProcessSymbolizer::Stats ProcessSymbolizer::stats() const {
  Stats result = stats_;
  result.objects = loader_.stats();
  result.elfCacheBytes = loader_.cache().bytes();
  result.internedBytes = names_.bytesUsed();
  return result;
}

size_t ProcessSymbolizer::memoryBytes() const {
  // A hash node holds its value, a next pointer and the cached hash; its bucket a pointer.
  constexpr size_t kNodeOverhead = 3 * sizeof(void*);
  size_t bytes = loader_.cache().bytes() + names_.bytesUsed();
  bytes += demangled_.size() * (sizeof(decltype(demangled_)::value_type) + kNodeOverhead);
  for (const auto& [pid, space] : spaces_) {
    bytes += sizeof(AddressSpace) + space->mappingCount() * sizeof(MappedObject);
    bytes += space->pcCache.size() * (sizeof(decltype(space->pcCache)::value_type) + kNodeOverhead) +
             space->pcCache.bucket_count() * sizeof(void*);
  }
  return bytes;
}

AddressSpace& ProcessSymbolizer::spaceOf(int pid) {
  if (pid == lastPid_) return *lastSpace_;
  auto [it, inserted] = spaces_.try_emplace(pid);
  if (inserted) {
    it->second = std::make_unique<AddressSpace>();
    readMaps(pid, *it->second);
  }
  lastPid_ = pid;
  lastSpace_ = it->second.get();
  return *lastSpace_;
}

void ProcessSymbolizer::readMaps(int pid, AddressSpace& space) {
  ++stats_.mapsReads;
  space.lastMapsRead = std::chrono::steady_clock::now();
  try {
    space.replaceMappings(proc::readMaps(pid), names_);
    space.gone = false;
  } catch (const proc::ProcessGoneError&) {
    space.gone = true;
    space.pcCache.clear();
  } catch (const Error&) {
    // Unreadable maps (no privilege): every pc of this process stays unmapped; nothing better to report.
  }
}

NativeFrame ProcessSymbolizer::resolve(int pid, AddressSpace& space, MappedObject& object, uint64_t pc) {
  const proc::Mapping& mapping = object.mapping;
  if (mapping.kind == proc::MappingKind::kAnonymous) {
    return {object.library, {}, pc - mapping.start, FrameKind::kAnonymous};
  }
  uint64_t fileOffset = pc - mapping.start + mapping.fileOffset;
  if (mapping.kind != proc::MappingKind::kSpecial) {
    if (!object.loadAttempted) load(pid, space, object);
    if (object.symbols != nullptr) {
      const ElfSymbols& symbols = *object.symbols;
      if (std::optional<uint64_t> address = symbols.fileOffsetToAddress(fileOffset)) {
        if (std::optional<SymbolTable::Match> match = symbols.symbols.lookup(*address)) {
          return {object.library, symbolName(symbols, match->index), match->offset, FrameKind::kSymbol};
        }
      }
    } else if (mapping.kind == proc::MappingKind::kMemfd) {
      return {object.library, {}, pc - mapping.start, FrameKind::kAnonymous};  // JIT code double-mapped via memfd
    }
  }
  return {object.library, offsetName(fileOffset), fileOffset, FrameKind::kNoSymbol};
}

void ProcessSymbolizer::load(int pid, AddressSpace& space, MappedObject& object) {
  object.loadAttempted = true;
  if (object.mapping.kind == proc::MappingKind::kVdso) {
    object.symbols = loader_.loadVdso(pid, object.mapping);
    return;
  }
  if (!space.rootOpened) {
    space.root = proc::openProcessRoot(pid);
    space.rootOpened = true;
  }
  object.symbols = loader_.loadMappedFile(pid, object.mapping, space.root.get());
}

std::string_view ProcessSymbolizer::symbolName(const ElfSymbols& symbols, uint32_t index) {
  uint64_t key = uint64_t{symbols.id} << 32 | index;
  auto [it, inserted] = demangled_.try_emplace(key);
  if (inserted) it->second = names_.intern(demangler_.demangle(symbols.symbols.cName(index)));
  return it->second;
}

std::string_view ProcessSymbolizer::offsetName(uint64_t offset) {
  char text[24];
  int length = std::snprintf(text, sizeof text, "+0x%llx", static_cast<unsigned long long>(offset));
  return names_.intern(std::string_view(text, static_cast<size_t>(length)));
}

}  // namespace jfrbpf::symbolize
