#pragma once
// Terminal tables in the style of `jfr view`: a centred title, a header row, dashes under each column,
// numbers right-aligned. Text columns shrink (cut with "...") so the table fits the given width.
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::view {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kLeft;
  };

  TextTable(std::string title, std::vector<Column> columns);
  void addRow(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  // The table, fitted to `width` columns; left-aligned columns give up space, widest first.
  std::string render(size_t width) const;

 private:
  std::string title_;
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// A heading with a dashed underline, as `jfr view` prints its forms: "\nTitle\n-----\n".
std::string heading(const std::string& title);

// "Label:           value", the value aligned at column 18, cut to `width`.
std::string formLine(std::string_view label, const std::string& value, size_t width);

}  // namespace jfrbpf::view
