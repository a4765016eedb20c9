#pragma once
// Output of `jfrbpf list`: an aligned table for people (like ps / jcmd -l), or one JSON object per line for
// scripts. Every text that came from a target is made printable first.
#include <string>
#include <vector>

#include "userspace/discovery/jvm_info.h"

namespace jfrbpf::discovery {

// The table, header first:
//   PID  NSPID  USER  CONTAINER  JDK  ATTACH  MAIN
// ATTACH is "yes" or "no:<code>" (see AttachVerdict). Lines are cut at `width` characters (the terminal's
// width) unless it is 0; only the MAIN column, which is last, is then cut short.
std::string formatJvmTable(const std::vector<JvmInfo>& jvms, size_t width = 0);

// One JSON object per JVM, each on its own line, with every field of JvmInfo.
std::string formatJvmJsonLine(const JvmInfo& jvm);
std::string formatJvmJsonLines(const std::vector<JvmInfo>& jvms);

// The width to cut table lines at when writing to `fd`: the terminal's columns, else $COLUMNS, else 0.
size_t outputWidth(int fd);

}  // namespace jfrbpf::discovery
