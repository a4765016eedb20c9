#pragma once
// The parts of an x86_64 ELF64 file that unwinding needs: program headers (load segments, the
// PT_GNU_EH_FRAME pointer), section headers by name, section contents (zlib-compressed debug sections
// included) and the GNU build-id. Every header field is treated as hostile and checked against the file.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "userspace/unwind/byte_source.h"

namespace jfrbpf::unwind {

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct ElfSegment {
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t fileSize = 0;
  uint64_t memSize = 0;
};

// A module's thread-local template (PT_TLS): each thread's block of it is memSize bytes, aligned so.
struct ElfTlsTemplate {
  uint64_t memSize = 0;
  uint64_t align = 1;
};

class ElfImage {
 public:
  // Reads the ELF, program and section headers. Throws jfrbpf::Error when the bytes are not a
  // little-endian x86_64 ELF64 file or the headers are inconsistent. The source must outlive the image.
  explicit ElfImage(const ByteSource& source);

  const std::vector<ElfSegment>& segments() const { return segments_; }
  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* section(std::string_view name) const;
  const ElfSegment* segment(uint32_t type) const;
  const std::optional<ElfTlsTemplate>& tlsTemplate() const { return tlsTemplate_; }

  // A section's contents, decompressed when SHF_COMPRESSED (zlib). Throws when the result would exceed
  // maxBytes, the section lies outside the file, or the compression is unknown. SHT_NOBITS yields nothing.
  std::vector<uint8_t> sectionBytes(const ElfSection& section, uint64_t maxBytes) const;

  // Where virtual address vaddr is stored in the file: {file offset, bytes available up to the end of the
  // file part of its PT_LOAD segment}. Empty when vaddr is not backed by file bytes.
  std::optional<std::pair<uint64_t, uint64_t>> fileRangeAt(uint64_t vaddr) const;
  bool readAt(uint64_t vaddr, std::span<uint8_t> out) const;

  // The GNU build-id in lower-case hex, or empty when the file has none.
  std::string buildId() const;

  const ByteSource& source() const { return source_; }

 private:
  void readProgramHeaders(uint64_t offset, uint32_t count, uint32_t entrySize);
  void readSectionHeaders(uint64_t offset, uint32_t count, uint32_t entrySize, uint32_t nameIndex);
  std::string buildIdFromNotes(std::span<const uint8_t> notes) const;

  const ByteSource& source_;
  std::vector<ElfSegment> segments_;
  std::optional<ElfTlsTemplate> tlsTemplate_;
  std::vector<ElfSection> sections_;
};

}  // namespace jfrbpf::unwind
