#pragma once
// Builds .eh_frame / .debug_frame bytes by hand for the parser tests: entries get their length fields
// patched on close, and FDEs point at their CIE the way each format wants.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace jfrbpf::unwind::test {

class CfiBuilder {
 public:
  explicit CfiBuilder(bool debugFrame = false, uint64_t vaddr = 0x1000) : debugFrame_(debugFrame), vaddr_(vaddr) {}

  std::vector<uint8_t>& bytes() { return bytes_; }
  uint64_t vaddr() const { return vaddr_; }
  uint64_t here() const { return vaddr_ + bytes_.size(); }

  CfiBuilder& u8(uint8_t v) { bytes_.push_back(v); return *this; }
  CfiBuilder& u16(uint16_t v) { return raw(&v, 2); }
  CfiBuilder& u32(uint32_t v) { return raw(&v, 4); }
  CfiBuilder& u64(uint64_t v) { return raw(&v, 8); }
  CfiBuilder& raw(const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
    return *this;
  }
  CfiBuilder& bytes(std::initializer_list<uint8_t> list) {
    bytes_.insert(bytes_.end(), list.begin(), list.end());
    return *this;
  }
  CfiBuilder& str(const std::string& s) { return raw(s.c_str(), s.size() + 1); }
  CfiBuilder& uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      bytes_.push_back(byte | (v ? 0x80 : 0));
    } while (v);
    return *this;
  }
  CfiBuilder& sleb(int64_t v) {
    bool more = true;
    while (more) {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
      bytes_.push_back(byte | (more ? 0x80 : 0));
    }
    return *this;
  }
  // pcrel|sdata4 pointer to target, relative to the field's own address.
  CfiBuilder& pcrel4(uint64_t target) { return u32(static_cast<uint32_t>(target - here())); }

  // Starts an entry and returns its offset; the 32-bit (or 64-bit) length is patched by end().
  size_t begin(bool is64 = false) {
    size_t start = bytes_.size();
    if (is64) {
      u32(0xffffffffu);
      u64(0);
    } else {
      u32(0);
    }
    is64_ = is64;
    return start;
  }
  void end(size_t start) {
    uint64_t headerSize = is64_ ? 12 : 4;
    uint64_t length = bytes_.size() - start - headerSize;
    if (is64_) {
      std::memcpy(bytes_.data() + start + 4, &length, 8);
    } else {
      uint32_t length32 = static_cast<uint32_t>(length);
      std::memcpy(bytes_.data() + start, &length32, 4);
    }
  }

  // A typical GCC x86_64 CIE: "zR", code 1, data -8, RA r16, FDE pointers pcrel|sdata4,
  // initial rules cfa=rsp+8, ra=[cfa-8]. Returns the CIE's offset.
  size_t standardCie(const std::string& augmentation = "zR", std::initializer_list<uint8_t> augmentationData = {0x1b}) {
    size_t start = begin();
    if (debugFrame_) {
      u32(0xffffffffu).u8(4).str("").u8(8).u8(0);
    } else {
      u32(0).u8(1).str(augmentation);
    }
    uleb(1).sleb(-8);
    if (debugFrame_) {
      uleb(16);
    } else {
      u8(16);
    }
    if (!debugFrame_ && !augmentation.empty()) {
      uleb(augmentationData.size());
      bytes(augmentationData);
    }
    bytes({0x0c, 7, 8, 0x90, 1});  // def_cfa rsp 8; offset r16 at cfa-8
    end(start);
    return start;
  }

  // An FDE for [pcBegin, pcBegin + range) with the given instructions (after the augmentation length).
  size_t fde(size_t cieOffset, uint64_t pcBegin, uint64_t range, std::initializer_list<uint8_t> program) {
    size_t start = begin();
    if (debugFrame_) {
      u32(static_cast<uint32_t>(cieOffset)).u64(pcBegin).u64(range);
    } else {
      u32(static_cast<uint32_t>(bytes_.size() - cieOffset)).pcrel4(pcBegin).u32(static_cast<uint32_t>(range)).uleb(0);
    }
    bytes(program);
    end(start);
    return start;
  }

 private:
  bool debugFrame_;
  uint64_t vaddr_;
  bool is64_ = false;
  std::vector<uint8_t> bytes_;
};

}  // namespace jfrbpf::unwind::test
