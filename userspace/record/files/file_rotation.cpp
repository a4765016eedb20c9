#include "userspace/record/files/file_rotation.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <filesystem>

#include "base/error.h"
#include "userspace/record/files/retention.h"
#include "userspace/record/user_warning.h"

namespace jfrbpf::record {

void FileRotation::rotateThrough(FileSeries series) {
  series_ = std::move(series);
  fileOpened_ = jfr::Recording::now();
}

bool FileRotation::due(jfr::Ticks now) const {
  return series_ && series_->due(now, fileOpened_, out_.stats().bytesWritten);
}

void FileRotation::nextFile(jfr::Ticks now) {
  const std::string finishing = out_.path();
  std::optional<std::string> error = out_.continueIn(series_->nextPath(time(nullptr)));
  fileOpened_ = now;  // when the next file could not be made, the next attempt comes a period later
  const bool moved = out_.path() != finishing;
  if (moved) ++files_;
  if (!error) {
    if (moved && sink_) sink_(finishing);
    return;
  }
  // The recording goes on; what a finished file misses is told now and in the exit status at the end.
  warnUser(out_, now, *error);
  if (moved && filesIncomplete_++ == 0) firstFileError_ = *error;
}

std::vector<DumpFile> FileRotation::filesForDump() {
  out_.rotate();
  const std::string label = series_ ? series_->prefix() : std::filesystem::path(out_.path()).stem().string();
  std::vector<std::string> paths;
  if (series_) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(series_->directory(), ec)) {
      const std::string name = entry.path().filename().string();
      if (name.starts_with(label + "-") && isFinishedRecordingName(name)) paths.push_back(entry.path().string());
    }
    std::sort(paths.begin(), paths.end());  // by time: the names are stamped
  }
  std::vector<DumpFile> files;
  for (const std::string& path : paths) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    struct stat st {};
    if (fd && ::fstat(fd.get(), &st) == 0) files.push_back({label, std::move(fd), static_cast<uint64_t>(st.st_size)});
  }
  jfr::Recording::WrittenPart current = out_.writtenPart();
  UniqueFd fd(::open(current.temporaryPath.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd && current.bytes > 0) files.push_back({label, std::move(fd), current.bytes});
  return files;
}

void FileRotation::checkComplete() const {
  if (filesIncomplete_ == 0) return;
  throw Error(std::to_string(filesIncomplete_) + " of " + std::to_string(files_) +
              " files of the recording are incomplete; the first: " + firstFileError_);
}

}  // namespace jfrbpf::record
