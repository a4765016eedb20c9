#include "userspace/otel/thread_context_location.h"

#include <elf.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cstdio>
#include <cstring>
#include <set>

#include "base/error.h"
#include "userspace/proc/mapped_file.h"
#include "userspace/proc/paths.h"
#include "userspace/unwind/byte_source.h"

namespace jfrbpf::otel {
namespace {

// The largest .dynsym, .dynstr or relocation table read, so that a hostile module costs the recorder little
// memory: libjvm.so's largest, .rela.dyn, is 3 MiB.
constexpr uint64_t kMaxTableBytes = 16u << 20;
// A static TLS offset is the size of the static TLS area at most: glibc's default surplus plus the initial
// modules' blocks, a few MiB in any real process.
constexpr int64_t kMaxStaticTlsBytes = 64 << 20;

uint64_t roundUp(uint64_t value, uint64_t align) { return align <= 1 ? value : (value + align - 1) / align * align; }

std::optional<uint32_t> symbolIndex(const unwind::ElfImage& elf, ThreadContextSymbol& found) {
  const unwind::ElfSection* dynsym = elf.section(".dynsym");
  const unwind::ElfSection* dynstr = elf.section(".dynstr");
  if (dynsym == nullptr || dynstr == nullptr) return std::nullopt;
  const std::vector<uint8_t> symbols = elf.sectionBytes(*dynsym, kMaxTableBytes);
  const std::vector<uint8_t> names = elf.sectionBytes(*dynstr, kMaxTableBytes);
  const size_t nameLength = std::strlen(kThreadContextSymbol);
  for (size_t i = 1; (i + 1) * sizeof(Elf64_Sym) <= symbols.size(); ++i) {
    Elf64_Sym sym;
    std::memcpy(&sym, symbols.data() + i * sizeof sym, sizeof sym);
    if (ELF64_ST_TYPE(sym.st_info) != STT_TLS || sym.st_shndx == SHN_UNDEF) continue;
    if (sym.st_name + nameLength + 1 > names.size()) continue;
    if (std::memcmp(names.data() + sym.st_name, kThreadContextSymbol, nameLength + 1) != 0) continue;
    if (sym.st_size != 0 && sym.st_size != sizeof(uint64_t)) return std::nullopt;  // not a pointer
    found.value = sym.st_value;
    return static_cast<uint32_t>(i);
  }
  return std::nullopt;
}

}  // namespace

std::optional<ThreadContextSymbol> findThreadContextSymbol(const unwind::ElfImage& elf) {
  ThreadContextSymbol symbol;
  const std::optional<uint32_t> index = symbolIndex(elf, symbol);
  if (!index) return std::nullopt;
  if (!elf.tlsTemplate()) return std::nullopt;
  symbol.tlsMemSize = elf.tlsTemplate()->memSize;
  symbol.tlsAlign = elf.tlsTemplate()->align;
  for (const char* name : {".rela.dyn", ".rela.plt"}) {
    const unwind::ElfSection* section = elf.section(name);
    if (section == nullptr) continue;
    const std::vector<uint8_t> relocations = elf.sectionBytes(*section, kMaxTableBytes);
    for (size_t at = 0; at + sizeof(Elf64_Rela) <= relocations.size(); at += sizeof(Elf64_Rela)) {
      Elf64_Rela rela;
      std::memcpy(&rela, relocations.data() + at, sizeof rela);
      if (ELF64_R_SYM(rela.r_info) != *index) continue;
      switch (ELF64_R_TYPE(rela.r_info)) {
        case R_X86_64_TPOFF64: symbol.tpoffSlots.push_back(rela.r_offset); break;
        case R_X86_64_TLSDESC: symbol.tlsdescSlots.push_back(rela.r_offset); break;
        case R_X86_64_DTPMOD64: symbol.dtpmodSlots.push_back(rela.r_offset); break;
        default: break;
      }
    }
  }
  return symbol;
}

std::optional<ThreadContextLocation> locateThreadContext(const ThreadContextSymbol& symbol, uint64_t bias,
                                                         bool executable, const unwind::MemoryReader& memory) {
  ThreadContextLocation location;
  auto staticAt = [&](int64_t tpOffset) -> std::optional<ThreadContextLocation> {
    if (tpOffset >= 0 || tpOffset < -kMaxStaticTlsBytes) {
      throw Error("otel_thread_ctx_v1 at " + std::to_string(tpOffset) + " from the thread pointer: not in static TLS");
    }
    location.kind = ThreadContextLocation::Kind::kStatic;
    location.tpOffset = tpOffset;
    return location;
  };
  if (executable) {
    // x86_64 puts the main program's block right below the thread pointer, at its size rounded up to its
    // alignment: what the linker itself computes for local exec.
    return staticAt(static_cast<int64_t>(symbol.value) -
                    static_cast<int64_t>(roundUp(symbol.tlsMemSize, symbol.tlsAlign)));
  }
  for (uint64_t slot : symbol.tpoffSlots) {
    uint64_t tpOffset = 0;
    if (!memory.readU64(bias + slot, tpOffset)) throw Error("otel_thread_ctx_v1's GOT slot unreadable");
    return staticAt(static_cast<int64_t>(tpOffset));
  }
  for (uint64_t slot : symbol.tlsdescSlots) {
    // A resolved descriptor: {resolver, argument}. For static TLS the argument is the offset from the thread
    // pointer (negative); for dynamic TLS, the address of {module id, offset, generation}.
    uint64_t argument = 0;
    if (!memory.readU64(bias + slot + 8, argument)) throw Error("otel_thread_ctx_v1's TLS descriptor unreadable");
    const auto signedArgument = static_cast<int64_t>(argument);
    if (signedArgument < 0) return staticAt(signedArgument);
    uint64_t index[2];
    if (argument == 0 || !memory.read(argument, {reinterpret_cast<uint8_t*>(index), sizeof index})) {
      return std::nullopt;  // not resolved yet
    }
    location.kind = ThreadContextLocation::Kind::kDynamic;
    location.moduleId = index[0];
    location.offset = index[1];
    return location;
  }
  for (uint64_t slot : symbol.dtpmodSlots) {
    uint64_t moduleId = 0;
    if (!memory.readU64(bias + slot, moduleId)) throw Error("otel_thread_ctx_v1's module id unreadable");
    if (moduleId == 0) return std::nullopt;  // not relocated yet
    location.kind = ThreadContextLocation::Kind::kDynamic;
    location.moduleId = moduleId;
    location.offset = symbol.value;
    return location;
  }
  throw Error("otel_thread_ctx_v1 is exported, but no relocation reaches it (local dynamic is not supported)");
}

std::string describe(const ThreadContextLocation& location) {
  char text[96];
  if (location.kind == ThreadContextLocation::Kind::kStatic) {
    std::snprintf(text, sizeof text, "static TLS at the thread pointer - 0x%llx",
                  static_cast<unsigned long long>(-location.tpOffset));
  } else {
    std::snprintf(text, sizeof text, "dynamic TLS: module %llu, offset 0x%llx",
                  static_cast<unsigned long long>(location.moduleId), static_cast<unsigned long long>(location.offset));
  }
  return text;
}

std::optional<ThreadContextLocation> locateThreadContext(pid_t pid, const std::vector<proc::Mapping>& maps) {
  struct stat exe {};
  const bool exeKnown = ::stat(proc::procPath(pid, "exe").c_str(), &exe) == 0;
  std::set<std::pair<uint64_t, uint64_t>> seen;  // device, inode: each module once
  for (const proc::Mapping& mapping : maps) {
    if (mapping.kind != proc::MappingKind::kFile || mapping.fileOffset != 0) continue;
    if (!seen.insert({makedev(mapping.devMajor, mapping.devMinor), mapping.inode}).second) continue;
    UniqueFd fd;
    try {
      fd = proc::openMappedFile(pid, mapping);
    } catch (const Error&) {
      continue;
    }
    if (!fd) continue;
    const unwind::ByteSource source = unwind::ByteSource::fromFd(fd.get());
    std::optional<unwind::ElfImage> elf;
    try {
      elf.emplace(source);
    } catch (const Error&) {
      continue;  // not an ELF file
    }
    std::optional<ThreadContextSymbol> symbol;
    try {
      symbol = findThreadContextSymbol(*elf);
    } catch (const Error&) {
      continue;  // tables past the bound, or outside the file: not the writer's module
    }
    if (!symbol) continue;
    uint64_t firstLoad = UINT64_MAX;
    for (const unwind::ElfSegment& segment : elf->segments()) {
      if (segment.type == PT_LOAD && segment.offset == 0) firstLoad = segment.vaddr;
    }
    if (firstLoad == UINT64_MAX) throw Error(mapping.path + ": otel_thread_ctx_v1 in a module without a first load segment");
    struct stat file {};
    const bool executable = exeKnown && ::fstat(fd.get(), &file) == 0 && file.st_dev == exe.st_dev &&
                            file.st_ino == exe.st_ino;
    std::optional<ThreadContextLocation> location =
        locateThreadContext(*symbol, mapping.start - firstLoad, executable, unwind::ProcessMemory(pid));
    if (location) location->module = mapping.path;
    return location;
  }
  return std::nullopt;
}

}  // namespace jfrbpf::otel
