// The reader against hand-built chunks: every wire feature JDK and third-party writers use.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "formats/jfr/reader/recording.h"
#include "test_config.h"
#include "tests/jfrreader/jfr_bytes.h"
#include "tests/jfrreader/value_text.h"

namespace jfrbpf::jfr::reader {
namespace {

using namespace jfrbpf::jfr::testing;

std::vector<std::string> eventTexts(const std::vector<uint8_t>& bytes, const TypeFilter& filter = {}) {
  auto recording = Recording::fromBytes(bytes);
  std::vector<std::string> out;
  recording.forEachEvent([&](const RecordedEvent& e) { out.push_back(e.type().name + objectText(e)); }, filter);
  return out;
}

// One chunk: standard types plus `extra`, metadata first, then events, then one checkpoint.
std::vector<uint8_t> chunkWith(std::vector<TypeSpec> extra, const Bytes& pools, const std::vector<Bytes>& events) {
  auto types = standardTypes();
  types.insert(types.end(), extra.begin(), extra.end());
  ChunkBuilder chunk;
  chunk.metadata(metadataBody(types));
  for (const Bytes& e : events) chunk.event(e);
  chunk.checkpoint(pools);
  return chunk.build();
}

constexpr int64_t kEvent = 200;  // id of the ad-hoc event type each test declares

TypeSpec eventType(std::vector<FieldSpec> fields, std::string name = "test.Event") {
  std::vector<FieldSpec> all = {{"startTime", ids::kLong, false, false, {{ids::kTimestamp, {{"value", "TICKS"}}}}}};
  all.insert(all.end(), fields.begin(), fields.end());
  return {kEvent, std::move(name), "jdk.jfr.Event", false, all};
}

const std::string kWork = "{type={name=\"com/example/Work\"}, name=";
const std::string kMain = "eventThread={osName=\"main\", osThreadId=1001, javaName=\"main\", javaThreadId=1}";
const std::string kWorker = "eventThread={osName=\"worker-é\", osThreadId=1002, javaName=null, javaThreadId=0}";
const std::string kTrace1 = "stackTrace={truncated=false, frames=[{method=" + kWork +
                            "\"compute\", descriptor=\"(I)J\"}, lineNumber=12, bytecodeIndex=7, type=\"JIT compiled\"}, "
                            "{method=" + kWork + "\"main\", descriptor=\"([Ljava/lang/String;)V\"}, lineNumber=30, "
                            "bytecodeIndex=2, type=\"Interpreted\"}]}";
const std::string kTrace2 = "stackTrace={truncated=true, frames=[{method=" + kWork +
                            "\"compute\", descriptor=\"(I)J\"}, lineNumber=13, bytecodeIndex=9, type=\"Inlined\"}]}";

TEST(JfrReaderFormat, ReadsHeaderAndMetadata) {
  auto recording = Recording::fromBytes(sampleRecording());
  ASSERT_EQ(recording.chunks().size(), 1u);
  const ChunkHeader& h = recording.chunks()[0];
  EXPECT_EQ(h.major, 2);
  EXPECT_EQ(h.minor, 1);
  EXPECT_EQ(h.size, static_cast<int64_t>(recording.bytes().size()));
  EXPECT_EQ(h.metadataOffset, 68);
  EXPECT_EQ(h.startNanos, 1'700'000'000'000'000'000);
  EXPECT_EQ(h.startTicks, 5'000'000'000);
  EXPECT_EQ(h.ticksPerSecond, 1'000'000'000);
  EXPECT_TRUE(h.finished());
  EXPECT_TRUE(h.finalChunk());

  int chunks = 0;
  recording.forEachChunk([&](const Chunk& chunk) {
    ++chunks;
    const Metadata& m = chunk.metadata();
    EXPECT_EQ(m.id(), 1);
    const TypeInfo* sample = m.byName("test.Sample");
    ASSERT_NE(sample, nullptr);
    EXPECT_EQ(m.byId(ids::kSample), sample);
    EXPECT_TRUE(sample->isEvent());
    EXPECT_EQ(sample->label, "Sample");
    EXPECT_EQ(sample->description, "A test sample");
    EXPECT_EQ(sample->category, (std::vector<std::string>{"Tests", "Reader"}));
    ASSERT_EQ(sample->fields.size(), 5u);
    EXPECT_EQ(sample->fields[0].name, "startTime");
    EXPECT_EQ(sample->fields[0].contentType, "jdk.jfr.Timestamp");
    EXPECT_EQ(sample->fields[0].unit, "TICKS");
    EXPECT_EQ(sample->fields[0].label, "Start Time");
    EXPECT_EQ(sample->fields[1].contentType, "jdk.jfr.Timespan");
    EXPECT_TRUE(sample->fields[2].constantPool);
    EXPECT_EQ(sample->fields[2].type->name, "java.lang.Thread");
    EXPECT_EQ(sample->fields[4].contentType, "");
    EXPECT_EQ(sample->fieldIndex("weight"), 4u);
    EXPECT_FALSE(sample->fieldIndex("nope"));
    EXPECT_TRUE(m.byName("jdk.types.Symbol")->simple);
    EXPECT_TRUE(m.byName("java.lang.String")->isPrimitive());
    EXPECT_FALSE(m.byName("java.lang.Thread")->isPrimitive());
    const TypeInfo* frame = m.byName("jdk.types.StackTrace");
    EXPECT_TRUE(frame->fields[1].array);
    EXPECT_EQ(m.byName("jdk.jfr.Category")->fields[0].array, true);
  });
  EXPECT_EQ(chunks, 1);
}

TEST(JfrReaderFormat, AnnotationArraysInAnyOrderEndAtTheFirstGap) {
  TypeSpec sample = sampleEventType();
  sample.annotations = {{ids::kCategory, {{"value-1", "b"}, {"value-3", "d"}, {"value-0", "a"}, {"value-x", "?"}}},
                        {ids::kLabel, {{"value", "L"}}}};
  auto types = standardTypes();
  types.push_back(sample);
  Recording::fromBytes(ChunkBuilder().metadata(metadataBody(types)).build()).forEachChunk([](const Chunk& chunk) {
    const TypeInfo* type = chunk.metadata().byName("test.Sample");
    ASSERT_NE(type, nullptr);
    EXPECT_EQ(type->category, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(type->label, "L");
    const AnnotationInfo* category = type->annotation("jdk.jfr.Category");
    ASSERT_NE(category, nullptr);
    EXPECT_EQ(category->typeName(), "jdk.jfr.Category");
    EXPECT_EQ(category->value("value-3"), "d");
    EXPECT_FALSE(category->value());
    EXPECT_EQ(chunk.metadata().byId(ids::kCategory), category->type);
    EXPECT_EQ(chunk.metadata().byId(12345), nullptr);
    EXPECT_EQ(chunk.metadata().byName("no.such.Type"), nullptr);
  });
}

TEST(JfrReaderFormat, ReadsEventsWithResolvedConstants) {
  auto texts = eventTexts(sampleRecording(3));
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[0], "test.Sample{startTime=5000000000, duration=0, " + kMain + ", " + kTrace1 + ", weight=0}");
  EXPECT_EQ(texts[1], "test.Sample{startTime=5000001000, duration=10, " + kWorker + ", " + kTrace2 + ", weight=1}");
  EXPECT_EQ(texts[2], "test.Sample{startTime=5000002000, duration=20, " + kMain + ", " + kTrace1 + ", weight=2}");
}

TEST(JfrReaderFormat, TypedViewsOfStacksThreadsAndTimes) {
  auto recording = Recording::fromBytes(sampleRecording(2));
  std::vector<const RecordedObject*> traces;
  int seen = 0;
  recording.forEachEvent([&](const RecordedEvent& e) {
    EXPECT_EQ(e.startTicks(), 5'000'000'000 + 1000 * seen);
    EXPECT_EQ(e.startTimeNanos(), 1'700'000'000'000'000'000 + 1000 * seen);
    EXPECT_EQ(e.durationNanos(), 10 * seen);
    EXPECT_EQ(e.endTimeNanos(), e.startTimeNanos() + 10 * seen);
    EXPECT_EQ(e.timestampNanos("startTime"), e.startTimeNanos());
    EXPECT_FALSE(e.timestampNanos("weight"));
    EXPECT_FALSE(e.timespanNanos("nope"));
    EXPECT_EQ(e.getLong("weight"), seen);

    StackTraceView stack(e.get("stackTrace"));
    ASSERT_TRUE(stack.present());
    traces.push_back(stack.object());
    auto thread = threadOf(e);
    ASSERT_TRUE(thread);
    if (seen == 0) {
      EXPECT_FALSE(stack.truncated());
      auto frames = stack.frames();
      ASSERT_EQ(frames.size(), 2u);
      EXPECT_EQ(frames[0].className, "com/example/Work");
      EXPECT_EQ(frames[0].methodName, "compute");
      EXPECT_EQ(frames[0].descriptor, "(I)J");
      EXPECT_EQ(frames[0].lineNumber, 12);
      EXPECT_EQ(frames[0].bytecodeIndex, 7);
      EXPECT_EQ(frames[0].type, "JIT compiled");
      EXPECT_EQ(frames[1].methodName, "main");
      EXPECT_EQ(frames[1].type, "Interpreted");
      EXPECT_NE(frames[0].method, frames[1].method);
      EXPECT_EQ(thread->osName, "main");
      EXPECT_EQ(thread->osThreadId, 1001);
      EXPECT_EQ(thread->javaName, "main");
      EXPECT_EQ(thread->javaThreadId, 1);
      EXPECT_FALSE(thread->virtualThread);
    } else {
      EXPECT_TRUE(stack.truncated());
      EXPECT_EQ(stack.size(), 1u);
      EXPECT_EQ(stack.frame(0).type, "Inlined");
      EXPECT_EQ(stack.frame(5).methodName, "");  // out of range: empty
      EXPECT_EQ(thread->osName, "worker-é");
      EXPECT_EQ(thread->javaName, "");
      EXPECT_EQ(thread->javaThreadId, 0);
    }
    ++seen;
  });
  EXPECT_EQ(seen, 2);
  EXPECT_NE(traces[0], traces[1]);
  EXPECT_EQ(javaClassName("java/util/HashMap$Node"), "java.util.HashMap$Node");
  EXPECT_FALSE(StackTraceView(Value()).present());
  EXPECT_FALSE(threadInfo(Value()));
}

TEST(JfrReaderFormat, EveryStringEncoding) {
  auto type = eventType({{"none", ids::kString},
                         {"empty", ids::kString},
                         {"utf8", ids::kString},
                         {"latin1", ids::kString},
                         {"chars", ids::kString},
                         {"pooled", ids::kString},
                         {"missing", ids::kString},
                         {"lone", ids::kString}});
  Bytes event;
  event.varint(kEvent).varint(1);
  event.nullString().emptyString().utf8("h\xc3\xa9llo \xe2\x9c\x93").latin1("caf\xe9 \xff");
  event.charArray(u"\u03bb\U0001F600!").stringRef(7).stringRef(99).charArray(std::u16string(1, char16_t(0xD800)));
  auto pools = poolsBody({{ids::kString, {{7, Bytes().utf8("from the pool")}}}});
  auto texts = eventTexts(chunkWith({type}, pools, {event}));
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0],
            "test.Event{startTime=1, none=null, empty=\"\", utf8=\"héllo ✓\", latin1=\"café ÿ\", "
            "chars=\"λ😀!\", pooled=\"from the pool\", missing=null, lone=\"\xef\xbf\xbd\"}");
}

class JfrReaderMetadataStrings : public ::testing::TestWithParam<StringStyle> {};

TEST_P(JfrReaderMetadataStrings, MetadataInAnyLiteralEncoding) {
  auto types = standardTypes();
  types.push_back(sampleEventType());
  auto bytes = ChunkBuilder()
                   .metadata(metadataBody(types, 1, GetParam()))
                   .event(sampleEvent(5'000'000'000, 0, 1, 1, 7))
                   .checkpoint(samplePools())
                   .build();
  auto texts = eventTexts(bytes);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], "test.Sample{startTime=5000000000, duration=0, " + kMain + ", " + kTrace1 + ", weight=7}");
}

INSTANTIATE_TEST_SUITE_P(JfrReader, JfrReaderMetadataStrings,
                         ::testing::Values(StringStyle::kUtf8, StringStyle::kCharArray, StringStyle::kLatin1),
                         [](const auto& info) {
                           switch (info.param) {
                             case StringStyle::kUtf8: return "Utf8";
                             case StringStyle::kCharArray: return "CharArray";
                             case StringStyle::kLatin1: return "Latin1";
                           }
                           return "Unknown";
                         });

TEST(JfrReaderFormat, PaddedVarintsEverywhere) {
  // HotSpot pads record sizes to 4 bytes and reserves fixed widths for values it patches later.
  Bytes event;
  event.paddedVarint(ids::kSample, 3)
      .paddedVarint(5'000'000'000, 8)
      .paddedVarint(0, 9)
      .paddedVarint(1, 4)
      .paddedVarint(2, 2)
      .paddedVarint(7, 5);
  auto types = standardTypes();
  types.push_back(sampleEventType());
  auto bytes =
      ChunkBuilder().sizeWidth(4).metadata(metadataBody(types)).event(event).checkpoint(samplePools()).build();
  auto texts = eventTexts(bytes);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], "test.Sample{startTime=5000000000, duration=0, " + kMain + ", " + kTrace2 + ", weight=7}");
}

TEST(JfrReaderFormat, NineByteAndNegativeValuesNarrowLikeJava) {
  auto type = eventType({{"minusOne", ids::kLong},
                         {"min", ids::kLong},
                         {"max", ids::kLong},
                         {"intZeroExtended", ids::kInt},
                         {"intSignExtended", ids::kInt},
                         {"shortWide", ids::kShort},
                         {"byteRaw", ids::kByte},
                         {"letter", ids::kChar},
                         {"ratio", ids::kFloat},
                         {"big", ids::kDouble},
                         {"flag", ids::kBoolean},
                         {"off", ids::kBoolean}});
  Bytes event;
  event.varint(kEvent).varint(1);
  event.varint(uint64_t(-1));
  event.raw({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80});  // Long.MIN_VALUE
  event.varint(uint64_t(std::numeric_limits<int64_t>::max()));
  event.varint(0xFFFFFFFFu);           // int -1 as HotSpot writes it: 5 bytes, zero-extended
  event.varint(uint64_t(int64_t(-2)));  // int -2 sign-extended to 9 bytes
  event.varint(0xFFFF);                // short -1
  event.u8(0xFE);                      // byte -2
  event.varint(0xE9);                  // 'é'
  event.f32(-2.5f).f64(-1e300).u8(2).u8(0);
  auto texts = eventTexts(chunkWith({type}, poolsBody({}), {event}));
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0],
            "test.Event{startTime=1, minusOne=-1, min=-9223372036854775808, max=9223372036854775807, "
            "intZeroExtended=-1, intSignExtended=-2, shortWide=-1, byteRaw=-2, letter=\"é\", ratio=-2.5, "
            "big=-1e+300, flag=true, off=false}");
}

