#include "userspace/unwind/table_compiler.h"

#include <elf.h>

#include <algorithm>
#include <array>

#include "base/error.h"
#include "userspace/unwind/row_classifier.h"

namespace jfrbpf::unwind {
namespace {

// A classified row before merging: full 64-bit address, not yet relative to the pc base.
struct WideRow {
  uint64_t pc = 0;
  RowKind kind = RowKind::kNone;
  uint16_t cfaParam = 0;
  int8_t rbpSlot = 0;
};

struct FdeSpan {
  uint64_t begin = 0;
  uint64_t end = 0;
  size_t firstRow = 0;
  size_t rowCount = 0;
  const ElfImage* image = nullptr;  // whose code the FDE describes; null when the bytes are not at hand
};

// glibc's clone and clone3 end their FDE before the syscall, since the child returns from it on another
// stack, and begin the child's (return address undefined) a few instructions after it: a test, two jumps
// and the parent's ret. Between, both return from the syscall (a CLONE row, unwind_abi.h).
constexpr uint64_t kMaxCloneReturnBytes = 16;
constexpr std::array<uint8_t, 2> kSyscall = {0x0f, 0x05};

class Compiler {
 public:
  explicit Compiler(const CompileLimits& limits) : limits_(limits) {}

  void addSection(const CfiSectionView& view) {
    CfiEntries entries = parseCfiSection(view, limits_.maxEntries);
    stats_.cies += entries.cies.size();
    stats_.malformedEntries += entries.malformedEntries;
    stats_.truncated |= entries.truncated;
    // Rows before merging may outnumber the final ones (overlaps, duplicates); bound them too.
    const size_t maxWideRows = 2 * limits_.maxRows;
    for (const Fde& fde : entries.fdes) {
      if (instructions_ >= limits_.maxInstructions || rows_.size() >= maxWideRows) {
        stats_.truncated = true;
        break;
      }
      const Cie& cie = entries.cies[fde.cieIndex];
      CfaProgramResult program = runCfaProgram(cie, fde, view, limits_.program);
      instructions_ += program.instructions;
      FdeSpan span{fde.pcBegin, fde.pcEnd, rows_.size(), 0, view.image};
      for (const CfiRow& row : program.rows) {
        ClassifiedRow classified = classifyRules(row.rules, cie.signalFrame);
        if (classified.reason) ++stats_.unsupportedRows[static_cast<size_t>(*classified.reason)];
        rows_.push_back({row.pc, classified.kind, classified.cfaParam, classified.rbpSlot});
      }
      if (program.status != ProgramStatus::kOk && program.failedAt < fde.pcEnd) {
        ++stats_.unsupportedRows[static_cast<size_t>(UnsupportedReason::kProgramError)];
        if (program.status == ProgramStatus::kLimit) stats_.truncated = true;
        rows_.push_back({program.failedAt, RowKind::kUnsupported, 0, 0});
      }
      span.rowCount = rows_.size() - span.firstRow;
      if (span.rowCount == 0) continue;
      spans_.push_back(span);
      ++stats_.fdes;
      if (view.format == CfiFormat::kDebugFrame) ++stats_.debugFrameFdes;
    }
    stats_.cfaInstructions = instructions_;
  }

  UnwindTable finish() {
    UnwindTable table;
    if (spans_.empty()) {
      table.stats = stats_;
      return table;
    }
    // Sections were added in priority order and the sort is stable, so on equal starts .eh_frame wins.
    std::stable_sort(spans_.begin(), spans_.end(),
                     [](const FdeSpan& a, const FdeSpan& b) { return a.begin < b.begin; });
    uint64_t maxEnd = 0;
    for (const FdeSpan& span : spans_) maxEnd = std::max(maxEnd, span.end);
    table.pcBase = maxEnd <= UINT32_MAX ? 0 : spans_.front().begin & ~uint64_t{0xfff};
    base_ = table.pcBase;

    bool haveEnd = false;
    uint64_t lastEnd = 0;
    for (const FdeSpan& span : spans_) {
      if (span.begin < base_ || span.end - base_ > UINT32_MAX) {
        ++stats_.droppedFdes;
        continue;
      }
      if (haveEnd && span.end <= lastEnd) {
        ++stats_.overlappingFdes;
        continue;
      }
      uint64_t start = span.begin;
      if (haveEnd && start < lastEnd) {
        start = lastEnd;
        ++stats_.overlappingFdes;
      }
      if (haveEnd && start > lastEnd && !emit(table.rows, gapRow(lastEnd, span))) break;
      if (!emitSpan(table.rows, span, start)) break;
      lastEnd = span.end;
      haveEnd = true;
    }
    if (!full_ && haveEnd) emit(table.rows, {lastEnd, RowKind::kNone, 0, 0});
    countRows(table.rows);
    table.stats = stats_;
    return table;
  }

