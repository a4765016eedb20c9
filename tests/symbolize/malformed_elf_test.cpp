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
#include <ostream>
#include <random>
#include <set>
#include <string>
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

// What a parse made of an object: refused (a jfrbpf::Error), or the function symbols ("name@address"), build id
// and load segments it found.
struct Parsed {
  bool refused = false;
  std::set<std::string> symbols;
  std::string buildId;
  size_t segments = 0;
  bool operator==(const Parsed&) const = default;
};

void PrintTo(const Parsed& parsed, std::ostream* out) {
  if (parsed.refused) {
    *out << "refused";
    return;
  }
  *out << parsed.symbols.size() << " symbols, build id " << hexBuildId(parsed.buildId) << ", " << parsed.segments
       << " segments";
}

Parsed parsedOf(const ElfSymbols& symbols) {
  Parsed parsed;
  for (uint32_t i = 0; i < symbols.symbols.size(); ++i) {
    // Looked up as the symbolizer would, for the sanitizers: a range computed wrong from lying sizes shows there.
    symbols.symbols.lookup(symbols.symbols.address(i));
    parsed.symbols.insert(std::string(symbols.symbols.name(i)) + "@" + std::to_string(symbols.symbols.address(i)));
  }
  parsed.buildId = symbols.buildId;
  parsed.segments = symbols.segments.size();
  return parsed;
}

// Parses `bytes` from memory (parseElfSymbols, what the fuzzer drives) and from a file (ElfFile::fromFd, what the
// symbolizer does): both ways must come to the same result, which is returned.
Parsed parseBothWays(const std::vector<uint8_t>& bytes) {
  Parsed fromMemory;
  try {
    fromMemory = parsedOf(*parseElfSymbols(bytes));
  } catch (const Error&) {
    fromMemory.refused = true;
  }
  Parsed fromFile;
  UniqueFd fd(memfd_create("malformed-elf", MFD_CLOEXEC));
  if (!fd || write(fd.get(), bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    ADD_FAILURE() << "memfd unavailable";
    return fromMemory;
  }
  try {
    ElfFile file = ElfFile::fromFd(std::move(fd));
    fromFile = parsedOf(*buildElfSymbols(file, nullptr));
  } catch (const Error&) {
    fromFile.refused = true;
  }
  EXPECT_EQ(fromMemory, fromFile) << "parsed from memory and from a file";
  return fromMemory;
}

// What a prefix of `whole` may give: refused, or less of the same object. Its tables are refused where they run
// past the end, so a prefix never yields a symbol or a build id the whole object does not have.
void expectPartOf(const Parsed& prefix, const Parsed& whole, size_t length) {
  if (prefix.refused) return;
  for (const std::string& symbol : prefix.symbols) {
    EXPECT_TRUE(whole.symbols.contains(symbol)) << symbol << " at " << length;
  }
  if (!prefix.buildId.empty()) EXPECT_EQ(prefix.buildId, whole.buildId) << "at " << length;
  EXPECT_LE(prefix.segments, whole.segments) << "at " << length;
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
    SCOPED_TRACE(name);
    std::vector<uint8_t> bytes = readBytes(seed(name));
    ASSERT_FALSE(bytes.empty());
    const Parsed whole = parseBothWays(bytes);
    ASSERT_FALSE(whole.refused);
    EXPECT_FALSE(whole.symbols.empty());
    const size_t headerSize = bytes[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
    for (size_t length = 0; length < bytes.size(); length += (length < 256 ? 1 : 7)) {
      Parsed prefix = parseBothWays(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(length)));
      if (length < headerSize) EXPECT_TRUE(prefix.refused) << "no whole ELF header in " << length << " bytes";
      expectPartOf(prefix, whole, length);
    }
  }
}

