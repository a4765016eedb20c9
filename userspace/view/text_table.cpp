#include "userspace/view/text_table.h"

#include <algorithm>

#include "userspace/view/text_format.h"

namespace jfrbpf::view {
namespace {
constexpr size_t kMinTextColumn = 8;
}  // namespace

TextTable::TextTable(std::string title, std::vector<Column> columns)
    : title_(std::move(title)), columns_(std::move(columns)) {}

void TextTable::addRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(size_t width) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = displayWidth(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], displayWidth(row[c]));
  }
  auto total = [&] {
    size_t sum = widths.empty() ? 0 : widths.size() - 1;
    for (size_t w : widths) sum += w;
    return sum;
  };
  while (total() > width) {
    size_t widest = columns_.size();
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].align == Align::kLeft && widths[c] > kMinTextColumn &&
          (widest == columns_.size() || widths[c] > widths[widest])) {
        widest = c;
      }
    }
    if (widest == columns_.size()) break;  // nothing left to shrink: the table overflows
    widths[widest] -= std::min(widths[widest] - kMinTextColumn, total() - width);
  }

  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      std::string cell = fitWidth(cells[c], widths[c]);
      std::string pad(widths[c] - displayWidth(cell), ' ');
      bool last = c + 1 == columns_.size();
      if (columns_[c].align == Align::kRight) {
        out += pad + cell;
      } else {
        out += last ? cell : cell + pad;  // no trailing blanks
      }
      if (!last) out += ' ';
    }
    return out + '\n';
  };

  std::string out = "\n";
  size_t tableWidth = total();
  size_t titleWidth = displayWidth(title_);
  if (titleWidth < tableWidth) out += std::string((tableWidth - titleWidth) / 2, ' ');
  out += title_ + "\n\n";
  std::vector<std::string> headers;
  std::vector<std::string> dashes;
  for (size_t c = 0; c < columns_.size(); ++c) {
    headers.push_back(columns_[c].header);
    dashes.emplace_back(widths[c], '-');
  }
  out += line(headers);
  out += line(dashes);
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string heading(const std::string& title) {
  return "\n" + title + "\n" + std::string(displayWidth(title), '-') + "\n";
}

std::string formLine(std::string_view label, const std::string& value, size_t width) {
  std::string line = std::string(label) + ":";
  line.resize(std::max<size_t>(line.size() + 1, 18), ' ');
  return fitWidth(line + value, width) + "\n";
}

}  // namespace jfrbpf::view
