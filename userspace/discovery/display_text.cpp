#include "userspace/discovery/display_text.h"

#include <cstdint>
#include <cstdio>

namespace jfrbpf::discovery {
namespace {

// Length of the valid UTF-8 sequence starting at text[i] (1 to 4), or 0 if it is not one. Rejects overlong
// forms, surrogates and code points above U+10FFFF.
size_t utf8SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length;
  uint32_t min;
  if ((lead & 0xe0) == 0xc0) {
    length = 2;
    min = 0x80;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3;
    min = 0x800;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (text.size() - i < length) return 0;
  uint32_t codePoint = lead & (0x7f >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    codePoint = (codePoint << 6) | (byte(i + k) & 0x3f);
  }
  if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return 0;
  return length;
}

bool isControl(uint8_t c) { return c < 0x20 || c == 0x7f; }

}  // namespace

std::string printableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t length = utf8SequenceLength(text, i);
    if (length == 0 || (length == 1 && isControl(static_cast<uint8_t>(text[i])))) {
      out += '?';
      ++i;
      continue;
    }
    // C1 controls (U+0080..U+009F) act as escape introducers on some terminals.
    if (length == 2 && static_cast<uint8_t>(text[i]) == 0xc2 && static_cast<uint8_t>(text[i + 1]) < 0xa0) {
      out += '?';
      i += 2;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

size_t displayWidth(std::string_view printable) {
  size_t width = 0;
  for (char c : printable) {
    if ((static_cast<uint8_t>(c) & 0xc0) != 0x80) ++width;
  }
  return width;
}

std::string_view truncateToWidth(std::string_view printable, size_t width) {
  size_t characters = 0;
  for (size_t i = 0; i < printable.size(); ++i) {
    if ((static_cast<uint8_t>(printable[i]) & 0xc0) == 0x80) continue;
    if (characters == width) return printable.substr(0, i);
    ++characters;
  }
  return printable;
}

std::string jsonQuoted(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    size_t length = utf8SequenceLength(text, i);
    if (length == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (length > 1) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    const char c = text[i++];
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (isControl(static_cast<uint8_t>(c))) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<uint8_t>(c)));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace jfrbpf::discovery
