#include "userspace/symbolize/symbol_table.h"

#include <algorithm>
#include <tuple>

namespace jfrbpf::symbolize {
namespace {

// Nested or overlapping symbols are rare; looking this far back finds the enclosing one when they occur.
constexpr size_t kEnclosingSearchDepth = 8;
constexpr size_t kMaxNamesBytes = UINT32_MAX - 1;

size_t leadingUnderscores(std::string_view name) {
  size_t count = 0;
  while (count < name.size() && name[count] == '_') ++count;
  return count;
}

}  // namespace

void SymbolTable::add(uint64_t address, uint64_t size, uint64_t sectionEnd, std::string_view name, bool indirect,
                      Binding binding) {
  if (name.empty() || name.size() > UINT32_MAX || names_.size() + name.size() + 1 > kMaxNamesBytes) return;
  if (size != 0 && address + size < address) return;  // wraps around: not a real extent
  pending_.push_back({address, size, sectionEnd, static_cast<uint32_t>(names_.size()),
                      static_cast<uint32_t>(name.size()), indirect, binding});
  names_.append(name);
  names_.push_back('\0');
}

void SymbolTable::finalize() {
  auto nameOf = [this](const Pending& p) { return std::string_view(names_.data() + p.nameOffset, p.nameLength); };
  // At one address prefer a sized symbol, a real function over an ifunc resolver, a global over a local,
  // then the name a person would recognise ("malloc" over "__libc_malloc"); the name makes it deterministic.
  auto rank = [&nameOf](const Pending& p) {
    std::string_view name = nameOf(p);
    return std::tuple(p.size == 0, p.indirect, p.binding, leadingUnderscores(name), name.size(), name);
  };
  std::sort(pending_.begin(), pending_.end(), [&rank](const Pending& a, const Pending& b) {
    if (a.address != b.address) return a.address < b.address;
    return rank(a) < rank(b);
  });

  entries_.clear();
  entries_.reserve(pending_.size());
  for (size_t i = 0; i < pending_.size(); ++i) {
    const Pending& p = pending_[i];
    if (!entries_.empty() && entries_.back().address == p.address) continue;
    uint64_t end;
    if (p.size != 0) {
      end = p.address + p.size;
    } else {
      // An unsized symbol (hand-written assembly) runs to the next symbol, but never past its section.
      size_t next = i + 1;
      while (next < pending_.size() && pending_[next].address == p.address) ++next;
      end = next < pending_.size() ? pending_[next].address : p.address;
      if (p.sectionEnd > p.address && (end == p.address || p.sectionEnd < end)) end = p.sectionEnd;
    }
    entries_.push_back({p.address, end, p.nameOffset, p.nameLength});
  }
  pending_.clear();
  pending_.shrink_to_fit();
  entries_.shrink_to_fit();
  // Names of dropped aliases stay in names_: compacting would cost more time than the bytes are worth.
}

std::optional<SymbolTable::Match> SymbolTable::lookup(uint64_t address) const {
  auto next = std::upper_bound(entries_.begin(), entries_.end(), address,
                               [](uint64_t value, const Entry& entry) { return value < entry.address; });
  size_t searched = 0;
  for (auto it = next; it != entries_.begin() && searched < kEnclosingSearchDepth; ++searched) {
    --it;
    if (address < it->end) {
      return Match{static_cast<uint32_t>(it - entries_.begin()), address - it->address};
    }
  }
  return std::nullopt;
}

}  // namespace jfrbpf::symbolize
