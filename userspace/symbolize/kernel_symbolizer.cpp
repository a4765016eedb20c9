#include "userspace/symbolize/kernel_symbolizer.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <charconv>
#include <cstring>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "base/error.h"
#include "base/unique_fd.h"

namespace jfrbpf::symbolize {
namespace {

// No kernel function is this large; a pc further past the nearest symbol lies in a region kallsyms
// does not describe (for example the gap between vmlinux and the module area).
constexpr uint64_t kMaxFunctionSize = 1 << 20;
constexpr size_t kMaxNameLength = 1024;

bool isTextType(char type) { return type == 't' || type == 'T' || type == 'w' || type == 'W'; }

bool isEndMarker(std::string_view name) { return name == "_etext" || name == "_einittext"; }

size_t leadingUnderscores(std::string_view name) {
  size_t count = 0;
  while (count < name.size() && name[count] == '_') ++count;
  return count;
}

bool isBlank(char c) { return c == ' ' || c == '\t'; }

// A plain loop: find_first_of(" \t") calls memchr once per character, a fifth of the parse's time.
std::string_view nextField(std::string_view& line) {
  size_t begin = 0;
  while (begin < line.size() && isBlank(line[begin])) ++begin;
  size_t end = begin;
  while (end < line.size() && !isBlank(line[end])) ++end;
  std::string_view field = line.substr(begin, end - begin);
  line.remove_prefix(end);
  return field;
}

constexpr size_t kFirstBuffer = 8 << 20;  // /proc/kallsyms: 5-10 MB, and it has no size to ask

// A file's bytes, read straight into one buffer that grows by doubling; its pages are touched only as
// they are read into. /proc/kallsyms is read as a recording starts, beside the work its first samples
// wait for.
struct FileBytes {
  std::unique_ptr<char[]> data;
  size_t size = 0;
  std::string_view view() const { return {data.get(), size}; }
};

FileBytes readWholeFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw systemError("cannot open " + path + " to name kernel frames");
  FileBytes bytes;
  size_t capacity = 0;
  for (;;) {
    if (bytes.size == capacity) {
      capacity = std::max(2 * capacity, kFirstBuffer);
      auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
      if (bytes.size > 0) std::memcpy(bigger.get(), bytes.data.get(), bytes.size);
      bytes.data = std::move(bigger);
    }
    ssize_t got = ::read(fd.get(), bytes.data.get() + bytes.size, capacity - bytes.size);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw systemError("cannot read " + path);
    }
    if (got == 0) break;
    bytes.size += static_cast<size_t>(got);
  }
  return bytes;
}

}  // namespace

std::unique_ptr<KernelSymbolizer> KernelSymbolizer::parse(std::string_view kallsymsText) {
  std::unique_ptr<KernelSymbolizer> result(new KernelSymbolizer());
  std::unordered_map<std::string_view, uint16_t> moduleIndex;
  // A line of /proc/kallsyms is about 44 bytes, 55 % of them its name (measured on 6.18): room for them all at
  // once, rather than copied as they outgrow it.
  result->names_.reserve(kallsymsText.size() * 3 / 5);
  result->entries_.reserve(kallsymsText.size() / 40);
  result->names_.append(kKernelLibrary);
  result->modules_.push_back({0, static_cast<uint16_t>(kKernelLibrary.size())});
  size_t textSymbols = 0;

  while (!kallsymsText.empty()) {
    size_t newline = kallsymsText.find('\n');
    std::string_view line = kallsymsText.substr(0, newline);
    kallsymsText = newline == std::string_view::npos ? std::string_view{} : kallsymsText.substr(newline + 1);

    std::string_view addressText = nextField(line);
    std::string_view type = nextField(line);
    std::string_view name = nextField(line);
    std::string_view module = nextField(line);
    if (type.size() != 1 || !isTextType(type[0]) || name.empty() || name.size() > kMaxNameLength) continue;
    uint64_t address = 0;
    auto [end, error] = std::from_chars(addressText.data(), addressText.data() + addressText.size(), address, 16);
    if (error != std::errc() || end != addressText.data() + addressText.size()) continue;
    ++textSymbols;
    if (address == 0) continue;

    uint16_t moduleId = 0;
    if (module.size() > 2 && module.front() == '[' && module.back() == ']') {
      std::string_view moduleName = module.substr(1, module.size() - 2);
      if (moduleName.size() > kMaxNameLength) continue;
      auto known = moduleIndex.find(moduleName);
      if (known != moduleIndex.end()) {
        moduleId = known->second;
      } else {
        if (result->modules_.size() == UINT16_MAX) continue;  // more modules than any kernel loads
        moduleId = static_cast<uint16_t>(result->modules_.size());
        moduleIndex.emplace(moduleName, moduleId);
        result->modules_.push_back({static_cast<uint32_t>(result->names_.size()),
                                    static_cast<uint16_t>(moduleName.size())});
        result->names_.append(moduleName);
      }
    }
    if (result->names_.size() + name.size() > UINT32_MAX) break;
    result->entries_.push_back({address, static_cast<uint32_t>(result->names_.size()),
                                static_cast<uint16_t>(name.size()), moduleId, isEndMarker(name),
                                std::islower(static_cast<unsigned char>(type[0])) != 0});
    result->names_.append(name);
  }

  if (result->entries_.empty()) {
    if (textSymbols > 0) {
      throw Error("kernel symbol addresses are hidden (/proc/kallsyms shows zeros): run as root with CAP_SYSLOG "
                  "and set sysctl kernel.kptr_restrict=0 or 1 to name kernel frames");
    }
    throw Error("no kernel text symbols in kallsyms: kernel frames cannot be named");
  }

  // Several names share an address (aliases): keep the most readable one, a global without leading
  // underscores, so "srso_alias_untrain_ret" wins over "_stext" and "__pi__text".
  const KernelSymbolizer& self = *result;
  auto rank = [&self](const Entry& entry) {
    std::string_view name = self.text(entry.nameOffset, entry.nameLength);
    return std::tuple(entry.endMarker, entry.local, leadingUnderscores(name), name.size(), name);
  };
  std::sort(result->entries_.begin(), result->entries_.end(), [&rank](const Entry& a, const Entry& b) {
    if (a.address != b.address) return a.address < b.address;
    return rank(a) < rank(b);
  });
  auto last = std::unique(result->entries_.begin(), result->entries_.end(),
                          [](const Entry& a, const Entry& b) { return a.address == b.address; });
  result->entries_.erase(last, result->entries_.end());
  result->entries_.shrink_to_fit();
  return result;
}

