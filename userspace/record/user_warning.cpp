#include "userspace/record/user_warning.h"

#include <cstdio>

namespace jfrbpf::record {

void warnUser(jfr::Recording& out, jfr::Ticks now, const std::string& text) {
  std::fprintf(stderr, "jfrbpf: %s\n", text.c_str());
  out.note(now, "warning", text);
}

}  // namespace jfrbpf::record
