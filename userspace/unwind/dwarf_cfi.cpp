#include "userspace/unwind/dwarf_cfi.h"

#include <string_view>
#include <unordered_map>

#include "userspace/unwind/dwarf_constants.h"
#include "userspace/unwind/elf_image.h"

namespace jfrbpf::unwind {
namespace {

using namespace dwarf;

// The framing shared by CIEs and FDEs: a 32-bit (or 0xffffffff + 64-bit) length, then the CIE id/pointer.
struct EntryHeader {
  size_t idPosition = 0;   // where the CIE id / CIE pointer field starts
  size_t bodyPosition = 0; // first byte after that field
  size_t end = 0;          // one past the entry
  uint64_t id = 0;
  bool is64 = false;
  bool terminator = false; // a zero length
};

std::optional<EntryHeader> readEntryHeader(std::span<const uint8_t> bytes, size_t position) {
  ByteReader reader(bytes, position);
  EntryHeader header;
  uint64_t length = reader.u32();
  if (length == 0xffffffffu) {
    header.is64 = true;
    length = reader.u64();
  }
  if (!reader.ok()) return std::nullopt;
  if (length == 0) {
    header.terminator = true;
    header.end = reader.position();
    return header;
  }
  if (length > reader.remaining()) return std::nullopt;
  header.end = reader.position() + static_cast<size_t>(length);
  header.idPosition = reader.position();
  ByteReader body(bytes.first(header.end), header.idPosition);
  header.id = header.is64 ? body.u64() : body.u32();
  if (!body.ok()) return std::nullopt;
  header.bodyPosition = body.position();
  return header;
}

bool isCieId(const EntryHeader& header, CfiFormat format) {
  if (format == CfiFormat::kEhFrame) return header.id == 0;
  return header.is64 ? header.id == ~uint64_t{0} : header.id == 0xffffffffu;
}

class SectionParser {
 public:
  SectionParser(const CfiSectionView& section, size_t maxEntries) : section_(section), maxEntries_(maxEntries) {}

  CfiEntries run() {
    size_t position = 0;
    while (position < section_.bytes.size()) {
      if (++visited_ > maxEntries_) {
        out_.truncated = true;
        break;
      }
      std::optional<EntryHeader> header = readEntryHeader(section_.bytes, position);
      if (!header) {
        ++out_.malformedEntries;
        out_.truncated = true;
        break;
      }
      // A zero length ends .eh_frame (the runtime stops there too); in .debug_frame it is only padding.
      if (header->terminator && section_.format == CfiFormat::kEhFrame) break;
      if (!header->terminator) {
        if (isCieId(*header, section_.format)) {
          if (!cieAt(position)) ++out_.malformedEntries;
        } else {
          parseFde(*header);
        }
      }
      position = header->end;
    }
    return std::move(out_);
  }

 private:
  // CIEs are parsed on first reference (a .debug_frame FDE may point forward) and remembered by offset.
  std::optional<uint32_t> cieAt(size_t offset) {
    auto known = cieByOffset_.find(offset);
    if (known != cieByOffset_.end()) return known->second;
    std::optional<uint32_t> index;
    if (std::optional<Cie> cie = parseCie(offset)) {
      index = static_cast<uint32_t>(out_.cies.size());
      out_.cies.push_back(*cie);
    }
    cieByOffset_.emplace(offset, index);
    return index;
  }

