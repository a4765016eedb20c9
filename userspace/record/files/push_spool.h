#pragma once
// The finished files one --push destination has still to receive, kept on disk so that neither an outage of
// the backend nor a restart of jfrbpf loses them: hard links in OUTPUT/.jfrbpf-push/<destination>/, named
// "<ns since the epoch>-<file name>" so that they sort oldest first. A link costs no space while the file is
// in the output directory too, and keeps it when retention removes it there. Past its bound the spool drops
// its oldest files, and counts them.
//
// Root works in a directory another user may own (the output handed to the user under sudo): every operation
// goes through descriptors opened without following links, and a spooled file is sent only when it is a
// regular file of a trusted owner (isTrustedOwner), so a link planted there cannot make jfrbpf send another
// file. Not thread-safe: its owner serializes.
#include <cstdint>
#include <string>
#include <vector>

#include "base/unique_fd.h"

namespace jfrbpf::record {

inline constexpr const char* kPushSpoolDirectory = ".jfrbpf-push";
// Why --push needs a trusted output directory, for openOutputDirectory's messages.
inline constexpr const char* kPushNeedsTheDirectory = "--push (it keeps what is not delivered yet there)";

struct SpooledFile {
  std::string name;  // in the spool
  uint64_t bytes = 0;
};

class PushSpool {
 public:
  // The spool `name` in the output directory open at `outputDirectory` (path `outputPath`, for messages),
  // made if missing (0700), with what an earlier run left there. Throws jfrbpf::Error naming the directory.
  PushSpool(int outputDirectory, const std::string& outputPath, const std::string& name, uint64_t maxBytes);

  // Spools the finished recording at `path` (in the output directory's file system). Returns how many older
  // files were dropped to stay within the bound, or throws jfrbpf::Error when it cannot be linked.
  size_t add(const std::string& path);
  // Oldest first.
  const std::vector<SpooledFile>& files() const { return files_; }
  // The spooled file `name`, open for reading; an empty descriptor when it is gone or not a recording (a
  // regular file of a trusted owner that begins as JFR does), which is then removed from the spool.
  UniqueFd open(const std::string& name);
  // Delivered, or refused for good.
  void remove(const std::string& name);
  // The file being sent (""): not dropped for the bound while it is.
  void setSending(std::string name) { sending_ = std::move(name); }
  const std::string& path() const { return path_; }

 private:
  size_t dropBeyondBound();

  std::string path_;
  uint64_t maxBytes_;
  UniqueFd dir_;
  std::vector<SpooledFile> files_;
  uint64_t bytes_ = 0;
  uint64_t lastStamp_ = 0;
  std::string sending_;
};

}  // namespace jfrbpf::record
