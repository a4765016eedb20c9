#include "userspace/jvm/record_stream_parser.h"

#include <algorithm>
#include <limits>

namespace jfrbpf::jvm {

namespace {
constexpr size_t kFailed = std::numeric_limits<size_t>::max();
}

bool RecordStreamParser::fail(std::string reason) {
  if (error_.empty()) error_ = std::move(reason);
  pending_.clear();
  pending_.shrink_to_fit();
  return false;
}

size_t RecordStreamParser::unitSize(std::span<const uint8_t> data) {
  if (!sawPreamble_) return data.size() >= protocol::kPreambleSize ? protocol::kPreambleSize : 0;
  if (data.size() < protocol::kRecordHeaderSize) return 0;
  uint32_t length = protocol::loadLittleEndian<uint32_t>(data, 0);
  if (length > maxPayload_) {
    fail("agent sent a record of " + std::to_string(length) + " bytes, above the limit of " +
         std::to_string(maxPayload_));
    return 0;
  }
  return protocol::kRecordHeaderSize + length;
}

size_t RecordStreamParser::consume(std::span<const uint8_t> data, const Sink& sink) {
  size_t used = 0;
  for (;;) {
    std::span<const uint8_t> rest = data.subspan(used);
    size_t size = unitSize(rest);
    if (failed()) return kFailed;
    if (size == 0 || size > rest.size()) return used;
    if (!sawPreamble_) {
      if (protocol::loadLittleEndian<uint32_t>(rest, 0) != protocol::kMagic) {
        return fail("not a jfrbpf agent: bad magic at the start of the channel"), kFailed;
      }
      uint16_t version = protocol::loadLittleEndian<uint16_t>(rest, 4);
      if (version != protocol::kVersion) {
        return fail("agent speaks channel protocol " + std::to_string(version) + ", this loader " +
                    std::to_string(protocol::kVersion) + ": use the agent library of the same jfrbpf"),
               kFailed;
      }
      sawPreamble_ = true;
    } else {
      uint16_t type = protocol::loadLittleEndian<uint16_t>(rest, 4);
      if (type == 0) return fail("agent sent a record of type 0"), kFailed;
      if (!sink(static_cast<protocol::RecordType>(type), rest.subspan(protocol::kRecordHeaderSize, size - protocol::kRecordHeaderSize))) {
        return fail("stream stopped by its consumer"), kFailed;
      }
    }
    used += size;
  }
}

bool RecordStreamParser::feed(std::span<const uint8_t> bytes, const Sink& sink) {
  if (failed()) return false;
  while (!pending_.empty()) {
    // Complete the held-back unit first: once its header is in, it tells how many bytes it still needs.
    size_t size = unitSize(pending_);
    if (failed()) return false;
    size_t want = size != 0 ? size : (sawPreamble_ ? protocol::kRecordHeaderSize : protocol::kPreambleSize);
    size_t take = std::min(want - pending_.size(), bytes.size());
    pending_.insert(pending_.end(), bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(take));
    bytes = bytes.subspan(take);
    if (pending_.size() < want) return true;  // all input used, the unit is still incomplete
    if (size == 0) continue;                  // the header just completed: now its size is known
    std::vector<uint8_t> unit;
    unit.swap(pending_);
    if (consume(unit, sink) == kFailed) return false;
  }
  size_t used = consume(bytes, sink);
  if (used == kFailed) return false;
  pending_.assign(bytes.begin() + static_cast<ptrdiff_t>(used), bytes.end());
  return true;
}

}  // namespace jfrbpf::jvm