 private:
  bool emitSpan(std::vector<UnwindRow>& out, const FdeSpan& span, uint64_t start) {
    for (size_t i = span.firstRow; i < span.firstRow + span.rowCount; ++i) {
      WideRow row = rows_[i];
      bool lastOfSpan = i + 1 == span.firstRow + span.rowCount;
      if (!lastOfSpan && rows_[i + 1].pc <= start) continue;  // entirely before the clipped start
      if (row.pc >= span.end) break;
      row.pc = std::max(row.pc, start);
      if (!emit(out, row)) return false;
    }
    return true;
  }

  // The row of the code from `gapStart` to `next`, which no FDE describes: none, or CLONE where a clone's
  // child begins its unwind information.
  WideRow gapRow(uint64_t gapStart, const FdeSpan& next) const {
    const WideRow& first = rows_[next.firstRow];
    std::array<uint8_t, kSyscall.size()> code{};
    if (next.begin - gapStart <= kMaxCloneReturnBytes && first.kind == RowKind::kEndOfStack &&
        first.pc <= next.begin && next.image != nullptr && next.image->readAt(gapStart, code) && code == kSyscall) {
      return {gapStart, RowKind::kClone, 1, JFRBPF_UNWIND_RBP_UNCHANGED};
    }
    return {gapStart, RowKind::kNone, 0, 0};
  }

  // Appends one row, merging it into its predecessor when the rule is the same. One slot is always kept
  // for the final terminator; when the table is full, the terminator goes where the next row would.
  bool emit(std::vector<UnwindRow>& out, const WideRow& row) {
    if (full_) return false;
    UnwindRow compact{static_cast<uint32_t>(row.pc - base_), row.cfaParam, static_cast<uint8_t>(row.kind),
                      row.rbpSlot};
    if (!out.empty() && out.back().pc == compact.pc) out.pop_back();
    if (!out.empty() && out.back().kind == compact.kind && out.back().cfa_param == compact.cfa_param &&
        out.back().rbp_slot == compact.rbp_slot) {
      return true;
    }
    if (out.size() + 1 >= limits_.maxRows) {
      out.push_back({compact.pc, 0, static_cast<uint8_t>(RowKind::kNone), 0});
      full_ = true;
      stats_.truncated = true;
      return false;
    }
    out.push_back(compact);
    return true;
  }

  void countRows(const std::vector<UnwindRow>& rows) {
    for (size_t i = 0; i < rows.size(); ++i) {
      size_t kind = rows[i].kind;
      ++stats_.rowsByKind[kind];
      if (i + 1 < rows.size()) stats_.bytesByKind[kind] += rows[i + 1].pc - rows[i].pc;
    }
  }

