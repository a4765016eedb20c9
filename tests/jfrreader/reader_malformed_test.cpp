// Malformed input of every kind must end in a one-line jfrbpf::Error naming the offset — never a crash,
// hang, or allocation beyond what the input justifies.
#include <gtest/gtest.h>

#include <string>

#include "formats/jfr/reader/recording.h"
#include "tests/jfrreader/jfr_bytes.h"

namespace jfrbpf::jfr::reader {
namespace {

using namespace jfrbpf::jfr::testing;

// Opens and fully reads `bytes`; returns the number of events.
size_t readAll(const std::vector<uint8_t>& bytes) {
  size_t events = 0;
  Recording::fromBytes(bytes).forEachEvent([&](const RecordedEvent& e) {
    ++events;
    // Touch what consumers touch, so lazily wrong values would show up under the sanitizers.
    StackTraceView stack(e.get("stackTrace"));
    for (size_t i = 0; i < stack.size(); ++i) (void)stack.frame(i);
    (void)threadOf(e);
  });
  return events;
}

// The error `bytes` produce; fails the test when they produce none.
std::string errorOf(const std::vector<uint8_t>& bytes) {
  try {
    readAll(bytes);
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << "messages are one line: " << message;
    return message;
  }
  ADD_FAILURE() << "no error for malformed input";
  return {};
}

void patch64(std::vector<uint8_t>& bytes, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes[at + i] = uint8_t(v >> (56 - 8 * i));
}

std::vector<TypeSpec> typesWith(std::vector<TypeSpec> extra) {
  auto types = standardTypes();
  types.insert(types.end(), extra.begin(), extra.end());
  return types;
}

std::vector<TypeSpec> sampleTypes() { return typesWith({sampleEventType()}); }

TEST(JfrReaderMalformed, TruncatedAtEveryByteFails) {
  auto bytes = sampleRecording(3);
  ASSERT_EQ(readAll(bytes), 3u);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<long>(cut));
    EXPECT_THROW(readAll(prefix), Error) << "cut at " << cut;
  }
}

TEST(JfrReaderMalformed, TruncatedWithConsistentChunkSizeNeverCrashes) {
  // The header is patched to claim exactly the bytes that remain, so every record boundary gets cut.
  auto bytes = sampleRecording(3, 4);
  size_t accepted = 0;
  for (size_t cut = ChunkHeader::kSize; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<long>(cut));
    patch64(prefix, 8, cut);
    try {
      readAll(prefix);
      ++accepted;
    } catch (const Error&) {
    }
  }
  // The checkpoint is last and the header points at it, so no proper prefix is a valid chunk.
  EXPECT_EQ(accepted, 0u);
}

TEST(JfrReaderMalformed, EveryByteFlippedNeverCrashes) {
  auto bytes = sampleRecording(2);
  size_t errors = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {0xFF, 0x80, 0x01}) {
      auto mutated = bytes;
      mutated[i] ^= mask;
      try {
        readAll(mutated);
      } catch (const Error&) {
        ++errors;
      }
    }
  }
  EXPECT_GT(errors, bytes.size());  // most mutations are detected; none may crash
}

TEST(JfrReaderMalformed, EmptyFile) { EXPECT_NE(errorOf({}).find("empty"), std::string::npos); }

TEST(JfrReaderMalformed, BadMagic) {
  auto bytes = sampleRecording();
  bytes[0] = 'X';
  auto message = errorOf(bytes);
  EXPECT_NE(message.find("offset 0: "), std::string::npos) << message;
  EXPECT_NE(message.find("magic"), std::string::npos) << message;
}

TEST(JfrReaderMalformed, UnsupportedVersion) {
  auto bytes = sampleRecording();
  bytes[5] = 3;
  EXPECT_NE(errorOf(bytes).find("version 3.1"), std::string::npos);
}

TEST(JfrReaderMalformed, BadChunkSizes) {
  auto bytes = sampleRecording();
  auto tooSmall = bytes;
  patch64(tooSmall, 8, 10);
  EXPECT_NE(errorOf(tooSmall).find("chunk size 10"), std::string::npos);
  auto tooBig = bytes;
  patch64(tooBig, 8, bytes.size() + 1);
  EXPECT_NE(errorOf(tooBig).find("bytes left in the file"), std::string::npos);
  auto negative = bytes;
  patch64(negative, 8, uint64_t(-1));
  EXPECT_NE(errorOf(negative).find("chunk size -1"), std::string::npos);
  auto inProgress = tooBig;
  inProgress[64] = 255;  // a chunk the JVM is still writing
  EXPECT_NE(errorOf(inProgress).find("still being written"), std::string::npos);
  auto trailing = bytes;
  trailing.insert(trailing.end(), 16, 0);  // pitfall 6: zeros after the last chunk
  EXPECT_NE(errorOf(trailing).find("trailing"), std::string::npos);
}

