#pragma once
// A warning the user must see whether they watch the terminal or read the file later: the one way the
// recording's parts say one (a jfrbpf.Note with level "warning", and the same line on stderr).
#include <string>

#include "formats/jfr/writer/recording.h"

namespace jfrbpf::record {

void warnUser(jfr::Recording& out, jfr::Ticks now, const std::string& text);

}  // namespace jfrbpf::record
