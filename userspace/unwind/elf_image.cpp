#include "userspace/unwind/elf_image.h"

#include <elf.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "userspace/unwind/byte_reader.h"

namespace jfrbpf::unwind {
namespace {

// Real files have a few dozen of each; the caps only bound what a hostile header can make us allocate.
constexpr uint32_t kMaxProgramHeaders = 4096;
constexpr uint32_t kMaxSections = 1u << 16;
constexpr uint64_t kMaxSectionNameTable = 16u << 20;
constexpr uint64_t kMaxNoteBytes = 1u << 16;

template <typename T>
T readStruct(const ByteSource& source, uint64_t offset, const char* what) {
  T value{};
  if (!source.read(offset, {reinterpret_cast<uint8_t*>(&value), sizeof(T)})) {
    throw Error(std::string("ELF file is truncated: cannot read its ") + what);
  }
  return value;
}

}  // namespace

ElfImage::ElfImage(const ByteSource& source) : source_(source) {
  if (source.size() < sizeof(Elf64_Ehdr)) throw Error("not an ELF file: too short for an ELF header");
  auto header = readStruct<Elf64_Ehdr>(source, 0, "ELF header");
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) throw Error("not an ELF file: bad magic");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_machine != EM_X86_64) {
    throw Error("unwind tables are built for x86_64 ELF64 little-endian files only");
  }

  uint32_t sectionCount = header.e_shnum;
  uint32_t nameIndex = header.e_shstrndx;
  uint32_t programCount = header.e_phnum;
  if (header.e_shoff != 0 && (sectionCount == 0 || nameIndex == SHN_XINDEX || programCount == PN_XNUM)) {
    // Extended numbering keeps the real counts in section header 0.
    if (header.e_shentsize != sizeof(Elf64_Shdr)) throw Error("ELF section header size is not 64 bytes");
    auto first = readStruct<Elf64_Shdr>(source, header.e_shoff, "first section header");
    if (sectionCount == 0) sectionCount = static_cast<uint32_t>(std::min<uint64_t>(first.sh_size, kMaxSections + 1));
    if (nameIndex == SHN_XINDEX) nameIndex = first.sh_link;
    if (programCount == PN_XNUM) programCount = first.sh_info;
  }
  if (header.e_phoff != 0 && programCount != 0) {
    readProgramHeaders(header.e_phoff, programCount, header.e_phentsize);
  }
  if (header.e_shoff != 0 && sectionCount != 0) {
    readSectionHeaders(header.e_shoff, sectionCount, header.e_shentsize, nameIndex);
  }
}

void ElfImage::readProgramHeaders(uint64_t offset, uint32_t count, uint32_t entrySize) {
  if (entrySize != sizeof(Elf64_Phdr)) throw Error("ELF program header size is not 56 bytes");
  if (count > kMaxProgramHeaders) throw Error("ELF file claims too many program headers");
  segments_.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    auto phdr = readStruct<Elf64_Phdr>(source_, offset + uint64_t{i} * entrySize, "program headers");
    segments_.push_back({phdr.p_type, phdr.p_flags, phdr.p_offset, phdr.p_vaddr, phdr.p_filesz, phdr.p_memsz});
    if (phdr.p_type == PT_TLS) tlsTemplate_ = ElfTlsTemplate{phdr.p_memsz, std::max<uint64_t>(1, phdr.p_align)};
  }
}

void ElfImage::readSectionHeaders(uint64_t offset, uint32_t count, uint32_t entrySize, uint32_t nameIndex) {
  if (entrySize != sizeof(Elf64_Shdr)) throw Error("ELF section header size is not 64 bytes");
  if (count > kMaxSections) throw Error("ELF file claims too many section headers");
  if (offset > source_.size() || uint64_t{count} * entrySize > source_.size() - offset) {
    throw Error("ELF file is truncated: section headers lie past its end");
  }
  std::vector<Elf64_Shdr> headers(count);
  if (!source_.read(offset, {reinterpret_cast<uint8_t*>(headers.data()), headers.size() * sizeof(Elf64_Shdr)})) {
    throw Error("ELF file is truncated: cannot read its section headers");
  }
  std::vector<uint8_t> names;
  if (nameIndex < count && headers[nameIndex].sh_type == SHT_STRTAB &&
      headers[nameIndex].sh_size <= kMaxSectionNameTable) {
    names = source_.readVector(headers[nameIndex].sh_offset, headers[nameIndex].sh_size);
  }
  sections_.reserve(count);
  for (const Elf64_Shdr& shdr : headers) {
    ElfSection section{{}, shdr.sh_type, shdr.sh_flags, shdr.sh_addr, shdr.sh_offset, shdr.sh_size};
    if (shdr.sh_name < names.size()) {
      const char* start = reinterpret_cast<const char*>(names.data()) + shdr.sh_name;
      section.name.assign(start, strnlen(start, names.size() - shdr.sh_name));
    }
    sections_.push_back(std::move(section));
  }
}

