#include "userspace/discovery/jvm_table.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include "userspace/discovery/display_text.h"
#include "userspace/proc/text_fields.h"

namespace jfrbpf::discovery {
namespace {

constexpr size_t kColumns = 7;
constexpr std::array<const char*, kColumns> kHeaders{"PID", "NSPID", "USER", "CONTAINER", "JDK", "ATTACH", "MAIN"};
constexpr std::array<bool, kColumns> kRightAligned{true, true, false, false, false, false, false};
constexpr const char* kGap = "  ";

using Row = std::array<std::string, kColumns>;

Row rowFor(const JvmInfo& jvm) {
  std::string attach = jvm.attach.possible ? "yes" : "no:" + jvm.attach.code;
  if (jvm.optedOut) attach += ",opted-out";
  std::string main = jvm.mainClass.empty() ? "?" : jvm.mainClass;
  if (jvm.initializing) main += " (starting)";
  return Row{std::to_string(jvm.pid),
             std::to_string(jvm.namespacePid),
             printableText(jvm.user),
             jvm.container.shortId(),
             jvm.javaVersion.empty() ? "?" : printableText(jvm.javaVersion),
             attach,
             printableText(main)};
}

void appendLine(std::string& out, const Row& row, const std::array<size_t, kColumns>& widths, size_t maxWidth) {
  std::string line;
  for (size_t column = 0; column < kColumns; ++column) {
    const std::string& cell = row[column];
    const bool last = column + 1 == kColumns;
    size_t padding = widths[column] - displayWidth(cell);
    if (kRightAligned[column]) line.append(padding, ' ');
    line += cell;
    if (!last) {
      if (!kRightAligned[column]) line.append(padding, ' ');
      line += kGap;
    }
  }
  out += maxWidth == 0 ? std::string_view(line) : truncateToWidth(line, maxWidth);
  out += '\n';
}

std::string optionalNumber(const std::optional<int64_t>& value) { return value ? std::to_string(*value) : "null"; }

}  // namespace

std::string formatJvmTable(const std::vector<JvmInfo>& jvms, size_t width) {
  std::vector<Row> rows;
  rows.reserve(jvms.size());
  for (const JvmInfo& jvm : jvms) rows.push_back(rowFor(jvm));
  std::array<size_t, kColumns> widths{};
  for (size_t column = 0; column < kColumns; ++column) {
    widths[column] = std::string_view(kHeaders[column]).size();
    for (const Row& row : rows) widths[column] = std::max(widths[column], displayWidth(row[column]));
  }
  std::string out;
  Row header;
  for (size_t column = 0; column < kColumns; ++column) header[column] = kHeaders[column];
  appendLine(out, header, widths, width);
  for (const Row& row : rows) appendLine(out, row, widths, width);
  return out;
}

std::string formatJvmJsonLine(const JvmInfo& jvm) {
  std::string out = "{";
  auto field = [&](const char* name, const std::string& jsonValue) {
    if (out.size() > 1) out += ',';
    out += '"';
    out += name;
    out += "\":";
    out += jsonValue;
  };
  auto text = [](const std::string& value) { return jsonQuoted(value); };
  auto flag = [](bool value) { return std::string(value ? "true" : "false"); };
  field("pid", std::to_string(jvm.pid));
  field("nspid", std::to_string(jvm.namespacePid));
  field("uid", std::to_string(jvm.uid));
  field("user", text(jvm.user));
  field("container", jvm.container.known() ? "{\"id\":" + text(jvm.container.id) + ",\"runtime\":" +
                                                 text(jvm.container.runtime) + ",\"podUid\":" +
                                                 text(jvm.container.podUid) + "}"
                                           : "null");
  field("otherPidNamespace", flag(jvm.otherPidNamespace));
  field("otherMountNamespace", flag(jvm.otherMountNamespace));
  field("mainClass", text(jvm.mainClass));
  field("javaCommand", text(jvm.javaCommand));
  field("javaVersion", text(jvm.javaVersion));
  field("featureVersion", jvm.featureVersion ? std::to_string(*jvm.featureVersion) : "null");
  field("vmName", text(jvm.vmName));
  field("vmVersion", text(jvm.vmVersion));
  field("javaHome", text(jvm.javaHome));
  field("libjvm", text(jvm.libjvmPath));
  field("vmArgs", text(jvm.vmArgs));
  field("startTimeMs", optionalNumber(jvm.startTimeMs));
  field("source", text(jvm.source == JvmFactsSource::PerfData ? "hsperfdata" : "cmdline"));
  field("initializing", flag(jvm.initializing));
  field("attach", "{\"possible\":" + flag(jvm.attach.possible) + ",\"code\":" + text(jvm.attach.code) +
                      ",\"reason\":" + text(jvm.attach.reason) + "}");
  field("optedOut", flag(jvm.optedOut));
  out += '}';
  return out;
}

std::string formatJvmJsonLines(const std::vector<JvmInfo>& jvms) {
  std::string out;
  for (const JvmInfo& jvm : jvms) {
    out += formatJvmJsonLine(jvm);
    out += '\n';
  }
  return out;
}

size_t outputWidth(int fd) {
  winsize size{};
  if (::isatty(fd) && ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    if (auto value = proc::parseNumber<size_t>(columns); value && *value > 0) return *value;
  }
  return 0;
}

}  // namespace jfrbpf::discovery
