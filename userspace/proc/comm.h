#pragma once
// /proc/PID/task/TID/comm: a thread's name as the kernel keeps it (15 bytes for user threads, which choose it).
#include <sys/types.h>

#include <string>
#include <string_view>

namespace jfrbpf::proc {

// The name in the text of a comm file: its first line.
std::string_view parseComm(std::string_view text);
// "" when the thread is gone or the file unreadable.
std::string readThreadComm(pid_t pid, pid_t tid);

}  // namespace jfrbpf::proc