TEST(JfrReaderMalformed, BadHeaderOffsetsAndClock) {
  auto bytes = sampleRecording();
  auto noMetadata = bytes;
  patch64(noMetadata, 24, 0);
  EXPECT_NE(errorOf(noMetadata).find("not finished"), std::string::npos);
  auto metadataOutside = bytes;
  patch64(metadataOutside, 24, bytes.size());
  EXPECT_NE(errorOf(metadataOutside).find("metadata offset"), std::string::npos);
  auto poolOutside = bytes;
  patch64(poolOutside, 16, 5);
  EXPECT_NE(errorOf(poolOutside).find("constant pool offset 5"), std::string::npos);
  auto noClock = bytes;
  patch64(noClock, 56, 0);
  EXPECT_NE(errorOf(noClock).find("ticks per second"), std::string::npos);
  auto metadataAtEvent = bytes;
  patch64(metadataAtEvent, 24, 68 + metadataBody(sampleTypes()).size() + 2);  // the first event
  EXPECT_NE(errorOf(metadataAtEvent).find("type id 0"), std::string::npos);
}

TEST(JfrReaderMalformed, BadRecordSizes) {
  auto zero = ChunkBuilder().metadata(metadataBody(sampleTypes())).rawRecord(Bytes().u8(0)).build();
  EXPECT_NE(errorOf(zero).find("record size 0"), std::string::npos);
  auto past = ChunkBuilder().metadata(metadataBody(sampleTypes())).rawRecord(Bytes().varint(200).u8(1)).build();
  EXPECT_NE(errorOf(past).find("record size 200"), std::string::npos);
  // An event whose fields need more bytes than its size.
  Bytes shortEvent;
  shortEvent.varint(3).varint(ids::kSample).varint(1);
  auto inside = ChunkBuilder().metadata(metadataBody(sampleTypes())).rawRecord(shortEvent).build();
  EXPECT_NE(errorOf(inside).find("past the end of its record"), std::string::npos);
}

TEST(JfrReaderMalformed, HugeCountsAreBoundedByTheBytesLeft) {
  // Metadata string count, element counts, event arrays, pool counts and string lengths of 2^62.
  const uint64_t huge = uint64_t(1) << 62;
  Bytes metadata;
  metadata.varint(0).varint(0).varint(0).varint(1).varint(huge);
  auto m = ChunkBuilder().metadata(metadata).build();
  EXPECT_NE(errorOf(m).find("metadata string count"), std::string::npos);

  auto type = TypeSpec{200, "test.E", "jdk.jfr.Event", false, {{"startTime", ids::kLong}, {"xs", ids::kInt, false, true}}};
  auto array = ChunkBuilder().metadata(metadataBody(typesWith({type}))).event(Bytes().varint(200).varint(1).varint(huge)).build();
  EXPECT_NE(errorOf(array).find("array element count"), std::string::npos);

  auto pools = ChunkBuilder().metadata(metadataBody(sampleTypes())).checkpoint(Bytes().varint(huge)).build();
  EXPECT_NE(errorOf(pools).find("constant pool count"), std::string::npos);

  auto entries =
      ChunkBuilder().metadata(metadataBody(sampleTypes())).checkpoint(Bytes().varint(1).varint(ids::kSymbol).varint(huge)).build();
  EXPECT_NE(errorOf(entries).find("constant count"), std::string::npos);

  auto stype = TypeSpec{200, "test.E", "jdk.jfr.Event", false, {{"startTime", ids::kLong}, {"s", ids::kString}}};
  for (uint8_t encoding : {3, 4, 5}) {
    auto string = ChunkBuilder()
                      .metadata(metadataBody(typesWith({stype})))
                      .event(Bytes().varint(200).varint(1).u8(encoding).varint(huge))
                      .build();
    EXPECT_NE(errorOf(string).find("string"), std::string::npos) << int(encoding);
  }
}

