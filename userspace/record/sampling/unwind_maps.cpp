#include "userspace/record/sampling/unwind_maps.h"

#include <algorithm>
#include <functional>

#include "base/error.h"
#include "userspace/proc/maps.h"

namespace jfrbpf::record {
namespace {

// Changes whenever the set of executable mappings changes, so an unchanged process costs one maps read.
uint64_t signatureOf(const std::vector<proc::Mapping>& maps) {
  uint64_t h = 1469598103934665603ull;
  for (const proc::Mapping& m : maps) {
    if (!m.executable) continue;
    for (uint64_t v : {m.start, m.end, m.fileOffset, m.inode}) h = (h ^ v) * 1099511628211ull;
  }
  return h;
}

}  // namespace

bool UnwindMaps::allocateRows(uint32_t count, uint32_t& first) {
  if (!rowsInitialized_) {
    freeRanges_[0] = sampler_.unwindRowCapacity();
    rowsInitialized_ = true;
  }
  for (auto it = freeRanges_.begin(); it != freeRanges_.end(); ++it) {
    if (it->second < count) continue;
    first = it->first;
    uint32_t left = it->second - count;
    freeRanges_.erase(it);
    if (left > 0) freeRanges_[first + count] = left;
    return true;
  }
  return false;
}

void UnwindMaps::freeRows(uint32_t first, uint32_t count) {
  auto [it, inserted] = freeRanges_.emplace(first, count);
  // Coalesce with the following and preceding free ranges.
  auto next = std::next(it);
  if (next != freeRanges_.end() && it->first + it->second == next->first) {
    it->second += next->second;
    freeRanges_.erase(next);
  }
  if (it != freeRanges_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      freeRanges_.erase(it);
    }
  }
}

const UnwindMaps::FileSlot* UnwindMaps::slotFor(const std::shared_ptr<const unwind::UnwindTable>& table) {
  auto found = files_.find(table.get());
  if (found != files_.end()) return &found->second;
  const auto count = static_cast<uint32_t>(table->rows.size());
  uint32_t first = 0;
  if (count == 0 || !allocateRows(count, first)) return nullptr;
  sampler_.writeUnwindRows(first, table->rows);
  FileSlot slot{nextFileId_++, first, count, 0};
  sampler_.setUnwindFile(slot.fileId, {slot.firstRow, slot.rowCount});
  return &files_.emplace(table.get(), slot).first->second;
}

void UnwindMaps::release(const unwind::UnwindTable* table) {
  auto it = files_.find(table);
  if (it == files_.end() || --it->second.users > 0) return;
  sampler_.removeUnwindFile(it->second.fileId);
  freeRows(it->second.firstRow, it->second.rowCount);
  files_.erase(it);
}

std::vector<std::string> UnwindMaps::syncProcess(pid_t pid) {
  std::vector<std::string> problems;
  std::vector<proc::Mapping> maps;
  try {
    maps = proc::readMaps(pid);
  } catch (const Error& e) {
    problems.emplace_back(e.what());
    return problems;
  }
  ProcessState& state = processes_[pid];
  uint64_t signature = signatureOf(maps);
  if (signature == state.mapsSignature && !state.tables.empty()) return problems;

  unwind::AddressSpace space = unwind::AddressSpace::forProcess(pid, cache_, &problems);
  jfrbpf_unwind_process published{};
  std::vector<const unwind::UnwindTable*> tables;
  std::vector<std::shared_ptr<const unwind::UnwindTable>> keepAlive;
  for (const unwind::MappedTable& mapping : space.mappings()) {
    if (published.mapping_count == JFRBPF_UNWIND_MAX_MAPPINGS) {
      problems.push_back("more than " + std::to_string(JFRBPF_UNWIND_MAX_MAPPINGS) +
                         " executable mappings: the rest unwind by frame pointers");
      break;
    }
    const FileSlot* slot = slotFor(mapping.table);
    if (!slot) continue;
    jfrbpf_unwind_mapping& m = published.mappings[published.mapping_count++];
    m.start = mapping.start;
    m.end = mapping.end;
    m.bias = mapping.bias + mapping.table->pcBase;
    m.file_id = slot->fileId;
    tables.push_back(mapping.table.get());
    keepAlive.push_back(mapping.table);
  }
  // Count the new users before releasing the old ones, so a table used before and after stays put.
  for (const unwind::UnwindTable* table : tables) ++files_[table].users;
  sampler_.setUnwindProcess(static_cast<uint32_t>(pid), published);
  for (const unwind::UnwindTable* table : state.tables) release(table);
  state.tables = std::move(tables);
  state.keepAlive = std::move(keepAlive);
  state.mapsSignature = signature;
  cache_.prune();
  return problems;
}

void UnwindMaps::forgetProcess(pid_t pid) {
  auto it = processes_.find(pid);
  if (it == processes_.end()) return;
  for (const unwind::UnwindTable* table : it->second.tables) release(table);
  processes_.erase(it);
  cache_.prune();
}

}  // namespace jfrbpf::record