  const CompileLimits& limits_;
  TableStats stats_;
  std::vector<WideRow> rows_;
  std::vector<FdeSpan> spans_;
  size_t instructions_ = 0;
  uint64_t base_ = 0;
  bool full_ = false;
};

// The fixed part of .eh_frame_hdr (version, encodings, eh_frame_ptr, fde_count): from its section when
// the file has section headers (a debug file keeps PT_GNU_EH_FRAME but not the bytes it points to), else
// through PT_GNU_EH_FRAME.
std::optional<EhFrameHeader> readEhFrameHeader(const ElfImage& image) {
  constexpr uint64_t kHeaderBytes = 64;
  uint64_t vaddr = 0;
  uint64_t size = 0;
  if (!image.sections().empty()) {
    const ElfSection* section = image.section(".eh_frame_hdr");
    if (section == nullptr || section->type == SHT_NOBITS) return std::nullopt;
    vaddr = section->addr;
    size = section->size;
  } else if (const ElfSegment* segment = image.segment(PT_GNU_EH_FRAME)) {
    vaddr = segment->vaddr;
    size = segment->fileSize;
  } else {
    return std::nullopt;
  }
  auto range = image.fileRangeAt(vaddr);
  if (!range) return std::nullopt;
  uint64_t length = std::min({size, range->second, kHeaderBytes});
  return parseEhFrameHeader(image.source().readVector(range->first, length), vaddr);
}

// .eh_frame's bytes and address: its section when there are section headers; otherwise (an image
// stripped to the bone, or read from memory) from where the header points to the end of that load
// segment — the walk stops at the zero terminator.
std::pair<std::vector<uint8_t>, uint64_t> readEhFrame(const ElfImage& image,
                                                      const std::optional<EhFrameHeader>& header,
                                                      const CompileLimits& limits) {
  if (!image.sections().empty()) {
    const ElfSection* section = image.section(".eh_frame");
    if (section == nullptr || section->type == SHT_NOBITS) return {};
    return {image.sectionBytes(*section, limits.maxSectionBytes), section->addr};
  }
  if (!header) return {};
  auto range = image.fileRangeAt(header->ehFrameVaddr);
  if (!range) return {};
  return {image.source().readVector(range->first, std::min(range->second, limits.maxSectionBytes)),
          header->ehFrameVaddr};
}

// A .debug_frame that cannot be read (zstd, oversized) is only noted: .eh_frame alone is enough to unwind.
std::optional<std::vector<uint8_t>> readDebugFrame(const ElfImage& image, const CompileLimits& limits,
                                                   TableStats& stats) {
  const ElfSection* section = image.section(".debug_frame");
  if (section == nullptr || section->type == SHT_NOBITS || section->size == 0) return std::nullopt;
  try {
    return image.sectionBytes(*section, limits.maxSectionBytes);
  } catch (const Error&) {
    stats.debugFrameUnreadable = true;
    return std::nullopt;
  }
}

}  // namespace

UnwindTable compileUnwindTable(const ElfImage& image, const CompileLimits& limits) {
  return compileUnwindTable(image, nullptr, limits);
}

UnwindTable compileUnwindTable(const ElfImage& image, const ElfImage* debugFile, const CompileLimits& limits) {
  Compiler compiler(limits);
  TableStats fileStats;
  std::optional<EhFrameHeader> header = readEhFrameHeader(image);
  auto [ehFrame, ehFrameVaddr] = readEhFrame(image, header, limits);
  if (!ehFrame.empty()) compiler.addSection({CfiFormat::kEhFrame, ehFrame, ehFrameVaddr, std::nullopt, &image});
  // Where sections overlap, the one added first wins: .eh_frame, the file's .debug_frame, the debug file's.
  std::optional<std::vector<uint8_t>> debugFrame = readDebugFrame(image, limits, fileStats);
  if (debugFrame) compiler.addSection({CfiFormat::kDebugFrame, *debugFrame, 0, std::nullopt, &image});
  std::optional<std::vector<uint8_t>> separateDebugFrame;
  if (debugFile != nullptr) separateDebugFrame = readDebugFrame(*debugFile, limits, fileStats);
  if (separateDebugFrame) {
    compiler.addSection({CfiFormat::kDebugFrame, *separateDebugFrame, 0, std::nullopt, debugFile});
  }

  UnwindTable table = compiler.finish();
  table.stats.debugFrameUnreadable = fileStats.debugFrameUnreadable;
  if (header) table.stats.headerFdeCount = header->fdeCount;
  table.buildId = image.buildId();
  for (const ElfSegment& segment : image.segments()) {
    if (segment.type != PT_LOAD || segment.fileSize > UINT64_MAX - segment.offset) continue;
    table.loads.push_back({segment.vaddr, segment.offset, segment.fileSize, segment.flags});
  }
  return table;
}

UnwindTable compileCfiSection(const CfiSectionView& section, const CompileLimits& limits) {
  Compiler compiler(limits);
  compiler.addSection(section);
  return compiler.finish();
}

}  // namespace jfrbpf::unwind