TEST(JfrReaderMalformed, UnknownStringEncoding) {
  auto stype = TypeSpec{200, "test.E", "jdk.jfr.Event", false, {{"startTime", ids::kLong}, {"s", ids::kString}}};
  auto bytes = ChunkBuilder().metadata(metadataBody(typesWith({stype}))).event(Bytes().varint(200).varint(1).u8(9)).build();
  EXPECT_NE(errorOf(bytes).find("unknown string encoding 9"), std::string::npos);
}

TEST(JfrReaderMalformed, CheckpointChainsThatLoopOrPointAnywhere) {
  Bytes pools = poolsBody({{ids::kSymbol, {{1, symbolValue("x")}}}});
  // Forward delta (would loop back onto itself).
  auto forward = ChunkBuilder().metadata(metadataBody(sampleTypes())).checkpoint(pools, 10).build();
  EXPECT_NE(errorOf(forward).find("delta 10"), std::string::npos);
  // Two checkpoints whose deltas point at each other: the second points back, the first points forward.
  auto cycle = ChunkBuilder().metadata(metadataBody(sampleTypes())).checkpoint(pools, 40).checkpoint(pools).build();
  EXPECT_THROW(readAll(cycle), Error);
  // A delta leading before the first record, and one leading into the middle of the metadata.
  auto before = ChunkBuilder().metadata(metadataBody(sampleTypes())).checkpoint(pools, -100000).build();
  EXPECT_NE(errorOf(before).find("does not lead to an earlier record"), std::string::npos);
  auto intoMetadata = ChunkBuilder().metadata(metadataBody(sampleTypes())).checkpoint(pools, -5).build();
  EXPECT_THROW(readAll(intoMetadata), Error);
  // The header's pool offset pointing at an event instead of a checkpoint.
  auto notCheckpoint = ChunkBuilder().metadata(metadataBody(sampleTypes())).event(sampleEvent(1, 0, 0, 0, 0)).build();
  patch64(notCheckpoint, 16, notCheckpoint.size() - sampleEvent(1, 0, 0, 0, 0).size() - 1);
  EXPECT_NE(errorOf(notCheckpoint).find("does not lead to a checkpoint"), std::string::npos);
}

TEST(JfrReaderMalformed, CheckpointContentMustMatchItsSize) {
  Bytes pools = poolsBody({{ids::kSymbol, {{1, symbolValue("x")}}}});
  pools.raw({0, 0, 0});
  auto bytes = ChunkBuilder().metadata(metadataBody(sampleTypes())).checkpoint(pools).build();
  EXPECT_NE(errorOf(bytes).find("checkpoint content ends 3 bytes before"), std::string::npos);
  auto undeclared =
      ChunkBuilder().metadata(metadataBody(sampleTypes())).checkpoint(poolsBody({{999, {{1, symbolValue("x")}}}})).build();
  EXPECT_NE(errorOf(undeclared).find("undeclared type id 999"), std::string::npos);
}

TEST(JfrReaderMalformed, ConstantReferenceLoops) {
  // A String-pool entry that is a reference to itself, and two simple types referring to each other.
  TypeSpec a{160, "test.A", "", true, {{"b", 161, true}}};
  TypeSpec b{161, "test.B", "", true, {{"a", 160, true}}};
  auto e = TypeSpec{200, "test.E", "jdk.jfr.Event", false, {{"startTime", ids::kLong}, {"s", ids::kString}, {"a", 160, true}}};
  auto self = ChunkBuilder()
                  .metadata(metadataBody(typesWith({a, b, e})))
                  .event(Bytes().varint(200).varint(1).stringRef(1).varint(0))
                  .checkpoint(poolsBody({{ids::kString, {{1, Bytes().stringRef(1)}}}}))
                  .build();
  EXPECT_NE(errorOf(self).find("loop"), std::string::npos);
  auto mutual = ChunkBuilder()
                    .metadata(metadataBody(typesWith({a, b, e})))
                    .event(Bytes().varint(200).varint(1).nullString().varint(1))
                    .checkpoint(poolsBody({{160, {{1, Bytes().varint(1)}}}, {161, {{1, Bytes().varint(1)}}}}))
                    .build();
  EXPECT_NE(errorOf(mutual).find("loop"), std::string::npos);
}

