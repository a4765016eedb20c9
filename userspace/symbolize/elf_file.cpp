#include "userspace/symbolize/elf_file.h"

#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "base/error.h"
#include "userspace/proc/files.h"

namespace jfrbpf::symbolize {
namespace {

// Bounds that no sane object reaches; a hostile file claiming more would make us allocate without limit.
constexpr uint64_t kMaxNoteBytes = 1 << 20;
constexpr size_t kMaxBuildIdBytes = 64;
constexpr size_t kMaxSections = 1 << 16;
constexpr size_t kMaxSegments = 1 << 12;
// Section names are a few hundred bytes; libelf reads the whole table at the first name asked for, so a
// sparse file whose table claims 900 MiB would cost that much memory.
constexpr uint64_t kMaxSectionNamesBytes = 1 << 20;

void initLibelf() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  if (!ready) throw Error("libelf refused to initialise: reinstall libelf1");
}

[[noreturn]] void fail(const char* what) {
  throw Error(std::string("malformed ELF object: ") + what + " (" + elf_errmsg(-1) + ")");
}

// The build-id from a block of notes, or empty.
std::string buildIdFrom(Elf_Data* data) {
  if (data == nullptr || data->d_buf == nullptr) return {};
  const auto* bytes = static_cast<const uint8_t*>(data->d_buf);
  size_t offset = 0;
  GElf_Nhdr header;
  size_t nameOffset;
  size_t descOffset;
  while (offset < data->d_size) {
    size_t next = gelf_getnote(data, offset, &header, &nameOffset, &descOffset);
    if (next == 0 || next <= offset) break;
    offset = next;
    if (header.n_type != NT_GNU_BUILD_ID || header.n_namesz != 4 || header.n_descsz == 0 ||
        header.n_descsz > kMaxBuildIdBytes) {
      continue;
    }
    if (nameOffset > data->d_size || data->d_size - nameOffset < 4) continue;
    if (descOffset > data->d_size || data->d_size - descOffset < header.n_descsz) continue;
    if (std::memcmp(bytes + nameOffset, "GNU", 4) != 0) continue;
    return std::string(reinterpret_cast<const char*>(bytes + descOffset), header.n_descsz);
  }
  return {};
}

// libelf's elf_begin allocates a descriptor per section the header claims, bounded only by the file's length:
// a sparse file can claim 2^32 sections (through the extended count in section 0) and cost gigabytes before any
// check of ours. The counts are read first, by hand, and a file claiming more than any real object is refused.
template <typename Ehdr, typename Shdr>
void checkTableCounts(int fd) {
  Ehdr header;
  if (::pread(fd, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) return;  // libelf says why
  uint64_t sections = header.e_shnum;
  uint64_t segments = header.e_phnum;
  if (header.e_shoff != 0 && (sections == 0 || segments == PN_XNUM)) {
    Shdr first;
    if (::pread(fd, &first, sizeof first, static_cast<off_t>(header.e_shoff)) != static_cast<ssize_t>(sizeof first)) {
      return;
    }
    if (sections == 0) sections = first.sh_size;
    if (segments == PN_XNUM) segments = first.sh_info;
  }
  if (sections > kMaxSections) throw Error("malformed ELF object: too many sections");
  if (segments > kMaxSegments) throw Error("malformed ELF object: too many program headers");
}

void checkTableCounts(int fd) {
  unsigned char ident[EI_NIDENT];
  if (::pread(fd, ident, sizeof ident, 0) != static_cast<ssize_t>(sizeof ident)) return;
  if (ident[EI_CLASS] == ELFCLASS64) checkTableCounts<Elf64_Ehdr, Elf64_Shdr>(fd);
  if (ident[EI_CLASS] == ELFCLASS32) checkTableCounts<Elf32_Ehdr, Elf32_Shdr>(fd);
}

}  // namespace

ElfFile ElfFile::fromFd(UniqueFd fd) {
  initLibelf();
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) throw systemError("cannot stat ELF object");
  if (!S_ISREG(st.st_mode)) throw Error("not a regular file, so not an ELF object");
  ElfFile file;
  file.fd_ = std::move(fd);
  file.fileSize_ = static_cast<uint64_t>(st.st_size);
  checkTableCounts(file.fd_.get());
  file.elf_ = elf_begin(file.fd_.get(), ELF_C_READ, nullptr);
  if (file.elf_ == nullptr) fail("unreadable");
  file.parseHeaders();
  return file;
}

ElfFile ElfFile::fromMemory(std::vector<uint8_t> image) {
  initLibelf();
  ElfFile file;
  file.image_ = std::move(image);
  file.fileSize_ = file.image_.size();
  // libelf wants a mutable buffer; it is our private copy.
  file.elf_ = elf_memory(reinterpret_cast<char*>(file.image_.data()), file.image_.size());
  if (file.elf_ == nullptr) fail("unreadable");
  file.parseHeaders();
  return file;
}

