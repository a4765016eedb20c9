#include "userspace/symbolize/address_space.h"

#include <algorithm>

namespace jfrbpf::symbolize {

std::string_view libraryName(const proc::Mapping& mapping) {
  switch (mapping.kind) {
    case proc::MappingKind::kFile:
    case proc::MappingKind::kMemfd:
      return proc::baseName(mapping.path);
    case proc::MappingKind::kVdso:
      return "[vdso]";
    case proc::MappingKind::kAnonymous:
      return mapping.path.empty() ? std::string_view("[anon]") : std::string_view(mapping.path);
    case proc::MappingKind::kSpecial:
      return mapping.path;
  }
  return mapping.path;
}

void AddressSpace::replaceMappings(std::vector<proc::Mapping> mappings, StringInterner& names) {
  std::vector<MappedObject> previous = std::move(objects_);
  objects_.clear();
  for (proc::Mapping& mapping : mappings) {
    if (!mapping.executable) continue;
    auto same = std::lower_bound(previous.begin(), previous.end(), mapping.start,
                                 [](const MappedObject& object, uint64_t start) { return object.mapping.start < start; });
    if (same != previous.end() && same->mapping == mapping) {
      objects_.push_back(std::move(*same));
      continue;
    }
    std::string_view library = names.intern(libraryName(mapping));
    objects_.push_back(MappedObject{std::move(mapping), library, false, nullptr});
  }
  std::sort(objects_.begin(), objects_.end(),
            [](const MappedObject& a, const MappedObject& b) { return a.mapping.start < b.mapping.start; });
  pcCache.clear();
}

MappedObject* AddressSpace::find(uint64_t pc) {
  auto next = std::upper_bound(objects_.begin(), objects_.end(), pc,
                               [](uint64_t value, const MappedObject& object) { return value < object.mapping.start; });
  if (next == objects_.begin()) return nullptr;
  MappedObject& candidate = *(next - 1);
  return candidate.mapping.contains(pc) ? &candidate : nullptr;
}

}  // namespace jfrbpf::symbolize
