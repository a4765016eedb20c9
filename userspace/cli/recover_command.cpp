#include "userspace/cli/recover_command.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <regex>

#include "base/error.h"
#include "formats/jfr/reader/complete_chunks.h"
#include "formats/jfr/reader/mapped_file.h"
#include "userspace/cli/new_file.h"
#include "userspace/command_line/exit_codes.h"

namespace jfrbpf::cli {
namespace {

constexpr const char* kRecoverHelp = R"(Usage: jfrbpf recover PARTFILE [-o FILE]

Makes a recording of what a `jfrbpf record` that did not finish (killed by SIGKILL or the OOM killer, a
crash, a power cut) left in its part file, NAME.<random>.part.jfr next to where the recording was to go.
The recorder writes a whole chunk at least every --flush (default 1 s), so the part file holds every
sample up to the last chunk; the one it may have been writing when it died is dropped. The part file is
removed once the recording is written.

Options:
  -o, --output FILE   where to write it; default NAME.jfr (the part file's name without .<random>.part)
  -h, --help          this text

Exit codes: 0 recovered; 1 nothing to recover or cannot write; 2 bad command line.
)";

// "app.3f9c2a.part.jfr" -> "app.jfr"; any other name gets ".recovered.jfr" instead of ".jfr".
std::string defaultDestination(const std::string& partFile) {
  static const std::regex kPart(R"((.*)\.[^./]+\.part\.jfr)");
  std::smatch match;
  if (std::regex_match(partFile, match, kPart)) return match[1].str() + ".jfr";
  std::filesystem::path path(partFile);
  return (path.parent_path() / (path.stem().string() + ".recovered.jfr")).string();
}

}  // namespace

int runRecoverCommand(Arguments& args) {
  std::string partFile;
  std::string destination;
  std::string value;
  while (!args.done()) {
    if (args.flag("-h", "--help")) {
      std::fputs(kRecoverHelp, stdout);
      return kExitOk;
    } else if (args.option("-o", "--output", value)) {
      destination = value;
    } else if (partFile.empty() && !args.peek().starts_with("-")) {
      partFile = args.next();
    } else {
      throw Error("unexpected '" + args.peek() + "' (see jfrbpf recover --help)", ErrorKind::Usage);
    }
  }
  if (partFile.empty()) throw Error("no part file given (see jfrbpf recover --help)", ErrorKind::Usage);
  if (destination.empty()) destination = defaultDestination(partFile);

  jfr::reader::MappedFile file(partFile);
  jfr::reader::CompleteChunks complete = jfr::reader::completeChunks(file.bytes());
  if (complete.count == 0) {
    throw Error(partFile + " holds no complete chunk: nothing to recover (the recorder died within its first "
                "flush)");
  }
  writeNewFile(destination, file.bytes().first(complete.bytes), sudoUser());
  ::unlink(partFile.c_str());
  std::printf("jfrbpf: recovered %zu chunk%s into %s", complete.count, complete.count == 1 ? "" : "s",
              destination.c_str());
  if (complete.bytes < file.bytes().size()) {
    std::printf(" (dropped %zu bytes of the chunk being written)", file.bytes().size() - complete.bytes);
  }
  std::printf("\n");
  return kExitOk;
}

}  // namespace jfrbpf::cli