  std::optional<Cie> parseCie(size_t offset) {
    std::optional<EntryHeader> header = readEntryHeader(section_.bytes, offset);
    if (!header || header->terminator || !isCieId(*header, section_.format)) return std::nullopt;
    ByteReader reader(section_.bytes.first(header->end), header->bodyPosition);
    Cie cie;
    cie.version = reader.u8();
    bool versionOk = section_.format == CfiFormat::kEhFrame
                         ? (cie.version == 1 || cie.version == 3)
                         : (cie.version == 1 || cie.version == 3 || cie.version == 4);
    if (!versionOk) return std::nullopt;
    std::span<const uint8_t> augmentationBytes = reader.cString();
    std::string_view augmentation(reinterpret_cast<const char*>(augmentationBytes.data()),
                                  augmentationBytes.size());
    if (augmentation.starts_with("eh")) {
      reader.skip(8);  // the pre-"z" GCC form carried the address of an exception table here
      augmentation.remove_prefix(2);
    }
    if (cie.version >= 4) {
      cie.addressSize = reader.u8();
      uint8_t segmentSelectorSize = reader.u8();
      if ((cie.addressSize != 4 && cie.addressSize != 8) || segmentSelectorSize != 0) return std::nullopt;
    }
    cie.codeAlignment = reader.uleb128();
    cie.dataAlignment = reader.sleb128();
    cie.returnAddressRegister = cie.version == 1 ? reader.u8() : reader.uleb128();
    cie.fdeEncoding = section_.format == CfiFormat::kEhFrame || cie.addressSize == 8 ? kPeAbsptr : kPeUdata4;
    if (!augmentation.empty()) {
      if (augmentation[0] != 'z') return std::nullopt;  // unknown layout: its FDEs cannot be read
      cie.hasAugmentationData = true;
      uint64_t length = reader.uleb128();
      if (!reader.ok() || length > reader.remaining()) return std::nullopt;
      size_t dataEnd = reader.position() + static_cast<size_t>(length);
      ByteReader data(section_.bytes.first(dataEnd), reader.position());
      for (char letter : augmentation.substr(1)) {
        switch (letter) {
          case 'L':
            data.u8();  // LSDA encoding: only landing pads need it
            break;
          case 'P': {
            uint8_t encoding = data.u8();
            uint64_t fieldVaddr = section_.vaddr + data.position();
            if (encoding != kPeOmit &&
                !readEncodedPointer(data, encoding, fieldVaddr, section_, cie.addressSize, false)) {
              return std::nullopt;
            }
            break;
          }
          case 'R':
            cie.fdeEncoding = data.u8();
            break;
          case 'S':
            cie.signalFrame = true;
            break;
          case 'B':  // AArch64 BTI / MTE markers: no data, no effect on x86_64 rules
          case 'G':
            break;
          default:
            return std::nullopt;
        }
        if (!data.ok()) return std::nullopt;
      }
      reader.seek(dataEnd);
    }
    if (!reader.ok() || cie.codeAlignment == 0) return std::nullopt;
    cie.instructions = reader.take(reader.remaining());
    return cie;
  }

  void parseFde(const EntryHeader& header) {
    size_t cieOffset;
    if (section_.format == CfiFormat::kEhFrame) {
      // .eh_frame stores the distance back from the pointer field to the CIE.
      if (header.id > header.idPosition) return void(++out_.malformedEntries);
      cieOffset = header.idPosition - static_cast<size_t>(header.id);
    } else {
      if (header.id >= section_.bytes.size()) return void(++out_.malformedEntries);
      cieOffset = static_cast<size_t>(header.id);
    }
    std::optional<uint32_t> cieIndex = cieAt(cieOffset);
    if (!cieIndex) return void(++out_.malformedEntries);
    const Cie& cie = out_.cies[*cieIndex];

    ByteReader reader(section_.bytes.first(header.end), header.bodyPosition);
    uint64_t fieldVaddr = section_.vaddr + reader.position();
    std::optional<uint64_t> begin =
        readEncodedPointer(reader, cie.fdeEncoding, fieldVaddr, section_, cie.addressSize);
    // The range is a plain length: same format, no base applied, never indirect.
    std::optional<uint64_t> range =
        readEncodedPointer(reader, cie.fdeEncoding & kPeFormatMask, 0, section_, cie.addressSize);
    if (!begin || !range) return void(++out_.malformedEntries);
    if (cie.hasAugmentationData) reader.skip(reader.uleb128());
    if (!reader.ok()) return void(++out_.malformedEntries);
    // Linkers leave FDEs of discarded code at address 0 or at an all-ones tombstone: nothing to unwind.
    if (*begin == 0 || *range == 0 || *begin + *range < *begin) return;
    out_.fdes.push_back({*cieIndex, *begin, *begin + *range, reader.take(reader.remaining())});
  }

