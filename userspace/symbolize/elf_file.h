#pragma once
// One ELF object opened read-only with libelf, from a file descriptor (read with pread, never mmap, so a
// file truncated under us by its owner yields an error instead of SIGBUS) or from an in-memory copy.
// Every offset and size is checked before use; a malformed object throws jfrbpf::Error.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "userspace/symbolize/symbol_table.h"

struct Elf;

namespace jfrbpf::symbolize {

struct LoadSegment {
  uint64_t fileOffset;
  uint64_t fileSize;
  uint64_t address;  // p_vaddr
  uint64_t memorySize;
  bool executable;  // PF_X
};

struct DebugLink {
  std::string fileName;  // a plain file name: never contains '/'
  uint32_t crc;
};

// A symbol table and its strings together: no real object comes near (libLLVM's are 4 MiB); a caller with a
// memory budget passes less.
inline constexpr uint64_t kMaxSymbolTableBytes = 512ull << 20;

class ElfFile {
 public:
  static ElfFile fromFd(UniqueFd fd);
  static ElfFile fromMemory(std::vector<uint8_t> image);

  ElfFile(ElfFile&& other) noexcept;
  ElfFile& operator=(ElfFile&& other) noexcept;
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  ~ElfFile();

  const std::string& buildId() const { return buildId_; }  // raw bytes; empty when the object has none
  const std::optional<DebugLink>& debugLink() const { return debugLink_; }
  const std::vector<LoadSegment>& loadSegments() const { return loadSegments_; }
  bool hasSymtab() const { return hasSymtab_; }
  uint64_t fileSize() const { return fileSize_; }
  int fd() const { return fd_.get(); }  // -1 for in-memory objects

  // Adds the FUNC and IFUNC symbols of .symtab and .dynsym to `table`, from tables that, with their strings,
  // hold at most maxTableBytes (larger ones are skipped).
  void addFunctionsTo(SymbolTable& table, uint64_t maxTableBytes = kMaxSymbolTableBytes) const;

 private:
  struct Section {
    uint32_t type = 0;
    uint64_t flags = 0;
    uint64_t address = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    uint32_t link = 0;
    uint64_t entrySize = 0;
  };

  ElfFile() = default;
  void parseHeaders();
  void addSymbolsOf(size_t sectionIndex, SymbolTable& table, uint64_t maxTableBytes) const;
  bool inFile(uint64_t offset, uint64_t size) const;
  // In the file, and (for a file) not mostly a hole.
  bool readable(const Section& section) const;

  Elf* elf_ = nullptr;
  UniqueFd fd_;
  std::vector<uint8_t> image_;  // backs elf_ for in-memory objects
  uint64_t fileSize_ = 0;
  std::vector<Section> sections_;
  std::vector<LoadSegment> loadSegments_;
  std::string buildId_;
  std::optional<DebugLink> debugLink_;
  bool hasSymtab_ = false;
  bool bigEndian_ = false;
};

}  // namespace jfrbpf::symbolize