const ElfSection* ElfImage::section(std::string_view name) const {
  for (const ElfSection& section : sections_) {
    if (section.name == name) return &section;
  }
  return nullptr;
}

const ElfSegment* ElfImage::segment(uint32_t type) const {
  for (const ElfSegment& segment : segments_) {
    if (segment.type == type) return &segment;
  }
  return nullptr;
}

std::vector<uint8_t> ElfImage::sectionBytes(const ElfSection& section, uint64_t maxBytes) const {
  if (section.type == SHT_NOBITS) return {};
  if ((section.flags & SHF_COMPRESSED) == 0) {
    if (section.size > maxBytes) throw Error("ELF section " + section.name + " is larger than the unwind limit");
    return source_.readVector(section.offset, section.size);
  }
  if (section.size < sizeof(Elf64_Chdr)) throw Error("compressed ELF section " + section.name + " is truncated");
  auto chdr = readStruct<Elf64_Chdr>(source_, section.offset, "compression header");
  if (chdr.ch_type != ELFCOMPRESS_ZLIB) {
    throw Error("ELF section " + section.name + " uses a compression other than zlib, which is not supported");
  }
  if (chdr.ch_size > maxBytes) throw Error("ELF section " + section.name + " is larger than the unwind limit");
  if (section.size - sizeof(Elf64_Chdr) > maxBytes) {
    throw Error("compressed ELF section " + section.name + " is larger than the unwind limit");
  }
  std::vector<uint8_t> compressed =
      source_.readVector(section.offset + sizeof(Elf64_Chdr), section.size - sizeof(Elf64_Chdr));
  std::vector<uint8_t> plain(static_cast<size_t>(chdr.ch_size));
  uLongf plainSize = plain.size();
  int rc = ::uncompress(plain.data(), &plainSize, compressed.data(), compressed.size());
  if (rc != Z_OK || plainSize != plain.size()) {
    throw Error("compressed ELF section " + section.name + " does not decompress to its declared size");
  }
  return plain;
}

std::optional<std::pair<uint64_t, uint64_t>> ElfImage::fileRangeAt(uint64_t vaddr) const {
  for (const ElfSegment& segment : segments_) {
    if (segment.type != PT_LOAD || vaddr < segment.vaddr || vaddr - segment.vaddr >= segment.fileSize) continue;
    uint64_t delta = vaddr - segment.vaddr;
    if (segment.offset > source_.size() || delta >= source_.size() - segment.offset) return std::nullopt;
    uint64_t fileOffset = segment.offset + delta;
    uint64_t available = std::min(segment.fileSize - delta, source_.size() - fileOffset);
    return std::make_pair(fileOffset, available);
  }
  return std::nullopt;
}

bool ElfImage::readAt(uint64_t vaddr, std::span<uint8_t> out) const {
  auto range = fileRangeAt(vaddr);
  return range && out.size() <= range->second && source_.read(range->first, out);
}

std::string ElfImage::buildId() const {
  for (const ElfSegment& segment : segments_) {
    if (segment.type != PT_NOTE || segment.fileSize > kMaxNoteBytes) continue;
    if (segment.offset > source_.size() || segment.fileSize > source_.size() - segment.offset) continue;
    std::string id = buildIdFromNotes(source_.readVector(segment.offset, segment.fileSize));
    if (!id.empty()) return id;
  }
  for (const ElfSection& section : sections_) {
    if (section.type != SHT_NOTE || section.size > kMaxNoteBytes) continue;
    if (section.offset > source_.size() || section.size > source_.size() - section.offset) continue;
    std::string id = buildIdFromNotes(source_.readVector(section.offset, section.size));
    if (!id.empty()) return id;
  }
  return {};
}

std::string ElfImage::buildIdFromNotes(std::span<const uint8_t> notes) const {
  ByteReader reader(notes);
  while (reader.remaining() >= 12) {
    uint32_t nameSize = reader.u32();
    uint32_t descSize = reader.u32();
    uint32_t type = reader.u32();
    std::span<const uint8_t> name = reader.take(nameSize);
    reader.skip((4 - nameSize % 4) % 4);
    std::span<const uint8_t> desc = reader.take(descSize);
    if (!reader.ok()) break;
    if (type == NT_GNU_BUILD_ID && nameSize == 4 && std::memcmp(name.data(), "GNU", 4) == 0 && !desc.empty()) {
      static constexpr char kHex[] = "0123456789abcdef";
      std::string hex;
      for (uint8_t byte : desc) {
        hex.push_back(kHex[byte >> 4]);
        hex.push_back(kHex[byte & 15]);
      }
      return hex;
    }
    reader.skip((4 - descSize % 4) % 4);
  }
  return {};
}

}  // namespace jfrbpf::unwind
