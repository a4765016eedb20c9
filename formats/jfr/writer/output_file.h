#pragma once
// The recording's file: written as a temporary file next to the destination (O_EXCL, unpredictable name)
// that only ever holds complete chunks, and renamed into place when the recording is closed. A crash leaves
// the temporary file as a valid recording of every chunk finished so far.
#include <sys/uio.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "base/file_owner.h"
#include "base/unique_fd.h"

namespace jfrbpf::jfr {

class OutputFile {
 public:
  // Throws jfrbpf::Error naming the path and a fix when the destination cannot be written. The file is
  // private (0600) and, given an owner, handed to it before anything is written.
  explicit OutputFile(std::string destination, std::optional<FileOwner> owner = std::nullopt);
  // An uncommitted file that holds no chunk is removed; one with chunks is kept (it is a valid recording).
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Writes one complete chunk after the previous ones. On failure the file is cut back to its complete
  // chunks and the reason is returned; never throws.
  std::optional<std::string> appendChunk(std::span<const iovec> pieces);
  // fsync, then rename over the destination. Throws jfrbpf::Error; the temporary file is kept on failure.
  void commit();
  // Removes the temporary file: nothing in it is worth keeping.
  void discard() noexcept;

  uint64_t size() const { return size_; }
  const std::string& destination() const { return destination_; }
  const std::string& temporaryPath() const { return temporaryPath_; }

 private:
  std::string destination_;
  std::string directory_;
  std::string temporaryPath_;
  UniqueFd fd_;
  uint64_t size_ = 0;
};

}  // namespace jfrbpf::jfr
