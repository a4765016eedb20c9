#include "userspace/cli/dump_command.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <vector>

#include "base/error.h"
#include "base/file_owner.h"
#include "formats/jfr/reader/chunk_header.h"
#include "userspace/cli/jfr_values.h"
#include "userspace/cli/new_file.h"
#include "userspace/command_line/exit_codes.h"
#include "userspace/record/files/dump_channel.h"
#include "userspace/record/files/file_series.h"
#include "userspace/record/files/output_directory.h"

namespace jfrbpf::cli {
namespace {

constexpr const char* kDumpHelp = R"(Usage: jfrbpf dump [-o FILE|DIR] [--since TIME] [--recorder PID]
       jfrbpf dump --check [--recorder PID]

Writes what a running `jfrbpf record` has recorded so far, without stopping it (like jcmd PID JFR.dump):
everything up to this moment of the file it is writing and, with --rotate, of its finished files still in
its directory. A recording of one target gives one file; `record --all` one file per JVM.

Options:
  -o, --output FILE|DIR  where to write: a FILE ending in .jfr (one target), else a directory (made
                         if missing) of LABEL-dump-UTCTIME.jfr, one per target; default
                         jfrbpf-dump-UTCTIME.jfr for one target, a directory of that name for several
      --since TIME       only the chunks of the last TIME (JFR syntax: 5m, 30 s); default: all of it
      --recorder PID     the recorder to ask, when several run on this host
      --check            write nothing: exit 0 if the recorder answers within 20 s (its main loop and
                         the thread that writes its files both alive), else 1: a liveness probe; prints
                         its pushes and where its memory is
  -h, --help             this text

Needs root, like the recorder. The dump holds whole chunks: the recorder finishes its current one first.
Exit codes: 0 written; 1 failure; 2 bad command line; 4 no recorder running (or it ended meanwhile).
)";

// The chunks of `bytes` that end at or after `fromNanos` (epoch), concatenated onto `out`.
void appendChunksSince(std::span<const uint8_t> bytes, int64_t fromNanos, std::vector<uint8_t>& out) {
  for (uint64_t offset = 0; offset + jfr::reader::ChunkHeader::kSize <= bytes.size();) {
    jfr::reader::ChunkHeader chunk = jfr::reader::parseChunkHeader(bytes, offset);
    if (chunk.size <= 0 || offset + static_cast<uint64_t>(chunk.size) > bytes.size()) break;
    if (chunk.startNanos + chunk.durationNanos >= fromNanos) {
      out.insert(out.end(), bytes.begin() + static_cast<ptrdiff_t>(offset),
                 bytes.begin() + static_cast<ptrdiff_t>(offset + static_cast<uint64_t>(chunk.size)));
    }
    offset += static_cast<uint64_t>(chunk.size);
  }
}

std::vector<uint8_t> readPrefix(const record::DumpFile& file) {
  std::vector<uint8_t> bytes(file.bytes);
  for (size_t done = 0; done < bytes.size();) {
    ssize_t got = ::pread(file.fd.get(), bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw systemError("cannot read a recording file the recorder passed");
    done += static_cast<size_t>(got);
  }
  return bytes;
}

}  // namespace

int runDumpCommand(Arguments& args) {
  std::string output;
  std::string value;
  int64_t sinceNs = 0;
  std::optional<pid_t> recorder;
  bool check = false;
  while (!args.done()) {
    if (args.flag("-h", "--help")) {
      std::fputs(kDumpHelp, stdout);
      return kExitOk;
    } else if (args.option("-o", "--output", value)) {
      output = value;
    } else if (args.flag("", "--check")) {
      check = true;
    } else if (args.option("", "--since", value)) {
      sinceNs = parseDuration(value, "--since");
    } else if (args.option("", "--recorder", value)) {
      pid_t pid = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), pid);
      if (ec != std::errc() || end != value.data() + value.size() || pid <= 0) {
        throw Error("invalid --recorder '" + value + "': expected the recorder's pid", ErrorKind::Usage);
      }
      recorder = pid;
    } else {
      throw Error("unexpected '" + args.peek() + "' (see jfrbpf dump --help)", ErrorKind::Usage);
    }
  }
  if (check) {
    if (!output.empty() || sinceNs > 0) throw Error("--check writes nothing: give it without -o or --since", ErrorKind::Usage);
    const std::string socket = record::findRecorderSocket(recorder);
    const std::vector<std::string> status = record::checkRecorder(socket, std::chrono::seconds(20));
    std::printf("jfrbpf: the recorder at %s answers\n", socket.c_str());
    for (const std::string& line : status) std::printf("  %s\n", line.c_str());
    return kExitOk;
  }
  std::vector<record::DumpFile> files =
      record::requestDump(record::findRecorderSocket(recorder), std::chrono::seconds(30));
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  const int64_t fromNanos = sinceNs > 0 ? now.tv_sec * 1'000'000'000LL + now.tv_nsec - sinceNs : INT64_MIN;
  std::map<std::string, std::vector<uint8_t>> byLabel;  // a target's chunks, oldest first
  for (const record::DumpFile& file : files) {
    std::vector<uint8_t> bytes = readPrefix(file);
    appendChunksSince(bytes, fromNanos, byLabel[file.label]);
  }
  std::erase_if(byLabel, [](const auto& entry) { return entry.second.empty(); });
  if (byLabel.empty()) throw Error("the recorder has nothing recorded in that time yet (try a longer --since)");

  const std::string stamp = record::utcStamp(now.tv_sec);
  const bool oneFile = output.empty() ? byLabel.size() == 1 : output.ends_with(".jfr");
  if (oneFile && byLabel.size() > 1) {
    throw Error("the recorder has " + std::to_string(byLabel.size()) + " targets, a file each: give -o a directory",
                ErrorKind::Usage);
  }
  if (output.empty()) output = "jfrbpf-dump-" + stamp + (oneFile ? ".jfr" : "");
  const std::optional<FileOwner> owner = sudoUser();
  if (!oneFile) record::makeOutputDirectory(output, "the dump", owner);
  for (const auto& [label, bytes] : byLabel) {
    std::string path = oneFile ? output : (std::filesystem::path(output) / (label + "-dump-" + stamp + ".jfr")).string();
    writeNewFile(path, bytes, owner);
    std::printf("jfrbpf: dumped %s (%zu kB)\n", path.c_str(), (bytes.size() + 1023) / 1024);
  }
  return kExitOk;
}

}  // namespace jfrbpf::cli
