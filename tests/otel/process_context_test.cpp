// OTEP 4719's process context as jfrbpf reads it: published by this very process through the tests' own
// writer (otel_writer.c, a real memfd mapping named as the OTEP says) and read back through its mappings and
// memory; then hostile publishers, whose every header field and payload byte may be wrong, changing or gone.
#include "userspace/otel/process_context.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.h"
#include "tests/otel/otel_writer.h"
#include "userspace/otel/protobuf_reader.h"

namespace jfrbpf::otel {
namespace {

ProcessContext readOurs() {
  const std::vector<proc::Mapping> maps = proc::readMaps(getpid());
  const proc::Mapping* mapping = findProcessContextMapping(maps);
  if (mapping == nullptr) throw std::runtime_error("no OTEL_CTX mapping");
  return readProcessContext(unwind::ProcessMemory(getpid()), mapping->start);
}

TEST(ProcessContext, WhatThisProcessPublishesIsReadFromItsMapping) {
  const char* resource[] = {"service.name", "checkout", "service.instance.id", "pod-7"};
  const char* keys[] = {"http.route", "http.method"};
  ASSERT_EQ(otel_writer_publish(resource, 2, "tlsdesc_v1_dev", keys, 2), 0);
  const ProcessContext context = readOurs();
  ASSERT_NE(context.resourceValue("service.name"), nullptr);
  EXPECT_EQ(*context.resourceValue("service.name"), "checkout");
  EXPECT_EQ(*context.resourceValue("service.instance.id"), "pod-7");
  EXPECT_EQ(context.resourceValue("service.version"), nullptr);
  EXPECT_EQ(context.threadSchema, "tlsdesc_v1_dev");
  EXPECT_EQ(context.threadKeys, (std::vector<std::string>{"http.route", "http.method"}));
  EXPECT_TRUE(context.publishesThreadContext());
  EXPECT_TRUE(context.attributes.empty()) << "threadlocal.* are not attributes of the process";
  EXPECT_NE(context.publishedAtNs, 0u);

  // An update: a new timestamp, and what it says.
  const char* updated[] = {"service.name", "payments"};
  ASSERT_EQ(otel_writer_publish(updated, 1, nullptr, nullptr, 0), 0);
  const ProcessContext after = readOurs();
  EXPECT_EQ(*after.resourceValue("service.name"), "payments");
  EXPECT_GT(after.publishedAtNs, context.publishedAtNs);
  EXPECT_FALSE(after.publishesThreadContext()) << "no schema published any more";
}

// Bytes of a protobuf message, built field by field.
struct Message {
  std::vector<uint8_t> bytes;
  Message& varint(uint64_t value) {
    do {
      bytes.push_back(static_cast<uint8_t>((value & 0x7f) | (value > 0x7f ? 0x80 : 0)));
      value >>= 7;
    } while (value != 0);
    return *this;
  }
  Message& field(uint32_t number, const std::vector<uint8_t>& content) {
    varint(uint64_t{number} << 3 | 2).varint(content.size());
    bytes.insert(bytes.end(), content.begin(), content.end());
    return *this;
  }
  Message& field(uint32_t number, const std::string& text) { return field(number, std::vector<uint8_t>(text.begin(), text.end())); }
  Message& field(uint32_t number, const Message& inner) { return field(number, inner.bytes); }
};

Message stringValue(const std::string& text) { return Message().field(1, text); }
Message keyValue(const std::string& key, const Message& value) { return Message().field(1, key).field(2, value); }

TEST(ProcessContext, ValuesOfEveryKindBecomeText) {
  Message array;
  array.field(1, stringValue("a")).field(1, Message().varint(3 << 3).varint(7));  // "a", int 7
  Message resource;
  resource.field(1, keyValue("service.name", stringValue("svc")))
      .field(1, keyValue("flag", Message().varint(2 << 3).varint(1)))
      .field(1, keyValue("count", Message().varint(3 << 3).varint(static_cast<uint64_t>(-5))))
      .field(1, keyValue("list", Message().field(5, array)))
      .field(1, keyValue("bytes", Message().field(7, std::vector<uint8_t>{0xde, 0xad})));
  const ProcessContext context = decodeProcessContext(Message().field(1, resource).bytes);
  ASSERT_EQ(context.resource.size(), 5u);
  EXPECT_EQ(*context.resourceValue("flag"), "true");
  EXPECT_EQ(*context.resourceValue("count"), "-5");
  EXPECT_EQ(*context.resourceValue("list"), "[a, 7]");
  EXPECT_EQ(*context.resourceValue("bytes"), "dead");
}

TEST(ProcessContext, HostileTextNeverReachesATerminalAsItCame) {
  Message resource;
  resource.field(1, keyValue("service.name", stringValue("evil\x1b[2J\xff" + std::string(5000, 'x'))));
  const ProcessContext context = decodeProcessContext(Message().field(1, resource).bytes);
  const std::string& name = *context.resourceValue("service.name");
  EXPECT_EQ(name.find('\x1b'), std::string::npos);
  EXPECT_EQ(name.find('\xff'), std::string::npos);
  EXPECT_LT(name.size(), 1100u) << "bounded";
}

TEST(ProcessContext, AKeyMapOver256KeysIsRefusedAndTheRestKept) {
  Message values;
  for (int i = 0; i < 300; ++i) values.field(1, stringValue("k" + std::to_string(i)));
  Message message;
  message.field(1, Message().field(1, keyValue("service.name", stringValue("svc"))))
      .field(2, keyValue("threadlocal.schema_version", stringValue("tls_v1")))
      .field(2, keyValue("threadlocal.attribute_key_map", Message().field(5, values)));
  const ProcessContext context = decodeProcessContext(message.bytes);
  EXPECT_EQ(*context.resourceValue("service.name"), "svc");
  EXPECT_TRUE(context.threadKeys.empty());
  EXPECT_NE(context.threadKeysProblem.find("more than 256"), std::string::npos);
  EXPECT_FALSE(context.publishesThreadContext());
}

TEST(ProcessContext, MalformedMessagesAreRefusedByName) {
  // A length past the end, a varint that never ends, a group.
  for (const std::vector<uint8_t>& bytes :
       {std::vector<uint8_t>{0x0a, 0x40, 0x0a}, std::vector<uint8_t>(12, 0xff), std::vector<uint8_t>{0x0b, 0x0c}}) {
    try {
      decodeProcessContext(bytes);
      ADD_FAILURE() << "accepted a malformed message";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("malformed process context"), std::string::npos) << e.what();
    }
  }
}

// A process's memory as a test makes it: regions, and what happens on each read.
class FakeMemory final : public unwind::MemoryReader {
 public:
  std::map<uint64_t, std::vector<uint8_t>> regions;
  std::function<void(int)> onRead;  // called before read n (from 0)