TEST(SymbolizeElf, SurvivesTruncatedRealLibrary) {
  std::vector<uint8_t> bytes = readBytes(test::symtestLibrary("symtest_plain"));
  ASSERT_GT(bytes.size(), 4096u);
  const Parsed whole = parseBothWays(bytes);
  ASSERT_FALSE(whole.refused);
  int complete = 0;
  for (size_t length = 0; length <= bytes.size(); length += 97) {
    Parsed prefix = parseBothWays(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(length)));
    expectPartOf(prefix, whole, length);
    if (!prefix.refused) ++complete;
  }
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
  const Parsed intact = parseBothWays(original);
  ASSERT_FALSE(intact.refused);
  std::mt19937 random(20261121);
  std::uniform_int_distribution<size_t> position(begin, end - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 1500; ++round) {
    std::vector<uint8_t> bytes = original;
    int flips = 1 + round % 8;
    for (int i = 0; i < flips; ++i) bytes[position(random)] = static_cast<uint8_t>(byte(random));
    // A section the parser cannot use is skipped, never fatal (the counts it bounds are in the ELF header), and
    // the program headers are untouched: the segments stay, and the build id, which their note holds too.
    Parsed parsed = parseBothWays(bytes);
    ASSERT_FALSE(parsed.refused) << "round " << round;
    EXPECT_EQ(parsed.segments, intact.segments) << "round " << round;
    EXPECT_EQ(parsed.buildId, intact.buildId) << "round " << round;
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
  const Parsed intact = parseBothWays(original);
  ASSERT_FALSE(intact.refused);
  ASSERT_FALSE(intact.symbols.empty());
  ASSERT_FALSE(intact.buildId.empty());
  ASSERT_GT(intact.segments, 0u);
  const Parsed refused{.refused = true};
  // Without section headers there are no symbol tables; the program headers still give the segments and the
  // build id (their note), as they do for an object stripped of its sections.
  const Parsed sectionless{.buildId = intact.buildId, .segments = intact.segments};
  // Without program headers there are no segments; the sections still give the symbols and the build id.
  const Parsed segmentless{.symbols = intact.symbols, .buildId = intact.buildId};

  EXPECT_EQ(parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_shoff = UINT64_MAX - 8; })), sectionless)
      << "section headers past the end";
  EXPECT_EQ(parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_shnum = 0xffff; })), sectionless)
      << "more section headers than the file holds (under the 65536 refused outright)";
  EXPECT_EQ(parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_shnum = 0; })), sectionless)
      << "the count is in section 0, whose size says 0";
  EXPECT_EQ(parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_phoff = UINT64_MAX - 8; })), refused)
      << "program headers that cannot be read: no count of them";
  EXPECT_EQ(parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_phnum = 0xffff; })), segmentless)
      << "PN_XNUM: the count is section 0's sh_info, 0";
  EXPECT_EQ(parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_shstrndx = 0xfff0; })), intact)
      << "no section names: only the debug link needs them";
  EXPECT_EQ(parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_ident[EI_DATA] = ELFDATA2MSB; })), refused)
      << "read big-endian, the program headers are at 0x4000000000000000";
  EXPECT_EQ(parseBothWays(withHeader([](Elf64_Ehdr& h) { h.e_ident[EI_CLASS] = ELFCLASS32; })), Parsed{})
      << "read as 32-bit: no program headers (e_phnum reads as 0), and 24-byte symbols are not 32-bit ones";

  // Every section's size, offset, link and entry size set to extremes, one at a time. Only the two symbol tables
  // and their string tables hold symbols.
  auto sectionAt = [&](size_t index) { return header.e_shoff + index * sizeof(Elf64_Shdr); };
  auto section = [&](const std::vector<uint8_t>& bytes, size_t index) {
    Elf64_Shdr found;
    std::memcpy(&found, bytes.data() + sectionAt(index), sizeof found);
    return found;
  };
  size_t symtab = 0, dynsym = 0;
  for (size_t index = 0; index < header.e_shnum; ++index) {
    if (section(original, index).sh_type == SHT_SYMTAB) symtab = index;
    if (section(original, index).sh_type == SHT_DYNSYM) dynsym = index;
  }
  ASSERT_NE(symtab, 0u);
  ASSERT_NE(dynsym, 0u);
  const size_t strtab = section(original, symtab).sh_link, dynstr = section(original, dynsym).sh_link;
  std::vector<uint8_t> withoutSymtab = original;
  Elf64_Shdr hidden = section(original, symtab);
  hidden.sh_type = SHT_PROGBITS;
  std::memcpy(withoutSymtab.data() + sectionAt(symtab), &hidden, sizeof hidden);
  const Parsed dynsymOnly = parseBothWays(withoutSymtab);
  ASSERT_FALSE(dynsymOnly.refused);
  ASSERT_LT(dynsymOnly.symbols.size(), intact.symbols.size()) << "tiny64.so has local functions only in .symtab";
  std::set<std::string> addresses;
  for (const std::string& symbol : intact.symbols) addresses.insert(symbol.substr(symbol.rfind('@')));

  for (size_t index = 0; index < header.e_shnum; ++index) {
    const bool table = index == symtab || index == dynsym;
    const bool strings = index == strtab || index == dynstr;
    for (int field = 0; field < 4; ++field) {
      for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{0xffffffff}, UINT64_MAX, uint64_t{original.size()}}) {
        SCOPED_TRACE("section " + std::to_string(index) + ", field " + std::to_string(field) + " = " +
                     std::to_string(value));
        std::vector<uint8_t> bytes = original;
        Elf64_Shdr changed = section(bytes, index);
        if (field == 0) changed.sh_size = value;
        if (field == 1) changed.sh_offset = value;
        if (field == 2) changed.sh_link = static_cast<uint32_t>(value);
        if (field == 3) changed.sh_entsize = value;
        std::memcpy(bytes.data() + sectionAt(index), &changed, sizeof changed);
        Parsed parsed = parseBothWays(bytes);
        if ((!table && !strings) || (strings && field >= 2)) {
          // Nothing that holds symbols changed (a string table has no link or entry size to use); a note section
          // that is lost leaves the build id to the program headers' note.
          EXPECT_EQ(parsed, intact);
        } else if (field == 1 && value <= 1) {
          // Moved onto the ELF header, a table is read from its bytes, which nothing can tell from real entries
          // or names; a string table moved leaves the entries, so the symbols stay at the object's addresses.
          ASSERT_FALSE(parsed.refused);
          EXPECT_EQ(parsed.buildId, intact.buildId);
          EXPECT_EQ(parsed.segments, intact.segments);
          if (!strings) continue;
          for (const std::string& symbol : parsed.symbols) {
            EXPECT_TRUE(addresses.contains(symbol.substr(symbol.rfind('@')))) << symbol;
          }
        } else {
          // Out of the file, not a whole entry, a link to no string table, not the size of a symbol: the table is
          // skipped. .symtab's loss costs the local functions only it holds; .dynsym's costs nothing, as .symtab
          // has its functions too.
          EXPECT_EQ(parsed, index == symtab || index == strtab ? dynsymOnly : intact);
        }
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
  // libelf's elf_strptr refuses a string that does not end inside its table, and a symbol without a name is
  // skipped: no symbols at all, while the rest of the object is still read.
  const Parsed intact = parseBothWays(readBytes(seed("tiny64.so")));
  EXPECT_EQ(parseBothWays(bytes), (Parsed{.buildId = intact.buildId, .segments = intact.segments}));
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