TEST(JfrReaderMalformed, DeepNesting) {
  // Metadata elements nested 1000 deep.
  Bytes metadata;
  metadata.varint(0).varint(0).varint(0).varint(1).varint(1).utf8("x");
  for (int i = 0; i < 1000; ++i) metadata.varint(0).varint(0).varint(1);
  metadata.varint(0).varint(0).varint(0);
  auto elements = ChunkBuilder().metadata(metadata).build();
  EXPECT_NE(errorOf(elements).find("nested deeper"), std::string::npos);

  // Inline struct types nested 100 deep, and a type containing itself.
  std::vector<TypeSpec> chain;
  for (int i = 0; i < 100; ++i) chain.push_back({1000 + i, "test.N" + std::to_string(i), "", false, {{"next", 1001 + i}}});
  chain.push_back({1100, "test.Leaf", "", false, {{"v", ids::kInt}}});
  auto deep = ChunkBuilder().metadata(metadataBody(typesWith(chain))).build();
  EXPECT_NE(errorOf(deep).find("deeper than 32"), std::string::npos);
  TypeSpec selfType{170, "test.Self", "", false, {{"inner", 170}}};
  auto self = ChunkBuilder().metadata(metadataBody(typesWith({selfType}))).build();
  EXPECT_NE(errorOf(self).find("contains itself"), std::string::npos);
}

TEST(JfrReaderMalformed, InlineTypesWithoutDataAreRejected) {
  // An array of empty structs costs no bytes per element: a few bytes could claim billions of values.
  TypeSpec empty{170, "test.Empty"};
  TypeSpec holder{171, "test.Holder", "", false, {{"items", 170, false, true}}};
  auto bytes = ChunkBuilder().metadata(metadataBody(typesWith({empty, holder}))).build();
  EXPECT_NE(errorOf(bytes).find("field 'test.Holder.items' stores type 'test.Empty' inline, which occupies no bytes"),
            std::string::npos);
  // Referenced through a pool, an empty type is fine: each use costs a key.
  TypeSpec byReference{171, "test.Holder", "", false, {{"items", 170, true, true}}};
  auto event = TypeSpec{200, "test.E", "jdk.jfr.Event", false, {{"startTime", ids::kLong}, {"h", 171}}};
  auto ok = ChunkBuilder()
                .metadata(metadataBody(typesWith({empty, byReference, event})))
                .event(Bytes().varint(200).varint(1).varint(2).varint(1).varint(2))
                .checkpoint(poolsBody({{170, {{1, Bytes()}}}}))
                .build();
  EXPECT_EQ(readAll(ok), 1u);
}

TEST(JfrReaderMalformed, EventTypesCannotClaimTheMetadataOrCheckpointIds) {
  TypeSpec claimsCheckpoints{1, "test.ClaimsCheckpoints", "jdk.jfr.Event", false, {{"startTime", ids::kLong}}};
  TypeSpec claimsMetadata{0, "test.ClaimsMetadata", "jdk.jfr.Event", false, {{"startTime", ids::kLong}}};
  auto bytes = ChunkBuilder()
                   .metadata(metadataBody(typesWith({sampleEventType(), claimsCheckpoints, claimsMetadata})))
                   .event(sampleEvent(5'000'000'000, 0, 1, 1, 0))
                   .checkpoint(samplePools())
                   .build();
  std::vector<std::string> types;
  Recording::fromBytes(bytes).forEachEvent([&](const RecordedEvent& e) { types.push_back(e.type().name); });
  EXPECT_EQ(types, std::vector<std::string>{"test.Sample"});
}

TEST(JfrReaderMalformed, InconsistentMetadata) {
  TypeSpec dangling{170, "test.Dangling", "", false, {{"x", 4242}}};
  EXPECT_NE(errorOf(ChunkBuilder().metadata(metadataBody(typesWith({dangling}))).build()).find("undeclared type id 4242"),
            std::string::npos);
  TypeSpec duplicate{ids::kThread, "test.Duplicate"};
  EXPECT_NE(errorOf(ChunkBuilder().metadata(metadataBody(typesWith({duplicate}))).build()).find("declared twice"),
            std::string::npos);
  // Metadata strings may not be constant-pool references.
  Bytes poolString;
  poolString.varint(0).varint(0).varint(0).varint(1).varint(1).stringRef(0).varint(0).varint(0).varint(0);
  EXPECT_NE(errorOf(ChunkBuilder().metadata(poolString).build()).find("encoding 2"), std::string::npos);
  // A string index outside the table.
  Bytes badIndex;
  badIndex.varint(0).varint(0).varint(0).varint(1).varint(1).utf8("root").varint(7).varint(0).varint(0);
  EXPECT_NE(errorOf(ChunkBuilder().metadata(badIndex).build()).find("string index 7"), std::string::npos);
}

}  // namespace
}  // namespace jfrbpf::jfr::reader