TEST(JfrReaderFormat, CheckpointDeltaChainAndLateConstants) {
  // Constants refer to constants of later checkpoints (HotSpot writes a Class before its Symbols, events
  // before their stack traces); three checkpoints linked by deltas, one before the events, one between
  // them, one at the end.
  using namespace ids;
  auto types = standardTypes();
  types.push_back(sampleEventType());
  auto bytes =
      ChunkBuilder()
          .checkpoint(poolsBody({{kClass, {{1, classValue(1)}}}, {kMethod, {{1, methodValue(1, 2, 3)}}}}))
          .event(sampleEvent(5'000'000'000, 0, 1, 1, 0))
          .checkpoint(poolsBody({{kSymbol, {{1, symbolValue("A")}, {2, symbolValue("m")}, {3, symbolValue("()V")}}},
                                 {kThread, {{1, threadValue("t", 5, "t", 5)}}}}))
          .event(sampleEvent(5'000'000'001, 0, 1, 1, 1))
          .metadata(metadataBody(types))
          .checkpoint(poolsBody({{kStackTrace, {{1, stackTraceValue(false, {{1, 4, 2, 0}})}}},
                                 {kFrameType, {{0, Bytes().utf8("Interpreted")}}}}))
          .build();
  auto texts = eventTexts(bytes);
  ASSERT_EQ(texts.size(), 2u);
  const std::string rest =
      ", eventThread={osName=\"t\", osThreadId=5, javaName=\"t\", javaThreadId=5}, stackTrace={truncated=false, "
      "frames=[{method={type={name=\"A\"}, name=\"m\", descriptor=\"()V\"}, lineNumber=4, bytecodeIndex=2, "
      "type=\"Interpreted\"}]}, weight=";
  EXPECT_EQ(texts[0], "test.Sample{startTime=5000000000, duration=0" + rest + "0}");
  EXPECT_EQ(texts[1], "test.Sample{startTime=5000000001, duration=0" + rest + "1}");
}

TEST(JfrReaderFormat, RepeatedPoolTypesMergeAndLaterEntriesWin) {
  using namespace ids;
  auto type = eventType({{"a", kSymbol, true}, {"b", kSymbol, true}, {"c", kSymbol, true}});
  auto types = standardTypes();
  types.push_back(type);
  auto bytes = ChunkBuilder()
                   .metadata(metadataBody(types))
                   .checkpoint(poolsBody({{kSymbol, {{1, symbolValue("old")}, {2, symbolValue("two")}}}}))
                   .event(Bytes().varint(kEvent).varint(1).varint(1).varint(2).varint(3))
                   .checkpoint(poolsBody({{kSymbol, {{1, symbolValue("new")}, {3, symbolValue("three")}}},
                                          {kSymbol, {{3, symbolValue("three, again")}}}}))
                   .build();
  auto texts = eventTexts(bytes);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], "test.Event{startTime=1, a=\"new\", b=\"two\", c=\"three, again\"}");
}

TEST(JfrReaderFormat, MissingAndZeroKeysResolveToNull) {
  using namespace ids;
  auto pools = poolsBody({
      {kStackTrace, {{1, stackTraceValue(false, {{77, 5, 1, 9}})}}},
      {kThread, {{3, threadValue("x", 1, "x", 1)}}},
  });
  auto bytes = chunkWith({sampleEventType()}, pools,
                         {sampleEvent(10, 0, 0, 1, 0), sampleEvent(11, 0, 42, 0, 1), sampleEvent(12, 0, 3, 99, 2)});
  auto texts = eventTexts(bytes);
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[0], "test.Sample{startTime=10, duration=0, eventThread=null, stackTrace={truncated=false, "
                      "frames=[{method=null, lineNumber=5, bytecodeIndex=1, type=null}]}, weight=0}");
  EXPECT_EQ(texts[1], "test.Sample{startTime=11, duration=0, eventThread=null, stackTrace=null, weight=1}");
  EXPECT_EQ(texts[2], "test.Sample{startTime=12, duration=0, eventThread={osName=\"x\", osThreadId=1, "
                      "javaName=\"x\", javaThreadId=1}, stackTrace=null, weight=2}");

  auto recording = Recording::fromBytes(bytes);
  recording.forEachEvent([](const RecordedEvent& e) {
    StackTraceView stack(e.get("stackTrace"));
    if (!stack.present()) return;
    Frame f = stack.frame(0);
    EXPECT_EQ(f.method, nullptr);
    EXPECT_EQ(f.className, "");
    EXPECT_EQ(f.methodName, "");
    EXPECT_EQ(f.type, "");
    EXPECT_EQ(f.lineNumber, 5);
  });
}

TEST(JfrReaderFormat, UnknownEventTypesAreSkippedBySize) {
  Bytes unknown;
  unknown.varint(777).raw({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  Bytes declaredButNotAnEvent;  // a value type's id used as a record type
  declaredButNotAnEvent.varint(ids::kThread).raw({0xFF, 0xFF});
  auto types = standardTypes();
  types.push_back(sampleEventType());
  auto bytes = ChunkBuilder()
                   .metadata(metadataBody(types))
                   .event(unknown)
                   .event(sampleEvent(5'000'000'000, 0, 1, 1, 0))
                   .event(declaredButNotAnEvent)
                   .event(unknown)
                   .event(sampleEvent(5'000'000'001, 0, 1, 1, 1))
                   .checkpoint(samplePools())
                   .build();
  auto texts = eventTexts(bytes);
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_NE(texts[0].find("weight=0"), std::string::npos);
  EXPECT_NE(texts[1].find("weight=1"), std::string::npos);
}

TEST(JfrReaderFormat, TrailingBytesInsideAnEventAreIgnored) {
  Bytes event = sampleEvent(5'000'000'000, 0, 1, 1, 3);
  event.raw({0xAA, 0xBB, 0xCC});  // a newer writer's extra fields
  auto texts = eventTexts(chunkWith({sampleEventType()}, samplePools(), {event}));
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_NE(texts[0].find("weight=3"), std::string::npos);
}

TEST(JfrReaderFormat, ConcatenatedChunksEachUseTheirOwnSchemaPoolsAndClock) {
  auto first = sampleRecording(2);
  // Second chunk: the same event name under another id with an extra field, other constants, and a
  // microsecond clock.
  auto types = standardTypes();
  TypeSpec sample = sampleEventType();
  sample.id = 300;
  sample.fields.push_back({"extra", ids::kString});
  types.push_back(sample);
  Bytes event = Bytes().varint(300).varint(2'000).varint(500).varint(1).varint(0).varint(9).utf8("more");
  auto second = ChunkBuilder()
                    .startNanos(1'800'000'000'000'000'000)
                    .startTicks(1'000)
                    .ticksPerSecond(1'000'000)
                    .metadata(metadataBody(types, 2))
                    .event(event)
                    .checkpoint(poolsBody({{ids::kThread, {{1, threadValue("other", 7, "other", 9)}}}}))
                    .build();
  std::vector<uint8_t> both = first;
  both.insert(both.end(), second.begin(), second.end());

  auto recording = Recording::fromBytes(both);
  ASSERT_EQ(recording.chunks().size(), 2u);
  EXPECT_EQ(recording.chunks()[1].fileOffset, first.size());
  EXPECT_EQ(recording.chunks()[1].ticksPerSecond, 1'000'000);
  std::vector<std::string> texts;
  std::vector<int64_t> starts, durations;
  recording.forEachEvent([&](const RecordedEvent& e) {
    texts.push_back(objectText(e));
    starts.push_back(e.startTimeNanos());
    durations.push_back(e.durationNanos());
  });
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[2], "{startTime=2000, duration=500, eventThread={osName=\"other\", osThreadId=7, "
                      "javaName=\"other\", javaThreadId=9}, stackTrace=null, weight=9, extra=\"more\"}");
  EXPECT_EQ(starts[0], 1'700'000'000'000'000'000);
  EXPECT_EQ(starts[2], 1'800'000'000'000'000'000 + 1'000'000);  // 1000 µs after the chunk start
  EXPECT_EQ(durations[2], 500'000);
}

TEST(JfrReaderFormat, IdenticalMetadataOfConsecutiveChunksIsParsedOnce) {
  auto bytes = sampleRecording(2);
  auto again = sampleRecording(3);
  auto types = standardTypes();
  types.push_back(sampleEventType());
  types.back().fields.push_back({"extra", ids::kInt});  // different metadata: parsed anew
  auto different = ChunkBuilder()
                       .metadata(metadataBody(types))
                       .event(sampleEvent(5'000'000'000, 0, 1, 1, 4).varint(77))
                       .checkpoint(samplePools())
                       .build();
  bytes.insert(bytes.end(), again.begin(), again.end());
  bytes.insert(bytes.end(), different.begin(), different.end());
  auto recording = Recording::fromBytes(bytes);
  std::vector<const Metadata*> metadata;
  std::vector<size_t> events;
  recording.forEachChunk([&](const Chunk& chunk) {
    metadata.push_back(&chunk.metadata());
    events.push_back(0);
    chunk.forEachEvent([&](const RecordedEvent& e) {
      ++events.back();
      EXPECT_EQ(&e.type(), chunk.metadata().byName("test.Sample"));
      EXPECT_EQ(threadOf(e)->osThreadId, e.getLong("weight") % 2 == 0 ? 1001 : 1002);
    });
  });
  ASSERT_EQ(metadata.size(), 3u);
  EXPECT_EQ(metadata[0], metadata[1]);
  EXPECT_NE(metadata[1], metadata[2]);
  EXPECT_EQ(events, (std::vector<size_t>{2, 3, 1}));
}

TEST(JfrReaderFormat, MethodValuesOutsideStacks) {
  auto type = eventType({{"method", ids::kMethod, true}, {"other", ids::kMethod, true}});
  int seen = 0;
  Recording::fromBytes(chunkWith({type}, samplePools(), {Bytes().varint(kEvent).varint(1).varint(2).varint(0)}))
      .forEachEvent([&](const RecordedEvent& e) {
        ++seen;
        auto method = methodInfo(e.get("method"));
        ASSERT_TRUE(method);
        EXPECT_EQ(method->className, "com/example/Work");
        EXPECT_EQ(method->methodName, "main");
        EXPECT_EQ(method->descriptor, "([Ljava/lang/String;)V");
        EXPECT_EQ(method->object, e.getObject("method"));
        EXPECT_FALSE(methodInfo(e.get("other")));
      });
  EXPECT_EQ(seen, 1);
}

TEST(JfrReaderFormat, MetadataMayComeLast) {
  auto types = standardTypes();
  types.push_back(sampleEventType());
  auto bytes = ChunkBuilder()
                   .event(sampleEvent(5'000'000'000, 0, 2, 2, 1))
                   .checkpoint(samplePools())
                   .metadata(metadataBody(types))
                   .build();
  auto texts = eventTexts(bytes);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], "test.Sample{startTime=5000000000, duration=0, " + kWorker + ", " + kTrace2 + ", weight=1}");
}

TEST(JfrReaderFormat, ArraysAndInlineStructs) {
  using namespace ids;
  TypeSpec point{150, "test.Point", "", false, {{"x", kInt}, {"y", kInt}}};
  TypeSpec line{151, "test.Line", "", false, {{"from", 150}, {"to", 150}}};
  auto type = eventType({{"numbers", kInt, false, true},
                         {"names", kString, false, true},
                         {"origin", 150},
                         {"path", 150, false, true},
                         {"edge", 151},
                         {"threads", kThread, true, true}});
  Bytes event;
  event.varint(kEvent).varint(1);
  event.varint(3).varint(1).varint(uint64_t(-2)).varint(3);
  event.varint(2).utf8("a").nullString();
  event.varint(4).varint(5);
  event.varint(2).varint(1).varint(2).varint(3).varint(4);
  event.varint(0).varint(0).varint(9).varint(9);
  event.varint(2).varint(1).varint(8);
  auto texts = eventTexts(chunkWith({point, line, type}, samplePools(), {event}));
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0],
            "test.Event{startTime=1, numbers=[1, -2, 3], names=[\"a\", null], origin={x=4, y=5}, "
            "path=[{x=1, y=2}, {x=3, y=4}], edge={from={x=0, y=0}, to={x=9, y=9}}, threads=[{osName=\"main\", "
            "osThreadId=1001, javaName=\"main\", javaThreadId=1}, null]}");
}

TEST(JfrReaderFormat, TimeFieldsFollowTheirUnits) {
  using namespace ids;
  auto stamp = [](const char* unit) { return std::vector<AnnotationSpec>{{kTimestamp, {{"value", unit}}}}; };
  auto span = [](const char* unit) { return std::vector<AnnotationSpec>{{kTimespan, {{"value", unit}}}}; };
  auto type = eventType({{"duration", kLong, false, false, span("TICKS")},
                         {"wallMillis", kLong, false, false, stamp("MILLISECONDS_SINCE_EPOCH")},
                         {"spanNanos", kLong, false, false, span("NANOSECONDS")},
                         {"spanMillis", kLong, false, false, span("MILLISECONDS")},
                         {"spanMissing", kLong, false, false, span("MILLISECONDS")},
                         {"plain", kLong}});
  auto types = standardTypes();
  types.push_back(type);
  Bytes event;
  event.varint(kEvent).varint(3'000).varint(250).varint(1'700'000'000'123).varint(42).varint(7);
  event.varint(uint64_t(std::numeric_limits<int64_t>::min())).varint(5);
  auto bytes = ChunkBuilder()
                   .startNanos(1'000'000'000'000)
                   .startTicks(1'000)
                   .ticksPerSecond(1'000'000)  // 1 tick = 1 µs
                   .metadata(metadataBody(types))
                   .event(event)
                   .build();
  int seen = 0;
  Recording::fromBytes(bytes).forEachEvent([&](const RecordedEvent& e) {
    ++seen;
    EXPECT_EQ(e.startTimeNanos(), 1'000'000'000'000 + 2'000'000);
    EXPECT_EQ(e.durationNanos(), 250'000);
    EXPECT_EQ(e.timestampNanos("wallMillis"), 1'700'000'000'123'000'000);
    EXPECT_EQ(e.timespanNanos("spanNanos"), 42);
    EXPECT_EQ(e.timespanNanos("spanMillis"), 7'000'000);
    EXPECT_EQ(e.timespanNanos("spanMissing"), std::numeric_limits<int64_t>::min());
    EXPECT_FALSE(e.timespanNanos("plain"));
    EXPECT_FALSE(e.timestampNanos("spanNanos"));
    EXPECT_EQ(e.chunk().ticksToNanos(3), 3'000);
  });
  EXPECT_EQ(seen, 1);
}

TEST(JfrReaderFormat, TypeFilterDecodesOnlyChosenTypes) {
  auto other = eventType({{"text", ids::kString}}, "test.Other");
  auto bytes = chunkWith({sampleEventType(), other}, samplePools(),
                         {sampleEvent(1, 0, 1, 1, 0), Bytes().varint(kEvent).varint(2).utf8("x"),
                          sampleEvent(3, 0, 1, 1, 0)});
  int filterCalls = 0;
  auto texts = eventTexts(bytes, [&](const TypeInfo& type) {
    ++filterCalls;
    return type.name == "test.Other";
  });
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], "test.Other{startTime=2, text=\"x\"}");
  EXPECT_EQ(filterCalls, 2);  // once per event type of the chunk
  EXPECT_EQ(eventTexts(bytes).size(), 3u);
}

TEST(JfrReaderFormat, ConstantsCanBeLookedUpByKey) {
  auto recording = Recording::fromBytes(sampleRecording());
  recording.forEachChunk([](const Chunk& chunk) {
    const TypeInfo* thread = chunk.metadata().byName("java.lang.Thread");
    ASSERT_NE(thread, nullptr);
    const Value* main = chunk.constant(*thread, 1);
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->asObject()->getString("osName"), "main");
    EXPECT_EQ(chunk.constant(*thread, 5), nullptr);
    const Value* symbol = chunk.constant(*chunk.metadata().byName("jdk.types.Symbol"), 2);
    ASSERT_NE(symbol, nullptr);
    EXPECT_EQ(symbol->asString(), "compute");  // simple types read as their one field
  });
}

TEST(JfrReaderFormat, EmptyPoolsAndStringPoolReferencesInsideConstants) {
  using namespace ids;
  Bytes symbolByRef;  // a Symbol whose string is itself a String-pool reference
  symbolByRef.stringRef(5);
  auto pools = poolsBody({{kThread, {}},
                          {kString, {{5, Bytes().latin1("pool\xe9")}}},
                          {kSymbol, {{1, symbolByRef}}},
                          {kClass, {{1, classValue(1)}}}});
  auto type = eventType({{"clazz", kClass, true}});
  auto texts = eventTexts(chunkWith({type}, pools, {Bytes().varint(kEvent).varint(1).varint(1)}));
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], "test.Event{startTime=1, clazz={name=\"poolé\"}}");
}

TEST(JfrReaderFormat, ValueAccessorsGiveNeutralResultsForOtherKinds) {
  Value s = Value::ofString("x", 1);
  EXPECT_EQ(s.asLong(), 0);
  EXPECT_FALSE(s.asBool());
  EXPECT_EQ(s.asObject(), nullptr);
  EXPECT_TRUE(s.asArray().empty());
  EXPECT_EQ(Value::ofLong(5).asString(), "");
  EXPECT_EQ(Value::ofLong(5).asDouble(), 5.0);
  EXPECT_EQ(Value::ofBool(true).asLong(), 1);
  EXPECT_TRUE(Value().isNull());
  EXPECT_TRUE(Value::ofObject(nullptr).isNull());
}

TEST(JfrReaderFormat, OpensFilesAndNamesThemInErrors) {
  std::string path = std::string(jfrbpf::test::kBinaryDir) + "/tests/jfrreader/format_test.jfr";
  auto bytes = sampleRecording(5);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  auto recording = Recording::open(path);
  EXPECT_EQ(recording.name(), path);
  size_t events = 0;
  recording.forEachEvent([&](const RecordedEvent&) { ++events; });
  EXPECT_EQ(events, 5u);

  bytes.resize(bytes.size() - 1);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  try {
    Recording::open(path);
    FAIL() << "a truncated file must not open";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(Recording::open(path + ".missing"), Error);
}

}  // namespace
}  // namespace jfrbpf::jfr::reader

namespace jfrbpf::jfr::reader {
namespace {

TEST(JfrReaderSeeds, CommittedFuzzSeedsAreValidRecordings) {
  std::filesystem::path dir = std::filesystem::path(jfrbpf::test::kSourceDir) / "tests/testdata/jfrreader";
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    size_t events = 0;
    EXPECT_NO_THROW(Recording::open(entry.path()).forEachEvent([&](const RecordedEvent&) { ++events; }))
        << entry.path();
    EXPECT_GT(events, 0u) << entry.path();
    EXPECT_LE(std::filesystem::file_size(entry.path()), 4096u) << "seeds stay small";
  }
  EXPECT_GE(files, 5u);
}

}  // namespace
}  // namespace jfrbpf::jfr::reader
