// libFuzzer target: arbitrary bytes as the agent channel, through the stream parser into the Java model,
// then lookups on whatever the model now holds. The first byte picks how the stream is chunked, so split
// records are exercised too.
#include <cstddef>
#include <cstdint>
#include <span>

#include "userspace/jvm/java_model.h"
#include "userspace/jvm/record_stream_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t chunk = 1 + data[0] % 64;
  std::span<const uint8_t> stream(data + 1, size - 1);

  jfrbpf::jvm::JavaModel model(static_cast<int64_t>(data[0]) * 1000);
  jfrbpf::jvm::RecordStreamParser parser(64 * 1024);
  jfrbpf::jvm::RecordStreamParser::Sink sink = [&](jfrbpf::protocol::RecordType type, std::span<const uint8_t> p) {
    return model.apply(type, p);
  };
  for (size_t at = 0; at < stream.size(); at += chunk) {
    if (!parser.feed(stream.subspan(at, std::min(chunk, stream.size() - at)), sink)) break;
  }

  jfrbpf::jvm::JavaFrame frames[8];
  model.code().forEachLiveCompiled([&](const jfrbpf::jvm::CompiledBlob& blob) {
    for (uint64_t pc : {blob.start, blob.start + (blob.end - blob.start) / 2, blob.end - 1}) {
      model.compiledFrames(pc, 1000, frames);
      model.classify(pc, 0);
    }
  });
  model.methods().forEachMethod([&](const jfrbpf::jvm::JavaMethod& m) {
    model.interpretedFrame(m.methodPtr, m.codeStart + 1, 5);
    m.lineForBci(-1);
    m.lineForBci(7);
  });
  model.forgetBefore(500);
  return 0;
}
