// ProcessSymbolizer against real processes: the symtest helper and the libraries built beside it in several
// variants. Addresses come from the helper itself (it prints &function), expected names from the sources.
#include "userspace/symbolize/process_symbolizer.h"

#include <gtest/gtest.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/symbolize/test_helpers.h"
#include "userspace/proc/maps.h"
#include "userspace/proc/process_dir.h"
#include "userspace/symbolize/process_files.h"

namespace jfrbpf::symbolize {
namespace {

namespace fs = std::filesystem;
using jfrbpf::test::ChildOptions;
using jfrbpf::test::ChildProcess;
using test::parseAddress;
using test::readUntilReady;
using test::symtestLibrary;
using test::TempDir;

constexpr std::string_view kAlphaTemplate = "symtest_alpha::Accumulator<int>::add(int, int)";
constexpr std::string_view kHidden = "hidden_helper(int)";
constexpr std::string_view kCFunction = "symtest_c_entry";
constexpr uint64_t kInside = 2;  // pcs are taken a little inside each function, as return addresses are

ProcessSymbolizer::Options optionsWithDebugRoot(const fs::path& root) {
  ProcessSymbolizer::Options options;
  options.debugRoots = {root.string()};
  return options;
}

class SymbolizeProcess : public ::testing::Test {
 protected:
  void start(const char* program = SYMTEST_PROG) {
    child_ = std::make_unique<ChildProcess>(std::vector<std::string>{program}, ChildOptions{.writableStdin = true});
    std::string error;
    auto values = readUntilReady(*child_, error);
    ASSERT_TRUE(values) << error;
    values_ = *values;
    pid_ = std::stoi(values_["pid"]);
  }

  // Loads a library into the helper; returns its function addresses (lib.template, lib.c, lib.hidden).
  std::map<std::string, std::string> load(const std::string& path) {
    child_->writeLine("dlopen " + path);
    std::string error;
    auto values = readUntilReady(*child_, error);
    EXPECT_TRUE(values) << error;
    return values ? *values : std::map<std::string, std::string>{};
  }

  uint64_t address(const std::map<std::string, std::string>& values, const std::string& key) {
    auto found = values.find(key);
    EXPECT_NE(found, values.end()) << key;
    return found == values.end() ? 0 : parseAddress(found->second);
  }

  void expectSymbol(ProcessSymbolizer& symbolizer, uint64_t pc, std::string_view library, std::string_view symbol,
                    uint64_t offset = kInside) {
    NativeFrame frame = symbolizer.symbolize(pid_, pc);
    EXPECT_EQ(frame.kind, FrameKind::kSymbol) << symbol;
    EXPECT_EQ(frame.library, library);
    EXPECT_EQ(frame.symbol, symbol);
    EXPECT_EQ(frame.offset, offset) << symbol;
  }

  // Stripped code without a usable debug file: library plus "+0x<file offset>", the offset from maps.
  void expectNoSymbol(ProcessSymbolizer& symbolizer, uint64_t pc, std::string_view library) {
    test::MappingFacts mapping = test::mappingOf(pid_, pc);
    ASSERT_NE(mapping.start, 0u);
    uint64_t fileOffset = pc - mapping.start + mapping.fileOffset;
    char expected[32];
    std::snprintf(expected, sizeof expected, "+0x%llx", static_cast<unsigned long long>(fileOffset));
    NativeFrame frame = symbolizer.symbolize(pid_, pc);
    EXPECT_EQ(frame.kind, FrameKind::kNoSymbol);
    EXPECT_EQ(frame.library, library);
    EXPECT_EQ(frame.symbol, expected);
    EXPECT_EQ(frame.offset, fileOffset);
  }

  void expectFullyNamed(ProcessSymbolizer& symbolizer, const std::string& variant) {
    auto lib = load(symtestLibrary(variant));
    std::string library = "lib" + variant + ".so";
    expectSymbol(symbolizer, address(lib, "lib.template") + kInside, library, kAlphaTemplate);
    expectSymbol(symbolizer, address(lib, "lib.c") + kInside, library, kCFunction);
    expectSymbol(symbolizer, address(lib, "lib.hidden") + kInside, library, kHidden);
  }

