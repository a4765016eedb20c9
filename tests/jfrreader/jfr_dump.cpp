// Debugging aid for the reader (not a product CLI; `jfrbpf view` is): prints what the reader sees.
//   jfrreader_dump FILE                 chunk headers and event counts per type
//   jfrreader_dump FILE --types         the metadata of the first chunk
//   jfrreader_dump FILE --events A,B    every event of those types, fields and all
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "formats/jfr/reader/recording.h"
#include "tests/jfrreader/value_text.h"

namespace {

using namespace jfrbpf::jfr::reader;

int run(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [--types | --events TYPE,TYPE...]\n", argv[0]);
    return 2;
  }
  Recording recording = Recording::open(argv[1]);
  std::string mode = argc > 2 ? argv[2] : "";
  if (mode == "--types") {
    recording.forEachChunk([](const Chunk& chunk) {
      if (chunk.header().fileOffset != 0) return;
      for (const TypeInfo& type : chunk.metadata().types()) {
        std::cout << type.id << " " << type.name << (type.superType.empty() ? "" : " : " + type.superType)
                  << (type.simple ? " (simple)" : "") << "\n";
        for (const FieldInfo& field : type.fields) {
          std::cout << "    " << field.name << " " << field.type->name << (field.array ? "[]" : "")
                    << (field.constantPool ? " cp" : "")
                    << (field.contentType.empty() ? "" : " @" + field.contentType + "(" + field.unit + ")") << "\n";
        }
      }
    });
    return 0;
  }
  if (mode == "--events" && argc > 3) {
    std::set<std::string, std::less<>> wanted;
    std::stringstream list(argv[3]);
    for (std::string name; std::getline(list, name, ',');) wanted.insert(name);
    recording.forEachEvent(
        [](const RecordedEvent& event) {
          std::cout << event.type().name << " @" << event.fileOffset() << " t=" << event.startTimeNanos() << " ";
          std::cout << jfrbpf::jfr::testing::objectText(event, 6) << "\n";
        },
        [&](const TypeInfo& type) { return wanted.count(type.name) > 0; });
    return 0;
  }
  for (const ChunkHeader& h : recording.chunks()) {
    std::cout << "chunk @" << h.fileOffset << " v" << h.major << "." << h.minor << " size " << h.size
              << " start " << h.startNanos << " duration " << h.durationNanos << " ticks/s " << h.ticksPerSecond
              << " cp@" << h.constantPoolOffset << " meta@" << h.metadataOffset << "\n";
  }
  std::map<std::string, size_t> counts;
  recording.forEachEvent([&](const RecordedEvent& event) { ++counts[event.type().name]; });
  for (const auto& [name, count] : counts) std::cout << name << " " << count << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jfrreader_dump: %s\n", e.what());
    return 1;
  }
}
