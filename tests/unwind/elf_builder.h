#pragma once
// Builds small x86_64 ELF images in memory for the tests. Allocated sections are stored at file offset ==
// virtual address, inside one R+X PT_LOAD that starts at 0, so vaddr arithmetic stays obvious.
#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace jfrbpf::unwind::test {

struct TestSection {
  std::string name;
  uint64_t addr = 0;  // 0: not allocated (placed after the loaded part)
  std::vector<uint8_t> data;
  uint32_t type = SHT_PROGBITS;
  uint64_t flags = 0;
};

struct ElfBuildOptions {
  bool sectionHeaders = true;
  const char* ehFrameHdrSection = nullptr;  // make a PT_GNU_EH_FRAME for this section
  std::vector<uint8_t> buildIdNote;         // when set, a PT_NOTE with this GNU build-id
};

inline std::vector<uint8_t> buildElf(const std::vector<TestSection>& sections, const ElfBuildOptions& options = {}) {
  std::vector<uint8_t> out(sizeof(Elf64_Ehdr), 0);
  auto append = [&](const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    out.insert(out.end(), p, p + size);
  };
  size_t phCount = 1 + (options.ehFrameHdrSection ? 1 : 0) + (options.buildIdNote.empty() ? 0 : 1);
  size_t phOffset = out.size();
  out.resize(out.size() + phCount * sizeof(Elf64_Phdr));

  std::vector<uint64_t> offsets;
  uint64_t loadEnd = out.size();
  for (const TestSection& section : sections) {
    if (section.addr == 0) {
      offsets.push_back(0);
      continue;
    }
    if (out.size() < section.addr) out.resize(section.addr, 0);
    offsets.push_back(out.size());
    append(section.data.data(), section.data.size());
    loadEnd = out.size();
  }
  uint64_t noteOffset = out.size();
  if (!options.buildIdNote.empty()) {
    uint32_t header[3] = {4, static_cast<uint32_t>(options.buildIdNote.size()), NT_GNU_BUILD_ID};
    append(header, sizeof(header));
    append("GNU", 4);
    append(options.buildIdNote.data(), options.buildIdNote.size());
    out.resize((out.size() + 3) & ~size_t{3}, 0);
  }
  uint64_t noteSize = out.size() - noteOffset;
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sections[i].addr != 0) continue;
    offsets[i] = out.size();
    append(sections[i].data.data(), sections[i].data.size());
  }

  std::vector<Elf64_Phdr> phdrs;
  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_flags = PF_R | PF_X;
  load.p_filesz = load.p_memsz = loadEnd;
  load.p_align = 0x1000;
  phdrs.push_back(load);
  for (size_t i = 0; options.ehFrameHdrSection && i < sections.size(); ++i) {
    if (sections[i].name != options.ehFrameHdrSection) continue;
    Elf64_Phdr hdr{};
    hdr.p_type = PT_GNU_EH_FRAME;
    hdr.p_flags = PF_R;
    hdr.p_offset = offsets[i];
    hdr.p_vaddr = sections[i].addr;
    hdr.p_filesz = hdr.p_memsz = sections[i].data.size();
    phdrs.push_back(hdr);
  }
  if (!options.buildIdNote.empty()) {
    Elf64_Phdr note{};
    note.p_type = PT_NOTE;
    note.p_offset = noteOffset;
    note.p_filesz = noteSize;
    phdrs.push_back(note);
  }
  std::memcpy(out.data() + phOffset, phdrs.data(), phdrs.size() * sizeof(Elf64_Phdr));

  Elf64_Ehdr ehdr{};
  std::memcpy(ehdr.e_ident, ELFMAG, SELFMAG);
  ehdr.e_ident[EI_CLASS] = ELFCLASS64;
  ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
  ehdr.e_ident[EI_VERSION] = EV_CURRENT;
  ehdr.e_type = ET_DYN;
  ehdr.e_machine = EM_X86_64;
  ehdr.e_version = EV_CURRENT;
  ehdr.e_phoff = phOffset;
  ehdr.e_phnum = static_cast<uint16_t>(phdrs.size());
  ehdr.e_phentsize = sizeof(Elf64_Phdr);
  ehdr.e_ehsize = sizeof(Elf64_Ehdr);
  ehdr.e_shentsize = sizeof(Elf64_Shdr);

  if (options.sectionHeaders) {
    std::string names(1, '\0');
    std::vector<Elf64_Shdr> shdrs(1);
    for (size_t i = 0; i < sections.size(); ++i) {
      Elf64_Shdr shdr{};
      shdr.sh_name = static_cast<uint32_t>(names.size());
      names += sections[i].name + '\0';
      shdr.sh_type = sections[i].type;
      shdr.sh_flags = sections[i].flags | (sections[i].addr ? SHF_ALLOC : 0);
      shdr.sh_addr = sections[i].addr;
      shdr.sh_offset = offsets[i];
      shdr.sh_size = sections[i].data.size();
      shdrs.push_back(shdr);
    }
    Elf64_Shdr strtab{};
    strtab.sh_name = static_cast<uint32_t>(names.size());
    names += std::string(".shstrtab") + '\0';
    strtab.sh_type = SHT_STRTAB;
    strtab.sh_offset = out.size();
    strtab.sh_size = names.size();
    append(names.data(), names.size());
    shdrs.push_back(strtab);
    out.resize((out.size() + 7) & ~size_t{7}, 0);
    ehdr.e_shoff = out.size();
    ehdr.e_shnum = static_cast<uint16_t>(shdrs.size());
    ehdr.e_shstrndx = static_cast<uint16_t>(shdrs.size() - 1);
    append(shdrs.data(), shdrs.size() * sizeof(Elf64_Shdr));
  }
  std::memcpy(out.data(), &ehdr, sizeof(ehdr));
  return out;
}

}  // namespace jfrbpf::unwind::test