  bool read(uint64_t address, std::span<uint8_t> out) const override {
    if (onRead) onRead(reads_);
    ++reads_;
    for (const auto& [start, bytes] : regions) {
      if (address >= start && address + out.size() <= start + bytes.size()) {
        std::memcpy(out.data(), bytes.data() + (address - start), out.size());
        return true;
      }
    }
    return false;
  }

 private:
  mutable int reads_ = 0;
};

constexpr uint64_t kHeader = 0x10000;
constexpr uint64_t kPayload = 0x20000;

std::vector<uint8_t> header(uint32_t version, uint32_t size, uint64_t publishedAt, uint64_t payload,
                            const char* signature = "OTEL_CTX") {
  std::vector<uint8_t> bytes(32);
  std::memcpy(bytes.data(), signature, 8);
  std::memcpy(bytes.data() + 8, &version, 4);
  std::memcpy(bytes.data() + 12, &size, 4);
  std::memcpy(bytes.data() + 16, &publishedAt, 8);
  std::memcpy(bytes.data() + 24, &payload, 8);
  return bytes;
}

std::string readError(const FakeMemory& memory) {
  try {
    readProcessContext(memory, kHeader);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(ProcessContext, HostileHeadersCostOneClearRefusal) {
  const std::vector<uint8_t> payload = Message().field(1, Message().field(1, keyValue("service.name", stringValue("s")))).bytes;
  const auto size = static_cast<uint32_t>(payload.size());
  FakeMemory memory;
  memory.regions[kPayload] = payload;
  memory.regions[kHeader] = header(2, size, 5, kPayload, "OTEL_CTY");
  EXPECT_NE(readError(memory).find("signature"), std::string::npos);
  memory.regions[kHeader] = header(1, size, 5, kPayload);
  EXPECT_NE(readError(memory).find("version 1"), std::string::npos);
  memory.regions[kHeader] = header(2, 1u << 20, 5, kPayload);
  EXPECT_NE(readError(memory).find("at most 65536"), std::string::npos);
  memory.regions[kHeader] = header(2, size, 5, 0xdead0000);
  EXPECT_NE(readError(memory).find("payload unreadable"), std::string::npos);
  memory.regions[kHeader] = header(2, size, 0, kPayload);
  EXPECT_NE(readError(memory).find("kept changing"), std::string::npos) << "an update that never ends";
  memory.regions.erase(kHeader);
  EXPECT_NE(readError(memory).find("unreadable"), std::string::npos) << "the mapping went away";
  memory.regions[kHeader] = header(2, size, 5, kPayload);
  EXPECT_EQ(readError(memory), "");
}

TEST(ProcessContext, AnUpdateDuringTheReadIsReadAgain) {
  const std::vector<uint8_t> before = Message().field(1, Message().field(1, keyValue("service.name", stringValue("old")))).bytes;
  const std::vector<uint8_t> after = Message().field(1, Message().field(1, keyValue("service.name", stringValue("new")))).bytes;
  FakeMemory memory;
  memory.regions[kPayload] = before;
  memory.regions[kPayload + 0x1000] = after;
  memory.regions[kHeader] = header(2, static_cast<uint32_t>(before.size()), 5, kPayload);
  // Reads: 0 header, 1 payload, 2 published_at. The writer publishes between 1 and 2.
  memory.onRead = [&](int n) {
    if (n == 2) memory.regions[kHeader] = header(2, static_cast<uint32_t>(after.size()), 6, kPayload + 0x1000);
  };
  const ProcessContext context = readProcessContext(memory, kHeader);
  EXPECT_EQ(*context.resourceValue("service.name"), "new");
  EXPECT_EQ(context.publishedAtNs, 6u);
}

TEST(ProcessContext, OnlyTheOtepsMappingNamesAreTakenAndNeverExecutableOnes) {
  const std::vector<proc::Mapping> maps = proc::parseMaps(
      "7f0000000000-7f0000001000 r-xp 00000000 00:01 5 /memfd:OTEL_CTX (deleted)\n"
      "7f0000002000-7f0000003000 rw-p 00000000 00:01 6 /memfd:OTEL_CTXS (deleted)\n"
      "7f0000004000-7f0000005000 rw-p 00000000 00:01 7 /memfd:jit (deleted)\n");
  EXPECT_EQ(findProcessContextMapping(maps), nullptr) << "the executable one is refused, OTEL_CTXS is another";
  const std::vector<proc::Mapping> named = proc::parseMaps(
      "7f0000002000-7f0000003000 rw-p 00000000 00:01 6 /memfd:OTEL_CTXS (deleted)\n"
      "7f0000006000-7f0000007000 rw-s 00000000 00:01 8 [anon_shmem:OTEL_CTX]\n");
  ASSERT_NE(findProcessContextMapping(named), nullptr);
  EXPECT_EQ(findProcessContextMapping(named)->start, 0x7f0000006000u);
}

}  // namespace
}  // namespace jfrbpf::otel
