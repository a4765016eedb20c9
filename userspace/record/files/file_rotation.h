#pragma once
// The files one output writes, one after the other: --rotate's series (when the current file is finished and
// what the next is called), the files a `jfrbpf dump` hands out, and which of them could not be written
// whole. What goes into each file is the output's; this only moves the writer on.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "formats/jfr/writer/recording.h"
#include "userspace/record/files/dump_channel.h"
#include "userspace/record/files/file_series.h"

namespace jfrbpf::record {

class FileRotation {
 public:
  explicit FileRotation(jfr::Recording& out) : out_(out) {}

  // --rotate: the recording goes on in `series`' files, of which the current one is the first.
  void rotateThrough(FileSeries series);
  bool due(jfr::Ticks now) const;
  // The current file is finished and the writer goes on in the series' next one. The caller wrote what is
  // per file (its closing figures) before. A file that could not be finished whole is said now and counted.
  void nextFile(jfr::Ticks now);
  size_t files() const { return files_; }
  // Each file finished whole (by nextFile, or the last one by the caller's finished()) goes to `sink` too:
  // --push's spool. Called on whichever thread finishes the file.
  void sendFinishedTo(std::function<void(const std::string&)> sink) { sink_ = std::move(sink); }
  // The last file was closed whole.
  void finished() const {
    if (sink_) sink_(out_.path());
  }
  const std::string& path() const { return out_.path(); }  // of the current file
  // jfrbpf dump: everything written so far flushed, then the finished files of the series still in the
  // directory (oldest first) and the current one, opened.
  std::vector<DumpFile> filesForDump();
  // Throws jfrbpf::Error when a finished file of the recording misses chunks or was not renamed into place.
  void checkComplete() const;

 private:
  jfr::Recording& out_;
  std::optional<FileSeries> series_;
  jfr::Ticks fileOpened_ = 0;
  size_t files_ = 1;
  size_t filesIncomplete_ = 0;
  std::string firstFileError_;
  std::function<void(const std::string&)> sink_;
};

}  // namespace jfrbpf::record
