// Writes the fuzzer's seed corpus: small valid recordings covering every wire feature (each well under
// 4 KB). Run once when the format coverage changes: jfrreader_make_seeds tests/testdata/jfrreader
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "tests/jfrreader/jfr_bytes.h"

namespace {

using namespace jfrbpf::jfr::testing;

std::vector<TypeSpec> with(std::vector<TypeSpec> extra) {
  auto types = standardTypes();
  types.push_back(sampleEventType());
  types.insert(types.end(), extra.begin(), extra.end());
  return types;
}

// jdk.CPUTimeSample and jdk.MethodTiming in JDK 25's field order, as jfrbpf writes them.
std::vector<uint8_t> profilerShaped() {
  using namespace ids;
  std::vector<AnnotationSpec> ticks = {{kTimestamp, {{"value", "TICKS"}}}};
  std::vector<AnnotationSpec> span = {{kTimespan, {{"value", "TICKS"}}}};
  TypeSpec cpu{125, "jdk.CPUTimeSample", "jdk.jfr.Event", false,
               {{"startTime", kLong, false, false, ticks},
                {"stackTrace", kStackTrace, true},
                {"eventThread", kThread, true},
                {"failed", kBoolean},
                {"samplingPeriod", kLong, false, false, span},
                {"biased", kBoolean}}};
  TypeSpec lost{126, "jdk.CPUTimeSamplesLost", "jdk.jfr.Event", false,
                {{"startTime", kLong, false, false, ticks}, {"lostSamples", kInt}, {"eventThread", kThread, true}}};
  TypeSpec timing{1931, "jdk.MethodTiming", "jdk.jfr.Event", false,
                  {{"startTime", kLong, false, false, ticks},
                   {"method", kMethod, true},
                   {"invocations", kLong},
                   {"minimum", kLong, false, false, span},
                   {"average", kLong, false, false, span},
                   {"maximum", kLong, false, false, span}}};
  ChunkBuilder chunk;
  chunk.sizeWidth(4).metadata(metadataBody(with({cpu, lost, timing})));
  for (int i = 0; i < 6; ++i) {
    chunk.event(Bytes().varint(125).varint(5'010'000'000 + i).varint(1 + i % 2).varint(1 + i % 2).u8(0).varint(10'000'000).u8(i == 3));
  }
  chunk.event(Bytes().varint(125).varint(5'020'000'000).varint(0).varint(1).u8(1).varint(10'000'000).u8(0));
  chunk.event(Bytes().varint(126).varint(5'030'000'000).varint(3).varint(2));
  chunk.event(Bytes().varint(1931).varint(5'040'000'000).varint(1).varint(100).varint(150'000).varint(200'000).varint(5'000'000));
  chunk.event(Bytes().varint(1931).varint(5'040'000'000).varint(2).varint(0).varint(uint64_t(std::numeric_limits<int64_t>::min()))
                  .varint(uint64_t(std::numeric_limits<int64_t>::min())).varint(uint64_t(std::numeric_limits<int64_t>::min())));
  chunk.checkpoint(samplePools());
  return chunk.build();
}

std::vector<uint8_t> stringsAndNumbers() {
  using namespace ids;
  TypeSpec point{150, "test.Point", "", false, {{"x", kInt}, {"y", kInt}}};
  TypeSpec e{200, "test.Everything", "jdk.jfr.Event", false,
             {{"startTime", kLong},
              {"s0", kString}, {"s1", kString}, {"s2", kString}, {"s3", kString}, {"s4", kString}, {"s5", kString},
              {"b", kBoolean}, {"by", kByte}, {"c", kChar}, {"sh", kShort}, {"i", kInt}, {"l", kLong},
              {"f", kFloat}, {"d", kDouble}, {"points", 150, false, true}, {"names", kString, false, true}}};
  Bytes event;
  event.varint(200).varint(1).nullString().emptyString().stringRef(3).utf8("h\xc3\xa9").charArray(u"\u03bb\U0001F600").latin1("\xe9");
  event.u8(1).u8(0x80).varint(0x3bb).varint(0xFFFF).varint(0xFFFFFFFF).varint(uint64_t(-7)).f32(1.5f).f64(-2.25);
  event.varint(2).varint(1).varint(2).varint(3).varint(4).varint(1).utf8("n");
  ChunkBuilder chunk;
  chunk.metadata(metadataBody(with({point, e}), 1, StringStyle::kCharArray)).event(event);
  chunk.checkpoint(poolsBody({{kString, {{3, Bytes().latin1("pooled")}}}}));
  return chunk.build();
}

std::vector<uint8_t> deltaChain() {
  using namespace ids;
  return ChunkBuilder()
      .checkpoint(poolsBody({{kClass, {{1, classValue(1)}}}, {kMethod, {{1, methodValue(1, 2, 3)}}}}))
      .event(sampleEvent(5'000'000'000, 0, 1, 1, 0))
      .checkpoint(poolsBody({{kSymbol, {{1, symbolValue("A")}, {2, symbolValue("m")}, {3, symbolValue("()V")}}},
                             {kThread, {{1, threadValue("t", 5, "t", 5)}}}}))
      .event(sampleEvent(5'000'000'001, 7, 1, 1, 1))
      .metadata(metadataBody(with({})))
      .checkpoint(poolsBody({{kStackTrace, {{1, stackTraceValue(false, {{1, 4, 2, 0}})}}},
                             {kFrameType, {{0, Bytes().utf8("Interpreted")}}},
                             {kSymbol, {{1, symbolValue("B")}}}}))
      .build();
}

void write(const std::filesystem::path& dir, const char* name, const std::vector<uint8_t>& bytes) {
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::printf("%s: %zu bytes\n", name, bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIRECTORY\n", argv[0]);
    return 2;
  }
  std::filesystem::path dir(argv[1]);
  std::filesystem::create_directories(dir);
  write(dir, "samples.jfr", sampleRecording(6));
  write(dir, "padded_sizes.jfr", sampleRecording(3, 4));
  auto two = sampleRecording(2);
  auto more = deltaChain();
  two.insert(two.end(), more.begin(), more.end());
  write(dir, "two_chunks.jfr", two);
  write(dir, "delta_chain.jfr", deltaChain());
  write(dir, "strings_numbers_arrays.jfr", stringsAndNumbers());
  write(dir, "profiler_events.jfr", profilerShaped());
  return 0;
}
