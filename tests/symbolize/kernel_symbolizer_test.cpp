#include "userspace/symbolize/kernel_symbolizer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <sstream>

#include "base/error.h"

namespace jfrbpf::symbolize {
namespace {

constexpr std::string_view kSample =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000100 t local_function\n"
    "ffffffff81000200 D some_data\n"
    "ffffffff81000300 W weak_function\n"
    "ffffffff81000400 T _etext\n"
    "not a symbol line\n"
    "zzzz T bad_address\n"
    "ffffffffc0001000 t module_function\t[nf_tables]\n"
    "ffffffffc0002000 T other_module_function\t[xfs]\n"
    "ffffffffc0003000 T later_function\t[nf_tables]";

TEST(SymbolizeKernel, NamesTextSymbolsWithTheirModule) {
  auto kernel = KernelSymbolizer::parse(kSample);
  EXPECT_EQ(kernel->symbolCount(), 7u);  // the alias at 0x81000000 collapses, data and bad lines are skipped

  NativeFrame frame = kernel->symbolize(0xffffffff81000010);
  EXPECT_EQ(frame.kind, FrameKind::kSymbol);
  EXPECT_EQ(frame.library, "kernel");
  EXPECT_EQ(frame.symbol, "startup_64");  // the readable alias wins over _stext
  EXPECT_EQ(frame.offset, 0x10u);

  frame = kernel->symbolize(0xffffffff81000250);  // data symbols do not end a function
  EXPECT_EQ(frame.symbol, "local_function");
  EXPECT_EQ(frame.offset, 0x150u);

  EXPECT_EQ(kernel->symbolize(0xffffffff81000300).symbol, "weak_function");

  frame = kernel->symbolize(0xffffffffc0001008);
  EXPECT_EQ(frame.library, "nf_tables");
  EXPECT_EQ(frame.symbol, "module_function");
  EXPECT_EQ(frame.offset, 8u);
  EXPECT_EQ(kernel->symbolize(0xffffffffc0002001).library, "xfs");
  EXPECT_EQ(kernel->symbolize(0xffffffffc0003001).library, "nf_tables");
}

TEST(SymbolizeKernel, AddressesOutsideKnownTextAreUnknown) {
  auto kernel = KernelSymbolizer::parse(kSample);
  for (uint64_t pc : {uint64_t{0x1000}, uint64_t{0xffffffff80ffffff}, uint64_t{0xffffffff81000500}}) {
    NativeFrame frame = kernel->symbolize(pc);
    EXPECT_EQ(frame.kind, FrameKind::kUnmapped) << std::hex << pc;
    EXPECT_EQ(frame.library, "kernel");
    EXPECT_EQ(frame.symbol, "[unknown]");
    EXPECT_EQ(frame.offset, pc);
  }
  // Far past the last symbol is not that symbol's code.
  EXPECT_EQ(kernel->symbolize(0xffffffffc0003000 + (64u << 20)).kind, FrameKind::kUnmapped);
}

TEST(SymbolizeKernel, HiddenAddressesAreAClearError) {
  constexpr std::string_view kRestricted =
      "0000000000000000 T _stext\n0000000000000000 t local_function\n0000000000000000 T f\t[xfs]\n";
  try {
    KernelSymbolizer::parse(kRestricted);
    FAIL() << "zeroed kallsyms must be refused";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("kptr_restrict"), std::string::npos) << error.what();
  }
  EXPECT_THROW(KernelSymbolizer::parse(""), Error);
  EXPECT_THROW(KernelSymbolizer::load("/nonexistent/kallsyms"), Error);
}

// Text symbols of the live kallsyms whose address no other text symbol shares, by name.
std::map<std::string, std::pair<uint64_t, std::string>> uniqueLiveSymbols() {
  std::ifstream kallsyms("/proc/kallsyms");
  std::map<uint64_t, int> uses;
  std::vector<std::tuple<uint64_t, std::string, std::string>> symbols;
  std::string line;
  while (std::getline(kallsyms, line)) {
    std::istringstream fields(line);
    std::string address, type, name, module;
    fields >> address >> type >> name >> module;
    if (type.size() != 1 || std::string("tTwW").find(type[0]) == std::string::npos) continue;
    uint64_t value = std::stoull(address, nullptr, 16);
    ++uses[value];
    if (module.size() > 2) module = module.substr(1, module.size() - 2);
    symbols.emplace_back(value, name, module);
  }
  std::map<std::string, std::pair<uint64_t, std::string>> unique;
  for (const auto& [address, name, module] : symbols) {
    if (address != 0 && uses[address] == 1) unique[name] = {address, module};
  }
  return unique;
}

TEST(SymbolizeKernel, LiveKallsymsResolveAKnownFunction) {
  std::shared_ptr<const KernelSymbolizer> kernel;
  try {
    kernel = KernelSymbolizer::shared();
  } catch (const Error& error) {
    GTEST_SKIP() << "kallsyms unusable here: " << error.what();
  }
  EXPECT_EQ(kernel, KernelSymbolizer::shared()) << "loaded once and shared";
  auto unique = uniqueLiveSymbols();
  const char* chosen = nullptr;
  for (const char* candidate : {"vfs_read", "ksys_read", "do_sys_openat2", "schedule"}) {
    if (unique.count(candidate) != 0 && unique[candidate].second.empty()) {
      chosen = candidate;
      break;
    }
  }
  ASSERT_NE(chosen, nullptr) << "none of the usual kernel functions has a unique address";
  NativeFrame frame = kernel->symbolize(unique[chosen].first + 4);
  EXPECT_EQ(frame.kind, FrameKind::kSymbol);
  EXPECT_EQ(frame.library, "kernel");
  EXPECT_EQ(frame.symbol, chosen);
  EXPECT_EQ(frame.offset, 4u);
  auto start = std::chrono::steady_clock::now();
  auto fresh = KernelSymbolizer::load();
  double loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // Not the same count: BPF programs that other tools load and unload meanwhile are kallsyms symbols too.
  EXPECT_EQ(fresh->symbolize(unique[chosen].first + 4).symbol, chosen);
  std::printf("kernel: %zu text symbols loaded in %.0f ms; %s+4 -> %.*s+%llu\n", kernel->symbolCount(), loadMs,
              chosen, static_cast<int>(frame.symbol.size()), frame.symbol.data(),
              static_cast<unsigned long long>(frame.offset));
}

TEST(SymbolizeKernel, LiveModuleSymbolsCarryTheModuleName) {
  std::shared_ptr<const KernelSymbolizer> kernel;
  try {
    kernel = KernelSymbolizer::shared();
  } catch (const Error& error) {
    GTEST_SKIP() << "kallsyms unusable here: " << error.what();
  }
  for (const auto& [name, where] : uniqueLiveSymbols()) {
    // BPF programs come and go while other tools run: their symbols may differ between two reads.
    if (where.second.empty() || where.second == "bpf") continue;
    NativeFrame frame = kernel->symbolize(where.first);
    EXPECT_EQ(frame.kind, FrameKind::kSymbol);
    EXPECT_EQ(frame.library, where.second);
    EXPECT_EQ(frame.symbol, name);
    std::printf("module symbol: %s [%s]\n", name.c_str(), where.second.c_str());
    return;
  }
  GTEST_SKIP() << "no module symbol in /proc/kallsyms (no modules loaded)";
}

TEST(SymbolizeKernel, SymbolsReadInTheBackgroundNameFramesOnceLoaded) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  KernelSymbols kernel([released] {
    released.wait();  // still loading while the checks below run
    return std::shared_ptr<const KernelSymbolizer>(KernelSymbolizer::parse(kSample));
  });
  EXPECT_EQ(kernel.failure(), "") << "no failure while they load";
  release.set_value();
  NativeFrame frame = kernel.symbolize(0xffffffff81000010);
  EXPECT_EQ(frame.kind, FrameKind::kSymbol);
  EXPECT_EQ(frame.symbol, "startup_64");
  EXPECT_EQ(kernel.failure(), "");
}

TEST(SymbolizeKernel, UnreadableSymbolsLeaveFramesUnnamedAndSayWhy) {
  KernelSymbols kernel([]() -> std::shared_ptr<const KernelSymbolizer> {
    return KernelSymbolizer::parse("0000000000000000 T _stext\n0000000000000000 t local_function\n");
  });
  NativeFrame frame = kernel.symbolize(0xffffffff81000010);
  EXPECT_EQ(frame.kind, FrameKind::kUnmapped);
  EXPECT_EQ(frame.library, kKernelLibrary);
  EXPECT_NE(kernel.failure().find("kptr_restrict"), std::string::npos) << kernel.failure();
}

}  // namespace
}  // namespace jfrbpf::symbolize
