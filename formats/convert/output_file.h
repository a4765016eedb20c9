#pragma once
// Writes a file so that it appears complete or not at all: a uniquely named temporary file next to the
// destination (O_EXCL, never a predictable name), renamed over it on success, removed on failure.
#include <functional>
#include <ostream>
#include <string>

namespace jfrbpf::convert {

// Calls `write` with a stream on the temporary file, then renames it to `path`. "-" writes to stdout.
// Throws jfrbpf::Error naming the path; whatever `write` throws is passed on after cleaning up.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace jfrbpf::convert