  std::unique_ptr<ChildProcess> child_;
  std::map<std::string, std::string> values_;
  int pid_ = -1;
};

TEST_F(SymbolizeProcess, NamesFunctionsOfThePieExecutable) {
  start();
  ProcessSymbolizer symbolizer;
  expectSymbol(symbolizer, address(values_, "exe.template") + kInside, "symtest_prog",
               "symtest_prog::Counter<long>::tick(long)");
  expectSymbol(symbolizer, address(values_, "exe.c") + kInside, "symtest_prog", "symtest_prog_entry");
}

TEST_F(SymbolizeProcess, NamesFunctionsOfANonPieExecutableBuiltWithoutDebugInfo) {
  start(SYMTEST_PROG_NOPIE);
  ProcessSymbolizer symbolizer;
  expectSymbol(symbolizer, address(values_, "exe.template") + kInside, "symtest_prog_nopie",
               "symtest_prog::Counter<long>::tick(long)");
  expectSymbol(symbolizer, address(values_, "exe.c") + 1, "symtest_prog_nopie", "symtest_prog_entry", 1);
}

TEST_F(SymbolizeProcess, LibraryWithDebugInfo) {
  start();
  ProcessSymbolizer symbolizer;
  expectFullyNamed(symbolizer, "symtest_debug");
}

// Memory pressure (--memory-limit) drops every cache: the next lookups find the same names again.
TEST_F(SymbolizeProcess, NamesAreFoundAgainAfterTheCachesAreDropped) {
  start();
  ProcessSymbolizer symbolizer;
  expectFullyNamed(symbolizer, "symtest_debug");
  ASSERT_GT(symbolizer.stats().elfCacheBytes, 0u);
  symbolizer.dropCaches();
  EXPECT_EQ(symbolizer.stats().elfCacheBytes, 0u);
  EXPECT_EQ(symbolizer.stats().internedBytes, 0u);
  expectFullyNamed(symbolizer, "symtest_debug");
  expectSymbol(symbolizer, address(values_, "exe.c") + kInside, "symtest_prog", "symtest_prog_entry");
}

TEST_F(SymbolizeProcess, LibraryWithoutDebugInfo) {
  start();
  ProcessSymbolizer symbolizer;
  expectFullyNamed(symbolizer, "symtest_plain");
}

TEST_F(SymbolizeProcess, StrippedLibraryKeepsDynamicNamesAndShowsOffsetsForTheRest) {
  start();
  ProcessSymbolizer symbolizer;
  auto lib = load(symtestLibrary("symtest_stripped"));
  expectSymbol(symbolizer, address(lib, "lib.template") + kInside, "libsymtest_stripped.so", kAlphaTemplate);
  expectSymbol(symbolizer, address(lib, "lib.c") + kInside, "libsymtest_stripped.so", kCFunction);
  expectNoSymbol(symbolizer, address(lib, "lib.hidden") + kInside, "libsymtest_stripped.so");
}

TEST_F(SymbolizeProcess, StrippedLibraryUsesDebugLinkFileVerifiedByCrc) {
  start();
  ProcessSymbolizer symbolizer;
  expectFullyNamed(symbolizer, "symtest_linked");
  EXPECT_EQ(symbolizer.stats().objects.debugFilesUsed, 1u);
}

TEST_F(SymbolizeProcess, DebugLinkFileWithWrongCrcIsIgnored) {
  start();
  ProcessSymbolizer symbolizer;
  auto lib = load(symtestLibrary("symtest_badcrc"));
  expectSymbol(symbolizer, address(lib, "lib.template") + kInside, "libsymtest_badcrc.so", kAlphaTemplate);
  expectNoSymbol(symbolizer, address(lib, "lib.hidden") + kInside, "libsymtest_badcrc.so");
  EXPECT_EQ(symbolizer.stats().objects.debugFilesUsed, 0u);
}

TEST_F(SymbolizeProcess, DebugLinkFileUnderAConfiguredDebugRoot) {
  TempDir root;
  std::string library = symtestLibrary("symtest_rootlink");
  fs::path target = root.path() / fs::path(library).parent_path().relative_path() / "libsymtest_rootlink.so.debug";
  fs::create_directories(target.parent_path());
  fs::copy_file(std::string(SYMTEST_DIR) + "/rootlink-debug/libsymtest_rootlink.so.debug", target);
  start();
  {
    ProcessSymbolizer withoutRoot(optionsWithDebugRoot("/nonexistent"));
    auto lib = load(library);
    expectNoSymbol(withoutRoot, address(lib, "lib.hidden") + kInside, "libsymtest_rootlink.so");
    ProcessSymbolizer withRoot(optionsWithDebugRoot(root.path()));
    expectSymbol(withRoot, address(lib, "lib.hidden") + kInside, "libsymtest_rootlink.so", kHidden);
  }
}

// Installs `debugFile` as the build-id debug file of `object` under `root`.
void installBuildIdDebugFile(const fs::path& root, const std::string& object, const std::string& debugFile) {
  std::string hex = test::readelfBuildId(object);
  ASSERT_EQ(hex.size(), 40u) << "no sha1 build-id in " << object;
  fs::path target = root / ".build-id" / hex.substr(0, 2) / (hex.substr(2) + ".debug");
  fs::create_directories(target.parent_path());
  fs::copy_file(debugFile, target);
}

TEST_F(SymbolizeProcess, StrippedLibraryUsesBuildIdDebugFile) {
  TempDir root;
  std::string library = symtestLibrary("symtest_buildid");
  installBuildIdDebugFile(root.path(), library, std::string(SYMTEST_DIR) + "/buildid-debug/libsymtest_buildid.debug");
  start();
  ProcessSymbolizer symbolizer(optionsWithDebugRoot(root.path()));
  expectFullyNamed(symbolizer, "symtest_buildid");
  EXPECT_EQ(symbolizer.stats().objects.debugFilesUsed, 1u);
}

TEST_F(SymbolizeProcess, BuildIdDebugFileOfAnotherObjectIsIgnored) {
  TempDir root;
  std::string library = symtestLibrary("symtest_buildid");
  installBuildIdDebugFile(root.path(), library, std::string(SYMTEST_DIR) + "/beta-debug/libsymtest_beta.debug");
  start();
  ProcessSymbolizer symbolizer(optionsWithDebugRoot(root.path()));
  auto lib = load(library);
  expectSymbol(symbolizer, address(lib, "lib.template") + kInside, "libsymtest_buildid.so", kAlphaTemplate);
  expectNoSymbol(symbolizer, address(lib, "lib.hidden") + kInside, "libsymtest_buildid.so");
}

TEST_F(SymbolizeProcess, LibraryLoadedAfterFirstLookupIsFoundByRereadingMaps) {
  start();
  ProcessSymbolizer::Options options;
  options.mapsRefreshInterval = std::chrono::milliseconds(0);
  ProcessSymbolizer symbolizer(options);
  expectSymbol(symbolizer, address(values_, "exe.c") + kInside, "symtest_prog", "symtest_prog_entry");
  uint64_t readsBefore = symbolizer.stats().mapsReads;
  expectFullyNamed(symbolizer, "symtest_debug");
  EXPECT_EQ(symbolizer.stats().mapsReads, readsBefore + 1) << "one re-read, triggered by the first unknown pc";
}

TEST_F(SymbolizeProcess, RereadingIsRateLimitedAndRefreshForcesIt) {
  start();
  ProcessSymbolizer::Options options;
  options.mapsRefreshInterval = std::chrono::hours(1);
  ProcessSymbolizer symbolizer(options);
  expectSymbol(symbolizer, address(values_, "exe.c") + kInside, "symtest_prog", "symtest_prog_entry");
  auto lib = load(symtestLibrary("symtest_plain"));
  uint64_t pc = address(lib, "lib.c") + kInside;
  EXPECT_EQ(symbolizer.symbolize(pid_, pc).kind, FrameKind::kUnmapped) << "within the interval: no re-read";
  EXPECT_EQ(symbolizer.stats().mapsReads, 1u);
  symbolizer.refresh(pid_);
  expectSymbol(symbolizer, pc, "libsymtest_plain.so", kCFunction);
  // Objects behind unchanged mappings survive a refresh.
  EXPECT_EQ(symbolizer.stats().objects.objectsParsed, 2u);
  expectSymbol(symbolizer, address(values_, "exe.c") + kInside, "symtest_prog", "symtest_prog_entry");
  EXPECT_EQ(symbolizer.stats().objects.objectsParsed, 2u);
}

TEST_F(SymbolizeProcess, AnonymousAndMemfdCodeIsLeftToTheJavaResolver) {
  start();
  ProcessSymbolizer symbolizer;
  NativeFrame anon = symbolizer.symbolize(pid_, address(values_, "exe.anon") + 0x10);
  EXPECT_EQ(anon.kind, FrameKind::kAnonymous);
  EXPECT_TRUE(anon.anonymousExecutable());
  EXPECT_EQ(anon.library, "[anon]");
  EXPECT_EQ(anon.offset, 0x10u);
  NativeFrame memfd = symbolizer.symbolize(pid_, address(values_, "exe.memfd") + 0x20);
  EXPECT_EQ(memfd.kind, FrameKind::kAnonymous);
  EXPECT_EQ(memfd.library, "memfd:symtest-jit");
  EXPECT_EQ(memfd.offset, 0x20u);
}

TEST_F(SymbolizeProcess, UnmappedPcsAreUnknown) {
  start();
  ProcessSymbolizer symbolizer;
  NativeFrame frame = symbolizer.symbolize(pid_, 0x10);
  EXPECT_EQ(frame.kind, FrameKind::kUnmapped);
  EXPECT_EQ(frame.symbol, "[unknown]");
  EXPECT_EQ(frame.offset, 0x10u);
}

TEST_F(SymbolizeProcess, VdsoFunctionsAreNamed) {
  start();
  std::optional<std::vector<uint8_t>> image = ownVdsoImage();
  if (!image) GTEST_SKIP() << "no vDSO in this process";
  TempDir dir;
  std::string copy = (dir.path() / "vdso.so").string();
  std::ofstream(copy, std::ios::binary).write(reinterpret_cast<const char*>(image->data()),
                                               static_cast<std::streamsize>(image->size()));
  uint64_t value = test::readelfSymbolValue(copy, "__vdso_clock_gettime");
  ASSERT_NE(value, 0u);
  // The vDSO is linked at 0 and mapped from its start, so a symbol's value is its offset in the mapping.
  uint64_t vdsoStart = 0;
  for (const proc::Mapping& mapping : proc::readMaps(pid_)) {
    if (mapping.kind == proc::MappingKind::kVdso) vdsoStart = mapping.start;
  }
  ASSERT_NE(vdsoStart, 0u);
  ProcessSymbolizer symbolizer;
  NativeFrame frame = symbolizer.symbolize(pid_, vdsoStart + value + 3);
  EXPECT_EQ(frame.kind, FrameKind::kSymbol);
  EXPECT_EQ(frame.library, "[vdso]");
  EXPECT_TRUE(frame.symbol.ends_with("clock_gettime")) << frame.symbol;
  EXPECT_EQ(frame.offset, 3u);
}

TEST_F(SymbolizeProcess, DeletedLibraryInPathWithSpacesIsReadThroughMapFiles) {
  if (geteuid() != 0) GTEST_SKIP() << "/proc/PID/map_files needs root (CAP_SYS_ADMIN)";
  TempDir dir;
  fs::path folder = dir.path() / "dir with spaces";
  fs::create_directories(folder);
  fs::path copy = folder / "libsymtest copy.so";
  fs::copy_file(symtestLibrary("symtest_debug"), copy);
  start();
  auto lib = load(copy.string());
  fs::remove(copy);  // the process keeps it mapped; only map_files can still reach it
  ProcessSymbolizer symbolizer;
  expectSymbol(symbolizer, address(lib, "lib.template") + kInside, "libsymtest copy.so", kAlphaTemplate);
  expectSymbol(symbolizer, address(lib, "lib.hidden") + kInside, "libsymtest copy.so", kHidden);
}

TEST_F(SymbolizeProcess, MappedFileFallsBackToTheProcessRootWhenInodeMatches) {
  start();
  auto lib = load(symtestLibrary("symtest_plain"));
  proc::Mapping mapping;
  for (const proc::Mapping& candidate : proc::readMaps(pid_)) {
    if (candidate.executable && candidate.contains(address(lib, "lib.c"))) mapping = candidate;
  }
  ASSERT_EQ(proc::baseName(mapping.path), "libsymtest_plain.so");
  UniqueFd root = proc::openProcessRoot(pid_);
  ASSERT_TRUE(root);
  proc::Mapping notMapped = mapping;  // no such map_files entry: forces the path route
  notMapped.start += 0x1000;
  UniqueFd viaRoot = openMappedFile(pid_, notMapped, root.get());
  ASSERT_TRUE(viaRoot);
  struct stat st;
  ASSERT_EQ(fstat(viaRoot.get(), &st), 0);
  EXPECT_EQ(st.st_ino, mapping.inode);

  proc::Mapping replaced = notMapped;  // the path now names another file than the one mapped
  replaced.inode += 1;
  EXPECT_FALSE(openMappedFile(pid_, replaced, root.get()));
  EXPECT_FALSE(openMappedFile(pid_, notMapped, -1));
}

TEST_F(SymbolizeProcess, ExitedProcessIsReportedGone) {
  start();
  child_->writeLine("quit");
  ASSERT_TRUE(child_->wait(std::chrono::seconds(30)).has_value());
  ProcessSymbolizer symbolizer;
  NativeFrame frame = symbolizer.symbolize(pid_, address(values_, "exe.c"));
  EXPECT_EQ(frame.kind, FrameKind::kProcessGone);
  symbolizer.forgetProcess(pid_);
  EXPECT_EQ(symbolizer.symbolize(pid_, address(values_, "exe.c")).kind, FrameKind::kProcessGone);
}

// Not a timing assertion: measures and prints the cost of uncached and cached lookups over the code of
// this very process (its libc and the test binary), and checks the cache returns the same answers.
TEST(SymbolizeProcessPerformance, MeasuresUncachedAndCachedLookups) {
  std::vector<uint64_t> pcs;
  for (const proc::Mapping& mapping : proc::readMaps(getpid())) {
    if (!mapping.executable || mapping.kind != proc::MappingKind::kFile) continue;
    for (uint64_t pc = mapping.start; pc < mapping.end && pcs.size() < 20000; pc += 61) pcs.push_back(pc);
  }
  ASSERT_GT(pcs.size(), 10000u);
  ProcessSymbolizer symbolizer;
  int pid = getpid();

  auto start = std::chrono::steady_clock::now();
  for (const proc::Mapping& mapping : proc::readMaps(pid)) {
    if (mapping.executable) symbolizer.symbolize(pid, mapping.start);  // parse every object once
  }
  auto loaded = std::chrono::steady_clock::now();
  std::vector<NativeFrame> first;
  first.reserve(pcs.size());
  for (uint64_t pc : pcs) first.push_back(symbolizer.symbolize(pid, pc));
  auto uncached = std::chrono::steady_clock::now();
  constexpr int kRounds = 20;
  size_t same = 0;
  for (int round = 0; round < kRounds; ++round) {
    for (size_t i = 0; i < pcs.size(); ++i) {
      NativeFrame frame = symbolizer.symbolize(pid, pcs[i]);
      same += frame.symbol.data() == first[i].symbol.data() && frame.offset == first[i].offset;
    }
  }
  auto cached = std::chrono::steady_clock::now();
  EXPECT_EQ(same, pcs.size() * kRounds);

  size_t named = 0;
  for (const NativeFrame& frame : first) named += frame.kind == FrameKind::kSymbol;
  EXPECT_GT(named, pcs.size() / 2);
  auto ns = [](auto duration) { return std::chrono::duration<double, std::nano>(duration).count(); };
  ProcessSymbolizer::Stats stats = symbolizer.stats();
  std::printf("symbolize perf: %zu objects parsed in %.1f ms; uncached %.0f ns/pc; cached %.1f ns/pc "
              "(%zu pcs, %zu named); elf cache %zu KB, interned %zu KB\n",
              static_cast<size_t>(stats.objects.objectsParsed), ns(loaded - start) / 1e6,
              ns(uncached - loaded) / static_cast<double>(pcs.size()),
              ns(cached - uncached) / static_cast<double>(pcs.size() * kRounds), pcs.size(), named,
              stats.elfCacheBytes / 1024, stats.internedBytes / 1024);
}

}  // namespace
}  // namespace jfrbpf::symbolize