ElfFile::ElfFile(ElfFile&& other) noexcept
    : elf_(std::exchange(other.elf_, nullptr)),
      fd_(std::move(other.fd_)),
      image_(std::move(other.image_)),
      fileSize_(other.fileSize_),
      sections_(std::move(other.sections_)),
      loadSegments_(std::move(other.loadSegments_)),
      buildId_(std::move(other.buildId_)),
      debugLink_(std::move(other.debugLink_)),
      hasSymtab_(other.hasSymtab_),
      bigEndian_(other.bigEndian_) {}

ElfFile& ElfFile::operator=(ElfFile&& other) noexcept {
  if (this != &other) {
    if (elf_ != nullptr) elf_end(elf_);
    elf_ = std::exchange(other.elf_, nullptr);
    fd_ = std::move(other.fd_);
    image_ = std::move(other.image_);
    fileSize_ = other.fileSize_;
    sections_ = std::move(other.sections_);
    loadSegments_ = std::move(other.loadSegments_);
    buildId_ = std::move(other.buildId_);
    debugLink_ = std::move(other.debugLink_);
    hasSymtab_ = other.hasSymtab_;
    bigEndian_ = other.bigEndian_;
  }
  return *this;
}

ElfFile::~ElfFile() {
  if (elf_ != nullptr) elf_end(elf_);
}

bool ElfFile::inFile(uint64_t offset, uint64_t size) const {
  return offset <= fileSize_ && size <= fileSize_ - offset;
}

void ElfFile::parseHeaders() {
  if (elf_kind(elf_) != ELF_K_ELF) throw Error("not an ELF object");
  GElf_Ehdr header;
  if (gelf_getehdr(elf_, &header) == nullptr) fail("no ELF header");
  bigEndian_ = header.e_ident[EI_DATA] == ELFDATA2MSB;

  size_t segmentCount = 0;
  if (elf_getphdrnum(elf_, &segmentCount) != 0) fail("bad program header count");
  if (segmentCount > kMaxSegments) throw Error("malformed ELF object: too many program headers");
  for (size_t i = 0; i < segmentCount; ++i) {
    GElf_Phdr segment;
    if (gelf_getphdr(elf_, static_cast<int>(i), &segment) == nullptr) fail("bad program header");
    if (segment.p_type == PT_LOAD) {
      if (segment.p_offset + segment.p_filesz < segment.p_offset || segment.p_vaddr + segment.p_memsz < segment.p_vaddr) {
        continue;  // wraps around: cannot describe real memory
      }
      loadSegments_.push_back(
          {segment.p_offset, segment.p_filesz, segment.p_vaddr, segment.p_memsz, (segment.p_flags & PF_X) != 0});
    } else if (segment.p_type == PT_NOTE && buildId_.empty() && segment.p_filesz <= kMaxNoteBytes &&
               inFile(segment.p_offset, segment.p_filesz)) {
      Elf_Type type = segment.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;
      buildId_ = buildIdFrom(elf_getdata_rawchunk(elf_, static_cast<int64_t>(segment.p_offset), segment.p_filesz, type));
    }
  }

  size_t sectionCount = 0;
  if (elf_getshdrnum(elf_, &sectionCount) != 0) fail("bad section count");
  if (sectionCount > kMaxSections) throw Error("malformed ELF object: too many sections");
  size_t namesIndex = SHN_UNDEF;
  if (elf_getshdrstrndx(elf_, &namesIndex) != 0 || namesIndex >= sectionCount) namesIndex = SHN_UNDEF;
  if (namesIndex != SHN_UNDEF) {
    GElf_Shdr names;
    Elf_Scn* namesSection = elf_getscn(elf_, namesIndex);
    if (namesSection == nullptr || gelf_getshdr(namesSection, &names) == nullptr ||
        names.sh_size > kMaxSectionNamesBytes || !inFile(names.sh_offset, names.sh_size)) {
      namesIndex = SHN_UNDEF;  // no names: no debug link, the symbols are still read
    }
  }
  sections_.assign(sectionCount, Section{});

  std::string sectionBuildId;
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
    size_t index = elf_ndxscn(scn);
    GElf_Shdr shdr;
    if (index >= sectionCount || gelf_getshdr(scn, &shdr) == nullptr) continue;
    sections_[index] = {shdr.sh_type, shdr.sh_flags, shdr.sh_addr, shdr.sh_offset, shdr.sh_size, shdr.sh_link,
                        shdr.sh_entsize};
    bool present = shdr.sh_type != SHT_NOBITS && shdr.sh_size > 0 && inFile(shdr.sh_offset, shdr.sh_size);
    if (!present) continue;
    if (shdr.sh_type == SHT_SYMTAB) hasSymtab_ = true;
    if (shdr.sh_type == SHT_NOTE && sectionBuildId.empty() && shdr.sh_size <= kMaxNoteBytes) {
      sectionBuildId = buildIdFrom(elf_getdata(scn, nullptr));
    }
    const char* name = namesIndex == SHN_UNDEF ? nullptr : elf_strptr(elf_, namesIndex, shdr.sh_name);
    if (name != nullptr && std::strcmp(name, ".gnu_debuglink") == 0 && shdr.sh_size <= 4096) {
      Elf_Data* data = elf_rawdata(scn, nullptr);
      if (data == nullptr || data->d_buf == nullptr) continue;
      const char* bytes = static_cast<const char*>(data->d_buf);
      size_t nameLength = strnlen(bytes, data->d_size);
      size_t crcOffset = (nameLength + 4) & ~size_t{3};  // NUL, then padding to 4 bytes
      if (nameLength == 0 || nameLength == data->d_size || crcOffset + 4 > data->d_size) continue;
      std::string fileName(bytes, nameLength);
      // A hostile object must not steer us to arbitrary paths: a link names a file, never a path.
      if (fileName.find('/') != std::string::npos || fileName == "." || fileName == "..") continue;
      uint8_t crcBytes[4];
      std::memcpy(crcBytes, bytes + crcOffset, 4);
      uint32_t crc = bigEndian_ ? (uint32_t{crcBytes[0]} << 24 | uint32_t{crcBytes[1]} << 16 |
                                   uint32_t{crcBytes[2]} << 8 | crcBytes[3])
                                : (uint32_t{crcBytes[3]} << 24 | uint32_t{crcBytes[2]} << 16 |
                                   uint32_t{crcBytes[1]} << 8 | crcBytes[0]);
      debugLink_ = DebugLink{std::move(fileName), crc};
    }
  }
  // Section notes are what debug files keep; program headers are what a section-stripped object keeps.
  if (!sectionBuildId.empty()) buildId_ = std::move(sectionBuildId);
}

