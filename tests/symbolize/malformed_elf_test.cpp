// The ELF parser on real seeds (exact expectations from readelf) and on broken input: truncation at every
// offset, corrupted headers and tables. Broken input must end in a clean jfrbpf::Error or a harmless result.
#include <elf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "base/error.h"
#include "tests/symbolize/test_helpers.h"
#include "userspace/symbolize/debug_file_finder.h"
#include "userspace/symbolize/elf_file.h"
#include "userspace/symbolize/elf_symbols.h"

namespace jfrbpf::symbolize {
namespace {

std::vector<uint8_t> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string seed(const std::string& name) { return std::string(SYMTEST_SEEDS) + "/" + name; }

std::string nameAt(const ElfSymbols& symbols, uint64_t address) {
  auto match = symbols.symbols.lookup(address);
  return match ? std::string(symbols.symbols.name(match->index)) : std::string("<none>");
}

// Parses `bytes` through both input paths; returns how many succeeded. Never crashes, that is the test.
int parseBothWays(const std::vector<uint8_t>& bytes) {
  int parsed = 0;
  try {
    auto symbols = parseElfSymbols(bytes);
    if (symbols->symbols.size() > 0) symbols->symbols.lookup(symbols->symbols.address(0));
    ++parsed;
  } catch (const Error&) {
  }
  UniqueFd fd(memfd_create("malformed-elf", MFD_CLOEXEC));
  if (!fd || write(fd.get(), bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    ADD_FAILURE() << "memfd unavailable";
    return parsed;
  }
  try {
    ElfFile file = ElfFile::fromFd(std::move(fd));
    auto symbols = buildElfSymbols(file, nullptr);
    ++parsed;
  } catch (const Error&) {
  }
  return parsed;
}

TEST(SymbolizeElf, ParsesSeedObjectExactly) {
  std::vector<uint8_t> bytes = readBytes(seed("tiny64.so"));
  ASSERT_FALSE(bytes.empty());
  auto symbols = parseElfSymbols(bytes);
  EXPECT_EQ(hexBuildId(symbols->buildId), test::readelfBuildId(seed("tiny64.so")));
  EXPECT_EQ(symbols->buildId.size(), 20u);
  ASSERT_EQ(symbols->segments.size(), 1u);
  EXPECT_EQ(symbols->segments[0].fileOffset, 0x158u);
  EXPECT_EQ(symbols->segments[0].address, 0x400158u);
  EXPECT_EQ(symbols->fileOffsetToAddress(0x100), std::nullopt) << "offset before the segment";
  EXPECT_EQ(symbols->fileOffsetToAddress(0x200), 0x400200u);

  EXPECT_EQ(nameAt(*symbols, 0x400315), "exported");
  EXPECT_EQ(nameAt(*symbols, 0x400305), "unsized");  // size 0: runs to the next symbol
  EXPECT_EQ(nameAt(*symbols, 0x400331), "_ZN2ns3fooIiEEvT_");
  EXPECT_EQ(nameAt(*symbols, 0x400341), "resolve_chosen");  // the ifunc's resolver code
  EXPECT_EQ(nameAt(*symbols, 0x400322), "helper");  // local: only in .symtab
  EXPECT_EQ(nameAt(*symbols, 0x400360), "<none>");
}

TEST(SymbolizeElf, Parses32BitObjects) {
  std::vector<uint8_t> bytes = readBytes(seed("tiny32.so"));
  auto symbols = parseElfSymbols(bytes);
  EXPECT_EQ(hexBuildId(symbols->buildId), test::readelfBuildId(seed("tiny32.so")));
  uint64_t exported = test::readelfSymbolValue(seed("tiny32.so"), "exported");
  ASSERT_NE(exported, 0u);
  EXPECT_EQ(nameAt(*symbols, exported + 1), "exported");
}

TEST(SymbolizeElf, ReadsDebugLinkAndItsCrc) {
  ElfFile stripped = ElfFile::fromFd(UniqueFd(open(seed("linked.so").c_str(), O_RDONLY | O_CLOEXEC)));
  EXPECT_FALSE(stripped.hasSymtab());
  ASSERT_TRUE(stripped.debugLink());
  EXPECT_EQ(stripped.debugLink()->fileName, "linked.debug");
  UniqueFd debug(open(seed("linked.debug").c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(fileCrc32(debug.get()), stripped.debugLink()->crc);

  ElfFile debugFile = ElfFile::fromFd(std::move(debug));
  EXPECT_TRUE(debugFile.hasSymtab());
  EXPECT_EQ(debugFile.buildId(), stripped.buildId());
  auto merged = buildElfSymbols(stripped, &debugFile, "linked.debug");
  EXPECT_EQ(nameAt(*merged, 0x400322), "helper");  // the debug file's sections: NOBITS text, real symtab
  EXPECT_EQ(merged->debugFile, "linked.debug");
}

TEST(SymbolizeElf, RejectsWhatIsNotElf) {
  EXPECT_THROW(parseElfSymbols(std::vector<uint8_t>{}), Error);
  EXPECT_THROW(parseElfSymbols(std::vector<uint8_t>{'h', 'e', 'l', 'l', 'o'}), Error);
  std::vector<uint8_t> archive = {'!', '<', 'a', 'r', 'c', 'h', '>', '\n'};
  EXPECT_THROW(parseElfSymbols(archive), Error);
  EXPECT_THROW(ElfFile::fromFd(UniqueFd(open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC))), Error);
}

TEST(SymbolizeElf, SurvivesTruncationAtEveryOffset) {
  for (const char* name : {"tiny64.so", "tiny32.so", "linked.so", "vdso.so"}) {
    std::vector<uint8_t> bytes = readBytes(seed(name));
    ASSERT_FALSE(bytes.empty()) << name;
    for (size_t length = 0; length < bytes.size(); length += (length < 256 ? 1 : 7)) {
      parseBothWays(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(length)));
    }
    EXPECT_EQ(parseBothWays(bytes), 2) << name;
  }
}

TEST(SymbolizeElf, SurvivesTruncatedRealLibrary) {
  std::vector<uint8_t> bytes = readBytes(test::symtestLibrary("symtest_plain"));
  ASSERT_GT(bytes.size(), 4096u);
  int complete = 0;
  for (size_t length = 0; length <= bytes.size(); length += 97) {
    complete += parseBothWays(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(length)));
  }
  EXPECT_EQ(parseBothWays(bytes), 2);
  EXPECT_GT(complete, 0);
}

// Byte positions of every section header of a 64-bit object.
std::pair<size_t, size_t> sectionHeaderRange(const std::vector<uint8_t>& bytes) {
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  return {header.e_shoff, header.e_shoff + size_t{header.e_shnum} * header.e_shentsize};
}

TEST(SymbolizeElf, SurvivesCorruptedSectionHeaders) {
  std::vector<uint8_t> original = readBytes(test::symtestLibrary("symtest_plain"));
  auto [begin, end] = sectionHeaderRange(original);
  ASSERT_LE(end, original.size());
  std::mt19937 random(20261121);
  std::uniform_int_distribution<size_t> position(begin, end - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 1500; ++round) {
    std::vector<uint8_t> bytes = original;
    int flips = 1 + round % 8;
    for (int i = 0; i < flips; ++i) bytes[position(random)] = static_cast<uint8_t>(byte(random));
    parseBothWays(bytes);
  }
}

TEST(SymbolizeElf, SurvivesHostileHeaderFields) {
  std::vector<uint8_t> original = readBytes(seed("tiny64.so"));
  Elf64_Ehdr header;
  std::memcpy(&header, original.data(), sizeof header);
  auto withHeader = [&](auto mutate) {
    std::vector<uint8_t> bytes = original;
    Elf64_Ehdr changed = header;
    mutate(changed);
    std::memcpy(bytes.data(), &changed, sizeof changed);
    return bytes;
  };
  parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_shoff = UINT64_MAX - 8; }));
  parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_shnum = 0xffff; }));
  parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_shnum = 0; }));  // "count is in section 0"
  parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_phoff = UINT64_MAX - 8; }));
  parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_phnum = 0xffff; }));
  parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_shstrndx = 0xfff0; }));
  parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_ident[EI_DATA] = ELFDATA2MSB; }));
  parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_ident[EI_CLASS] = ELFCLASS32; }));

  // Every section's size, offset, link and entry size set to extremes, one at a time.
  for (size_t index = 0; index < header.e_shnum; ++index) {
    size_t at = header.e_shoff + index * sizeof(Elf64_Shdr);
    for (int field = 0; field < 4; ++field) {
      for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{0xffffffff}, UINT64_MAX, uint64_t{original.size()}}) {
        std::vector<uint8_t> bytes = original;
        Elf64_Shdr section;
        std::memcpy(&section, bytes.data() + at, sizeof section);
        if (field == 0) section.sh_size = value;
        if (field == 1) section.sh_offset = value;
        if (field == 2) section.sh_link = static_cast<uint32_t>(value);
        if (field == 3) section.sh_entsize = value;
        std::memcpy(bytes.data() + at, &section, sizeof section);
        parseBothWays(bytes);
      }
    }
  }
}