std::unique_ptr<KernelSymbolizer> KernelSymbolizer::load(const std::string& path) {
  return parse(readWholeFile(path).view());
}

std::shared_ptr<const KernelSymbolizer> KernelSymbolizer::shared() {
  static std::mutex mutex;
  static std::shared_ptr<const KernelSymbolizer> instance;
  std::lock_guard lock(mutex);
  if (!instance) instance = load();
  return instance;
}

NativeFrame KernelSymbolizer::symbolize(uint64_t pc) const {
  auto next = std::upper_bound(entries_.begin(), entries_.end(), pc,
                               [](uint64_t value, const Entry& entry) { return value < entry.address; });
  if (next != entries_.begin()) {
    const Entry& entry = *(next - 1);
    uint64_t offset = pc - entry.address;
    if (!entry.endMarker && offset < kMaxFunctionSize) {
      const ModuleName& module = modules_[entry.module];
      return {text(module.offset, module.length), text(entry.nameOffset, entry.nameLength), offset,
              FrameKind::kSymbol};
    }
  }
  return {kKernelLibrary, kUnknownName, pc, FrameKind::kUnmapped};
}

namespace {
// Behind the start-up work the first samples wait for (the BPF programs, the agent, the unwind tables).
constexpr int kLoadNice = 10;
}  // namespace

KernelSymbols::KernelSymbols() : KernelSymbols([] { return KernelSymbolizer::shared(); }) {}

KernelSymbols::KernelSymbols(std::function<std::shared_ptr<const KernelSymbolizer>()> load)
    : loaded_(std::async(std::launch::async, [load = std::move(load), loader = loader_] {
                setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kLoadNice);
                loader->store(gettid());  // after: a raise from symbolize() must not be undone
                Loaded loaded;
                try {
                  loaded.symbols = load();
                } catch (const Error& e) {
                  loaded.failure = e.what();
                }
                loader->store(0);
                return loaded;
              }).share()) {}

KernelSymbols::KernelSymbols(std::shared_ptr<const KernelSymbolizer> ready) {
  std::promise<Loaded> now;
  now.set_value(Loaded{std::move(ready), {}});
  loaded_ = now.get_future().share();
}

NativeFrame KernelSymbols::symbolize(uint64_t pc) const {
  if (loaded_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    // Waited for now: the loader runs at the waiter's priority from here on.
    if (pid_t loader = loader_->load(); loader != 0) setpriority(PRIO_PROCESS, static_cast<id_t>(loader), 0);
  }
  const Loaded& loaded = loaded_.get();
  if (!loaded.symbols) return {kKernelLibrary, kUnknownName, pc, FrameKind::kUnmapped};
  return loaded.symbols->symbolize(pc);
}

std::string KernelSymbols::failure() const {
  if (loaded_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return {};
  return loaded_.get().failure;
}

}  // namespace jfrbpf::symbolize
