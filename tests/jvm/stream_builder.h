#pragma once
// Builds agent byte streams for tests with the protocol's own encoders: a preamble, then records.
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "jvmsupport/protocol/records.h"

namespace jfrbpf::jvm::test {

struct VectorSink {
  std::vector<uint8_t>& out;
  bool append(const void* data, size_t size) {
    const uint8_t* bytes = static_cast<const uint8_t*>(data);
    out.insert(out.end(), bytes, bytes + size);
    return true;
  }
};

struct PcEntry {
  uint32_t pcOffset;
  std::vector<protocol::InlineFrame> frames;  // innermost first
};

class StreamBuilder {
 public:
  StreamBuilder& preamble() {
    VectorSink sink{bytes_};
    protocol::WireWriter<VectorSink> w(sink);
    protocol::encodePreamble(w);
    return *this;
  }

  template <typename Record>
  StreamBuilder& record(protocol::RecordType type, const Record& r) {
    return payload(type, [&](protocol::WireWriter<VectorSink>& w) { protocol::encode(w, r); });
  }

  StreamBuilder& hello(uint32_t session = 1, std::array<uint8_t, protocol::kTokenSize> token = {}) {
    protocol::Hello h;
    h.token = token;
    h.pid = 4242;
    h.sessionNumber = session;
    h.jvmtiVersion = 0x30110000;
    h.vmName = "Test VM";
    h.vmVersion = "17-test";
    return record(protocol::RecordType::kHello, h);
  }

  StreamBuilder& method(const protocol::MethodInfo& head, const std::vector<protocol::LineEntry>& lines) {
    protocol::MethodInfo m = head;
    m.lineCount = static_cast<uint32_t>(lines.size());
    return payload(protocol::RecordType::kMethod, [&](protocol::WireWriter<VectorSink>& w) {
      protocol::encodeMethodHead(w, m);
      for (const protocol::LineEntry& e : lines) protocol::encodeLine(w, e);
    });
  }

  StreamBuilder& compiled(const protocol::CompiledMethodLoad& head, const std::vector<uint64_t>& methodIds,
                          const std::vector<PcEntry>& pcs) {
    protocol::CompiledMethodLoad c = head;
    c.methodCount = static_cast<uint16_t>(methodIds.size());
    return payload(protocol::RecordType::kCompiledMethodLoad, [&](protocol::WireWriter<VectorSink>& w) {
      protocol::encodeCompiledMethodHead(w, c);
      for (uint64_t id : methodIds) protocol::encodeMethodIndexEntry(w, id);
      protocol::encodePcCount(w, static_cast<uint32_t>(pcs.size()));
      for (const PcEntry& pc : pcs) {
        protocol::encodeInlinePc(w, pc.pcOffset, static_cast<uint16_t>(pc.frames.size()));
        for (const protocol::InlineFrame& f : pc.frames) protocol::encodeInlineFrame(w, f);
      }
    });
  }

  StreamBuilder& raw(protocol::RecordType type, const std::vector<uint8_t>& body) {
    return payload(type, [&](protocol::WireWriter<VectorSink>& w) { w.bytes(body.data(), body.size()); });
  }

  const std::vector<uint8_t>& bytes() const { return bytes_; }

  // The payload of the last record, for decode tests.
  std::span<const uint8_t> lastPayload() const {
    return std::span<const uint8_t>(bytes_).subspan(lastPayloadOffset_);
  }

 private:
  template <typename F>
  StreamBuilder& payload(protocol::RecordType type, F&& encodeBody) {
    std::vector<uint8_t> body;
    VectorSink bodySink{body};
    protocol::WireWriter<VectorSink> bw(bodySink);
    encodeBody(bw);
    VectorSink sink{bytes_};
    protocol::WireWriter<VectorSink> w(sink);
    protocol::encodeRecordHeader(w, type, static_cast<uint32_t>(body.size()));
    lastPayloadOffset_ = bytes_.size();
    bytes_.insert(bytes_.end(), body.begin(), body.end());
    return *this;
  }

  std::vector<uint8_t> bytes_;
  size_t lastPayloadOffset_ = 0;
};

}  // namespace jfrbpf::jvm::test