  const CfiSectionView& section_;
  size_t maxEntries_;
  size_t visited_ = 0;
  CfiEntries out_;
  std::unordered_map<size_t, std::optional<uint32_t>> cieByOffset_;
};

}  // namespace

std::optional<uint64_t> readEncodedPointer(ByteReader& reader, uint8_t encoding, uint64_t fieldVaddr,
                                           const CfiSectionView& section, uint8_t addressSize, bool resolve) {
  uint8_t application = encoding & kPeApplicationMask;
  if (application == kPeAligned) {
    size_t padding = (addressSize - fieldVaddr % addressSize) % addressSize;
    reader.skip(padding);
    fieldVaddr += padding;
  }
  uint64_t value = 0;
  switch (encoding & kPeFormatMask) {
    case kPeAbsptr: value = addressSize == 8 ? reader.u64() : reader.u32(); break;
    case kPeUleb128: value = reader.uleb128(); break;
    case kPeUdata2: value = reader.u16(); break;
    case kPeUdata4: value = reader.u32(); break;
    case kPeUdata8: value = reader.u64(); break;
    case kPeSleb128: value = static_cast<uint64_t>(reader.sleb128()); break;
    case kPeSdata2: value = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(reader.u16()))); break;
    case kPeSdata4: value = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(reader.u32()))); break;
    case kPeSdata8: value = reader.u64(); break;
    default: return std::nullopt;
  }
  if (!reader.ok()) return std::nullopt;
  if (!resolve) return value;
  switch (application) {
    case kPeAbsptr:
    case kPeAligned:
      break;
    case kPePcrel:
      value += fieldVaddr;
      break;
    case kPeDatarel:
      if (!section.dataRelBase) return std::nullopt;
      value += *section.dataRelBase;
      break;
    default:  // textrel / funcrel have no defined base for x86_64 unwind tables
      return std::nullopt;
  }
  if (encoding & kPeIndirect) {
    uint64_t target = 0;
    if (section.image == nullptr ||
        !section.image->readAt(value, {reinterpret_cast<uint8_t*>(&target), sizeof(target)})) {
      return std::nullopt;
    }
    value = target;
  }
  return value;
}

CfiEntries parseCfiSection(const CfiSectionView& section, size_t maxEntries) {
  return SectionParser(section, maxEntries).run();
}

std::optional<EhFrameHeader> parseEhFrameHeader(std::span<const uint8_t> bytes, uint64_t vaddr) {
  ByteReader reader(bytes);
  uint8_t version = reader.u8();
  uint8_t pointerEncoding = reader.u8();
  uint8_t countEncoding = reader.u8();
  reader.u8();  // table encoding: the search table itself is not needed to build tables
  if (!reader.ok() || version != 1 || pointerEncoding == kPeOmit) return std::nullopt;
  // Inside .eh_frame_hdr, datarel pointers are relative to the header's own start.
  CfiSectionView context{CfiFormat::kEhFrame, bytes, vaddr, vaddr, nullptr};
  EhFrameHeader header;
  std::optional<uint64_t> ehFrame = readEncodedPointer(reader, pointerEncoding, vaddr + reader.position(), context, 8);
  if (!ehFrame) return std::nullopt;
  header.ehFrameVaddr = *ehFrame;
  if (countEncoding != kPeOmit) {
    header.fdeCount = readEncodedPointer(reader, countEncoding, vaddr + reader.position(), context, 8);
  }
  return header;
}

}  // namespace jfrbpf::unwind
