#include "userspace/symbolize/elf_symbols.h"

#include <atomic>

namespace jfrbpf::symbolize {

std::optional<uint64_t> ElfSymbols::fileOffsetToAddress(uint64_t fileOffset) const {
  // Code is looked up, so where segments share file bytes (linkers packing small objects) the executable
  // segment is the one that was mapped for it.
  std::optional<uint64_t> fromOther;
  for (const LoadSegment& segment : segments) {
    if (fileOffset >= segment.fileOffset && fileOffset - segment.fileOffset < segment.fileSize) {
      uint64_t address = segment.address + (fileOffset - segment.fileOffset);
      if (segment.executable) return address;
      if (!fromOther) fromOther = address;
    }
  }
  return fromOther;
}

size_t ElfSymbols::memoryBytes() const {
  return sizeof(*this) + buildId.capacity() + segments.capacity() * sizeof(LoadSegment) + symbols.memoryBytes() +
         debugFile.capacity();
}

std::shared_ptr<ElfSymbols> buildElfSymbols(const ElfFile& object, const ElfFile* debugFile,
                                            std::string debugFilePath, uint64_t maxTableBytes) {
  static std::atomic<uint32_t> nextId{1};
  auto result = std::make_shared<ElfSymbols>();
  result->id = nextId.fetch_add(1, std::memory_order_relaxed);
  result->buildId = object.buildId();
  result->segments = object.loadSegments();
  object.addFunctionsTo(result->symbols, maxTableBytes);
  if (debugFile != nullptr) {
    debugFile->addFunctionsTo(result->symbols, maxTableBytes);
    result->debugFile = std::move(debugFilePath);
  }
  result->symbols.finalize();
  return result;
}

std::shared_ptr<ElfSymbols> parseElfSymbols(std::span<const uint8_t> image) {
  ElfFile file = ElfFile::fromMemory(std::vector<uint8_t>(image.begin(), image.end()));
  return buildElfSymbols(file, nullptr);
}

std::string hexBuildId(std::string_view buildId) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(buildId.size() * 2);
  for (char c : buildId) {
    auto byte = static_cast<uint8_t>(c);
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0xf]);
  }
  return hex;
}

}  // namespace jfrbpf::symbolize
