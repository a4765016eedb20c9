#include "userspace/attach/protocol.h"

#include "userspace/attach/attach_error.h"
#include "userspace/attach/message_text.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::attach {
namespace {

constexpr std::string_view kProtocolVersion = "1";
constexpr std::string_view kReturnCodePrefix = "return code: ";

void checkField(std::string_view what, std::string_view value, size_t limit) {
  if (value.find('\0') != std::string_view::npos) {
    throw AttachError(AttachFailure::ProtocolError,
                      "attach request " + std::string(what) + " contains a NUL byte, which the protocol cannot carry");
  }
  if (value.size() > limit) {
    throw AttachError(AttachFailure::ProtocolError, "attach request " + std::string(what) + " is " +
                                                        std::to_string(value.size()) + " bytes, more than the " +
                                                        std::to_string(limit) + " HotSpot accepts; shorten it");
  }
}

std::optional<int> returnCodeIn(std::string_view text) {
  std::optional<int> code;
  proc::forEachLine(text, [&](std::string_view line) {
    line = proc::trimBlanks(line);
    if (!code && line.starts_with(kReturnCodePrefix)) code = proc::parseNumber<int>(line.substr(kReturnCodePrefix.size()));
  });
  return code;
}

}  // namespace

std::string encodeRequest(std::string_view command, const Arguments& arguments) {
  checkField("command", command, kMaxCommandLength);
  for (std::string_view argument : arguments) checkField("argument", argument, kMaxArgumentLength);
  std::string request;
  request.append(kProtocolVersion).push_back('\0');
  request.append(command).push_back('\0');
  for (std::string_view argument : arguments) request.append(argument).push_back('\0');
  return request;
}

std::optional<Reply> parseReply(std::string_view raw) {
  size_t newline = raw.find('\n');
  std::string_view statusLine = proc::trimBlanks(raw.substr(0, newline));
  auto status = proc::parseNumber<int>(statusLine);
  if (!status) return std::nullopt;
  Reply reply;
  reply.status = *status;
  if (newline != std::string_view::npos) reply.text.assign(raw.substr(newline + 1));
  return reply;
}

LoadOutcome interpretLoadReply(const Reply& reply) {
  LoadOutcome outcome;
  std::optional<int> code = returnCodeIn(reply.text);
  if (!code && reply.status == 0) code = proc::parseNumber<int>(proc::trimBlanks(reply.text));  // JDK 8: the bare number
  if (code) {
    outcome.agentRan = true;
    outcome.agentResult = *code;
    if (*code != 0) outcome.jvmText = oneLine(reply.text);
    return outcome;
  }
  outcome.jvmText = oneLine(reply.text);
  // JDK 21+ (JvmtiAgent::load): "Dynamic agent loading is only permitted in the live phase".
  outcome.beforeLivePhase = outcome.jvmText.find("only permitted in the live phase") != std::string::npos;
  if (outcome.jvmText.empty())
    outcome.jvmText = "the JVM answered status " + std::to_string(reply.status) + " without a reason";
  return outcome;
}

}  // namespace jfrbpf::attach
