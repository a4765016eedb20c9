#pragma once
// One request/reply round trip on a connected attach socket, bounded in time and size: the reply is produced
// by the target (and, for "load", only after Agent_OnAttach has returned on the JVM's Attach Listener thread).
#include <chrono>
#include <string>
#include <string_view>

#include "base/unique_fd.h"

namespace jfrbpf::attach {

inline constexpr std::chrono::milliseconds kDefaultReplyTimeout{30000};
// A `load` reply is a status line and a return code, and a diagnostic command's a few KiB: a JVM (or a
// process posing as one) that sends more is hostile, and --all runs 16 attaches at once.
inline constexpr size_t kMaxReplySize = 4 * 1024 * 1024;

// Sends `request`, then reads until the JVM closes the connection. Throws AttachError: NotResponding when the
// deadline passes first (naming `whatFor` and the likely cause `slowHint`), ProtocolError when the reply
// exceeds kMaxReplySize.
std::string exchange(UniqueFd socket, std::string_view request, std::chrono::milliseconds timeout,
                     const std::string& whatFor, const std::string& slowHint);

}  // namespace jfrbpf::attach