// The peak resident set since the last call: what a parse cost at its highest, even if it freed it all before
// it failed. Writing 5 to clear_refs resets the peak (Linux 4.0 and later).
size_t peakResidentBytesSinceLastCall() {
  size_t peak = 0;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) peak = std::stoul(line.substr(6)) * 1024;
  }
  std::ofstream("/proc/self/clear_refs") << "5";
  return peak;
}

// A 20-KB sparse file whose section-name table claims 900 MiB: reading its names must not cost that.
TEST(SymbolizeElf, ASparseFileCannotMakeTheParserReadAHugeNameTable) {
  std::vector<uint8_t> bytes = readBytes(seed("tiny64.so"));
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  ASSERT_LT(header.e_shstrndx, header.e_shnum);
  Elf64_Shdr names;
  const size_t at = header.e_shoff + size_t{header.e_shstrndx} * sizeof names;
  std::memcpy(&names, bytes.data() + at, sizeof names);
  constexpr uint64_t kClaimed = 900ull << 20;
  names.sh_offset = bytes.size();
  names.sh_size = kClaimed;
  std::memcpy(bytes.data() + at, &names, sizeof names);
  UniqueFd fd(memfd_create("sparse-elf", MFD_CLOEXEC));
  ASSERT_TRUE(fd);
  ASSERT_EQ(write(fd.get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ASSERT_EQ(ftruncate(fd.get(), static_cast<off_t>(bytes.size() + kClaimed)), 0);  // a hole: no memory

  const size_t before = peakResidentBytesSinceLastCall();
  try {
    ElfFile file = ElfFile::fromFd(std::move(fd));
    auto symbols = buildElfSymbols(file, nullptr);
    EXPECT_LT(peakResidentBytesSinceLastCall(), before + (64u << 20)) << "the parser read the claimed table";
  } catch (const Error&) {
    // refusing the file is as good
  }
}

// The same lie about the symbol table and its strings, at sizes under any fixed bound (400 MiB each): the
// tables are a hole, so they are not read, and the symbols of .dynsym remain.
TEST(SymbolizeElf, SymbolTablesThatAreAHoleAreNotRead) {
  std::vector<uint8_t> bytes = readBytes(seed("tiny64.so"));
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  constexpr uint64_t kClaimed = 400ull << 20;
  auto claim = [&](unsigned index) {
    Elf64_Shdr section;
    const size_t at = header.e_shoff + size_t{index} * sizeof section;
    std::memcpy(&section, bytes.data() + at, sizeof section);
    section.sh_size = kClaimed;
    std::memcpy(bytes.data() + at, &section, sizeof section);
  };
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    std::memcpy(&section, bytes.data() + header.e_shoff + size_t{i} * sizeof section, sizeof section);
    if (section.sh_type != SHT_SYMTAB) continue;
    claim(section.sh_link);
    claim(i);
  }
  UniqueFd fd(memfd_create("sparse-symtab", MFD_CLOEXEC));
  ASSERT_TRUE(fd);
  ASSERT_EQ(write(fd.get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ASSERT_EQ(ftruncate(fd.get(), static_cast<off_t>(bytes.size() + 2 * kClaimed)), 0);

  const size_t before = peakResidentBytesSinceLastCall();
  ElfFile file = ElfFile::fromFd(std::move(fd));
  auto symbols = buildElfSymbols(file, nullptr);
  EXPECT_LT(peakResidentBytesSinceLastCall(), before + (64u << 20)) << "the parser read the claimed tables";
  EXPECT_EQ(nameAt(*symbols, 0x400315), "exported") << ".dynsym is still read";
  EXPECT_EQ(nameAt(*symbols, 0x400322), "<none>") << "the local symbol is only in the .symtab that lies";
}

// A sparse file whose section 0 gives the extended section count, 50 million, with the file long enough for
// them: libelf would allocate a descriptor for each (3.2 GB) before we look (found by fuzz_elf_symbols).
TEST(SymbolizeElf, ASparseFileCannotClaimMillionsOfSections) {
  std::vector<uint8_t> bytes = readBytes(seed("tiny64.so"));
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  constexpr uint64_t kClaimed = 50'000'000;
  Elf64_Shdr first;
  std::memcpy(&first, bytes.data() + header.e_shoff, sizeof first);
  first.sh_size = kClaimed;
  std::memcpy(bytes.data() + header.e_shoff, &first, sizeof first);
  header.e_shnum = 0;
  std::memcpy(bytes.data(), &header, sizeof header);
  UniqueFd fd(memfd_create("sparse-sections", MFD_CLOEXEC));
  ASSERT_TRUE(fd);
  ASSERT_EQ(write(fd.get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ASSERT_EQ(ftruncate(fd.get(), static_cast<off_t>(header.e_shoff + kClaimed * sizeof first)), 0);

  const size_t before = peakResidentBytesSinceLastCall();
  EXPECT_THROW(ElfFile::fromFd(std::move(fd)), Error);
  EXPECT_LT(peakResidentBytesSinceLastCall(), before + (64u << 20));
}

// A caller with a budget passes what one object's tables may take: larger tables are skipped, not read.
TEST(SymbolizeElf, SymbolTablesLargerThanTheCallersShareAreSkipped) {
  UniqueFd fd(open(seed("tiny64.so").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd);
  ElfFile file = ElfFile::fromFd(std::move(fd));
  EXPECT_EQ(nameAt(*buildElfSymbols(file, nullptr, {}, 1 << 20), 0x400322), "helper");
  EXPECT_EQ(buildElfSymbols(file, nullptr, {}, 64)->symbols.size(), 0u);
}

TEST(SymbolizeElf, UnterminatedStringTableYieldsNoGarbageNames) {
  std::vector<uint8_t> bytes = readBytes(seed("tiny64.so"));
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  for (size_t index = 0; index < header.e_shnum; ++index) {
    Elf64_Shdr section;
    std::memcpy(&section, bytes.data() + header.e_shoff + index * sizeof section, sizeof section);
    if (section.sh_type == SHT_STRTAB && section.sh_size > 0) {
      std::memset(bytes.data() + section.sh_offset, 'A', section.sh_size);  // no NUL anywhere
    }
  }
  if (parseBothWays(bytes) > 0) {
    auto symbols = parseElfSymbols(bytes);
    for (uint32_t i = 0; i < symbols->symbols.size(); ++i) {
      EXPECT_LE(symbols->symbols.name(i).size(), 0x1000u);
    }
  }
}

TEST(SymbolizeElf, DebugLinkNamesAreNeverPaths) {
  std::vector<uint8_t> bytes = readBytes(seed("linked.so"));
  const char* original = "linked.debug";
  auto at = std::search(bytes.begin(), bytes.end(), original, original + std::strlen(original));
  ASSERT_NE(at, bytes.end());
  std::memcpy(&*at, "../x/shadow\0", 12);
  ElfFile file = ElfFile::fromMemory(bytes);
  EXPECT_FALSE(file.debugLink()) << "a debuglink with '/' would let an object steer file opens";
}

}  // namespace
}  // namespace jfrbpf::symbolize