void ElfFile::addFunctionsTo(SymbolTable& table, uint64_t maxTableBytes) const {
  for (size_t i = 0; i < sections_.size(); ++i) {
    if (sections_[i].type == SHT_SYMTAB || sections_[i].type == SHT_DYNSYM) addSymbolsOf(i, table, maxTableBytes);
  }
}

bool ElfFile::readable(const Section& section) const {
  return inFile(section.offset, section.size) && !(fd_ && proc::mostlyHole(fd_.get(), section.offset, section.size));
}

void ElfFile::addSymbolsOf(size_t sectionIndex, SymbolTable& table, uint64_t maxTableBytes) const {
  const Section& section = sections_[sectionIndex];
  size_t entrySize = gelf_fsize(elf_, ELF_T_SYM, 1, EV_CURRENT);
  if (entrySize == 0 || section.entrySize != entrySize || section.link == SHN_UNDEF ||
      section.link >= sections_.size()) {
    return;
  }
  // libelf reads both tables whole: together they stay within the caller's share of memory, and a table that
  // is a hole of a sparse file is not read at all.
  const Section& strings = sections_[section.link];
  if (strings.type != SHT_STRTAB || section.size > maxTableBytes || strings.size > maxTableBytes - section.size ||
      !readable(section) || !readable(strings)) {
    return;
  }
  Elf_Scn* scn = elf_getscn(elf_, sectionIndex);
  Elf_Data* data = scn == nullptr ? nullptr : elf_getdata(scn, nullptr);
  if (data == nullptr || data->d_buf == nullptr) return;

  size_t count = data->d_size / entrySize;
  for (size_t i = 1; i < count; ++i) {  // entry 0 is always the null symbol
    GElf_Sym symbol;
    if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) break;
    unsigned type = GELF_ST_TYPE(symbol.st_info);
    if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
    if (symbol.st_shndx == SHN_UNDEF || symbol.st_shndx >= SHN_LORESERVE || symbol.st_value == 0) continue;
    const char* name = elf_strptr(elf_, section.link, symbol.st_name);
    if (name == nullptr || *name == '\0') continue;

    uint64_t sectionEnd = 0;
    if (symbol.st_shndx < sections_.size()) {
      const Section& home = sections_[symbol.st_shndx];
      if (symbol.st_value >= home.address && symbol.st_value - home.address < home.size) {
        sectionEnd = home.address + home.size;
      }
    }
    unsigned binding = GELF_ST_BIND(symbol.st_info);
    SymbolTable::Binding rank = binding == STB_GLOBAL ? SymbolTable::Binding::kGlobal
                                : binding == STB_WEAK ? SymbolTable::Binding::kWeak
                                                      : SymbolTable::Binding::kLocal;
    table.add(symbol.st_value, symbol.st_size, sectionEnd, name, type == STT_GNU_IFUNC, rank);
  }
}

}  // namespace jfrbpf::symbolize
