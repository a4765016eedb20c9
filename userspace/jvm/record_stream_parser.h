#pragma once
// Splits the agent's byte stream into records: checks the preamble, then yields {type, payload} for every
// complete record, however the bytes were chunked. Every byte is hostile: a payload above the cap, a
// record type of 0, or a wrong preamble ends the stream with an error; memory stays bounded by one record.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "jvmsupport/protocol/records.h"

namespace jfrbpf::jvm {

class RecordStreamParser {
 public:
  using Sink = std::function<bool(protocol::RecordType type, std::span<const uint8_t> payload)>;

  explicit RecordStreamParser(uint32_t maxPayload = protocol::kMaxPayload) : maxPayload_(maxPayload) {}

  // Consumes `bytes`, calling `sink` for each complete record in order. A sink returning false stops the
  // stream (its reason is the caller's). False once the stream is broken; error() says why.
  bool feed(std::span<const uint8_t> bytes, const Sink& sink);

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // Bytes of an incomplete record (or preamble) held back, waiting for the rest.
  size_t pendingBytes() const { return pending_.size(); }

 private:
  bool fail(std::string reason);
  // Parses as many whole units (preamble or records) as `data` holds; returns bytes used, or SIZE_MAX on
  // failure.
  size_t consume(std::span<const uint8_t> data, const Sink& sink);
  // Bytes needed for the unit that starts at `data`, or 0 if even its header is incomplete.
  size_t unitSize(std::span<const uint8_t> data);

  uint32_t maxPayload_;
  bool sawPreamble_ = false;
  std::vector<uint8_t> pending_;
  std::string error_;
};

}  // namespace jfrbpf::jvm
